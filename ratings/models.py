"""Each player's rating on each ladder, and what every rated game changed.

A ladder is "all games" or the games of one player count, since a 2-player game is a different
game from a 5-player one. The ratings are openskill's Plackett–Luce (mu, sigma), stored exactly
as floats: `manage.py rebuild_ratings` recomputes them from the games and must find the very
same numbers (ratings/rating.py).
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Ladder(models.IntegerChoices):
    ALL = 0, _("All games")
    TWO = 2, _("2 players")
    THREE = 3, _("3 players")
    FOUR = 4, _("4 players")
    FIVE = 5, _("5 players")


# Fewer rated games than this on a ladder and the rating is shown as provisional.
PROVISIONAL_BELOW = 5


class Rating(models.Model):
    """A player's current rating on one ladder. `ordinal` (mu - 3 sigma, a cautious estimate of
    skill) is what the ladder is sorted by, so it is stored and indexed."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    ladder = models.PositiveSmallIntegerField(choices=Ladder)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    # Games finished in first place, alone or shared.
    wins = models.PositiveIntegerField(default=0)
    last_game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    last_game_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "ladder"], name="one_rating_per_ladder")]
        # The ladder page: best first, the user's id breaking ties; and a player's rank (how many
        # stand above), both read from this index.
        indexes = [models.Index(fields=["ladder", "-ordinal", "user"], name="ladder_order_idx")]

    def __str__(self):
        return f"{self.user} on {self.get_ladder_display()}: mu={self.mu} sigma={self.sigma}"

    @property
    def provisional(self):
        return self.games < PROVISIONAL_BELOW


class RatingChange(models.Model):
    """What one rated game did to one player's rating on one ladder: the before and after, kept
    for the game page and the player's history. At most one per (game, player, ladder), so a game
    can never be rated twice."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    ladder = models.PositiveSmallIntegerField(choices=Ladder)
    place = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    # The game's finished_at, copied so a player's history is read from one index.
    finished_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user", "ladder"], name="one_rating_change_per_game_player_ladder")
        ]
        indexes = [models.Index(fields=["user", "ladder", "finished_at"], name="rating_history_idx")]

    def __str__(self):
        return f"{self.user} in game {self.game_id} on {self.get_ladder_display()}"
