from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User, Vacation


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    fieldsets = [
        *UserAdmin.fieldsets,
        ("Settings", {"fields": ["time_zone", "digest", "notify_your_move", "notify_live_your_move",
                                 "notify_reminder", "notify_game_started", "notify_game_finished",
                                 "notify_invitation"]}),
    ]
    readonly_fields = ["deleted_at"]
    list_filter = [*UserAdmin.list_filter, "deleted_at"]


@admin.register(Vacation)
class VacationAdmin(admin.ModelAdmin):
    list_display = ["user", "start", "end"]
    search_fields = ["user__username"]
