from django.contrib import admin

from .models import Game, Move, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["id", "creator", "num_players", "status", "version", "created_at"]
    list_filter = ["status", "private", "rated"]
    inlines = [SeatInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ["game", "version", "seat", "automatic", "created_at"]
