from django.contrib import admin

from .models import Rating, RatingChange


class ReadOnly(admin.ModelAdmin):
    """Ratings are computed from the games (and recomputed by `manage.py rebuild_ratings`): a
    hand-made change would be undone by the next rebuild, so the admin only shows them."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnly):
    list_display = ["user", "ladder", "mu", "sigma", "ordinal", "games", "wins", "last_game_at"]
    list_filter = ["ladder"]
    search_fields = ["user__username"]
    list_select_related = ["user"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnly):
    list_display = ["game", "user", "ladder", "place", "mu_before", "mu_after", "finished_at"]
    list_filter = ["ladder"]
    search_fields = ["user__username"]
    list_select_related = ["user"]
