from django.contrib import admin

from .models import Entrant, Table, Tournament


class EntrantInline(admin.TabularInline):
    model = Entrant
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "organiser", "format", "status", "current_round", "rounds", "signup_closes_at"]
    list_filter = ["status", "format"]
    search_fields = ["name"]
    raw_id_fields = ["organiser"]
    inlines = [EntrantInline]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["tournament", "round", "number", "game"]
    raw_id_fields = ["game", "tournament"]
