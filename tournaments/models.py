from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.models import DEFAULT_TIME_PER_MOVE, TIME_PER_MOVE_CHOICES, Game

from .pairing import DEFAULT_POINTS


def default_points():
    return list(DEFAULT_POINTS)


class Tournament(models.Model):
    """A tournament the site runs: entrants sign up, then each round the site seats them at tables
    and opens a game per table (tournaments/services.py); docs/tournaments.md."""

    class Format(models.TextChoices):
        SWISS = "swiss", _("Swiss")
        GROUPS = "groups", _("Groups then a final")

    class FirstRound(models.TextChoices):
        RATING = "rating", _("By rating")
        RANDOM = "random", _("At random")

    class Status(models.TextChoices):
        SIGNUP = "signup", _("Open for sign-up")
        RUNNING = "running", _("In play")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    name = models.CharField(max_length=100)
    description = models.TextField(max_length=2000, blank=True, default="")
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_tournaments"
    )
    format = models.CharField(max_length=8, choices=Format, default=Format.SWISS)
    first_round = models.CharField(max_length=8, choices=FirstRound, default=FirstRound.RATING)
    table_size = models.PositiveSmallIntegerField(default=4, validators=[MinValueValidator(3), MaxValueValidator(5)])
    rounds = models.PositiveSmallIntegerField(default=3, validators=[MinValueValidator(1), MaxValueValidator(9)])
    # Tournament points by place in a game, first place first.
    points = models.JSONField(default=default_points)
    # The options of every game, as on the new-game form.
    short_game = models.BooleanField(default=False)
    veto = models.BooleanField(default=True)
    show_castillo = models.BooleanField(default=False)
    time_per_move = models.PositiveIntegerField(choices=TIME_PER_MOVE_CHOICES, default=DEFAULT_TIME_PER_MOVE)
    rated = models.BooleanField(default=False)
    vacations_allowed = models.BooleanField(default=True)

    signup_closes_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status, default=Status.SIGNUP)
    # The round being played (0 before the start).
    current_round = models.PositiveSmallIntegerField(default=0)
    seed = models.BigIntegerField()
    # Why a tournament was cancelled or ended early, for its page.
    note = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "signup_closes_at"], name="tournament_status_idx")]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("tournament", args=[self.pk])

    def game_options(self):
        return {
            "short_game": self.short_game,
            "veto": self.veto,
            "show_castillo": self.show_castillo,
            "time_per_move": self.time_per_move,
            "rated": self.rated,
            "vacations_allowed": self.vacations_allowed,
        }


class Entrant(models.Model):
    """A player signed up for a tournament. Withdrawn after the start: plays on by autopilot to the
    end of the current game, then is seated no more."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries")
    joined_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["joined_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="one_entry_per_player")]

    def __str__(self):
        return f"{self.user} in {self.tournament}"


class Table(models.Model):
    """One table of one round: the game the site opened for it."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField()
    game = models.OneToOneField(Game, on_delete=models.PROTECT, related_name="tournament_table")

    class Meta:
        ordering = ["tournament", "round", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "round", "number"], name="one_table_number")]

    def __str__(self):
        return f"{self.tournament}, round {self.round}, table {self.number}"
