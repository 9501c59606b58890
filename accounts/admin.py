from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from . import usernames
from .models import User, Vacation


class CheckedUsername:
    """A username typed in here is held to the rules of sign-up (accounts/usernames.py): the
    admin's field has made it NFKC already. One left as it was stays, whatever it is."""

    def clean_username(self):
        clean = getattr(super(), "clean_username", None)
        username = clean() if clean else self.cleaned_data["username"]
        if "username" in self.changed_data:
            usernames.check(username, self.instance)
        return username


class SiteUserChangeForm(CheckedUsername, UserChangeForm):
    pass


class SiteUserCreationForm(CheckedUsername, AdminUserCreationForm):
    pass


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    form = SiteUserChangeForm
    add_form = SiteUserCreationForm
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
    """Staff see the players' vacations, and no more: a vacation is taken and called off through
    accounts.vacations, whose rules (not in the past, up to the end of next year, 21 days a year,
    the days spent stay spent) keep the clocks' date arithmetic in range and the days counted. A
    vacation typed in here to the 31 December 9999 would stop every game of its player's with an
    error; one deleted here once begun would give back the days already taken."""

    list_display = ["user", "start", "end"]
    search_fields = ["user__username"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
