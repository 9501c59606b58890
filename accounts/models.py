import zoneinfo
from functools import cache

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from . import usernames

# Said in the reader's language wherever the player of a deleted account is named.
DELETED_NAME = _("deleted player")


@cache
def time_zone_names():
    return frozenset(zoneinfo.available_timezones())


def validate_time_zone(value):
    if value not in time_zone_names():
        raise ValidationError(
            _("%(value)r is not a time zone we know (e.g. Europe/Madrid)."), params={"value": value}
        )


class User(AbstractUser):
    """The site's own user model, in place from the first migration so it could grow: the time
    zone times are shown in, which mails the player wants, and whether the account was deleted."""

    class Digest(models.TextChoices):
        SINGLE = "single", _("A mail for each event")
        DAILY = "daily", _("One daily digest of the games waiting for me")

    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone])
    # The site's and the mails' language (settings.LANGUAGES); blank until the player picks one
    # (the header's switcher or the settings page), and then the browser's language is used.
    language = models.CharField(
        _("Language"), max_length=8, blank=True, default="", choices=settings.LANGUAGES
    )
    notify_your_move = models.BooleanField(_("Your move in a slow game"), default=True)
    notify_live_your_move = models.BooleanField(_("Your move in a live game"), default=False)
    notify_reminder = models.BooleanField(_("A reminder before your deadline"), default=True)
    notify_game_started = models.BooleanField(_("A game you joined has started"), default=True)
    notify_game_finished = models.BooleanField(_("A game you played has finished"), default=True)
    notify_invitation = models.BooleanField(_("An invitation to a private game"), default=True)
    digest = models.CharField(_("How to send them"), max_length=6, choices=Digest, default=Digest.SINGLE)
    # Set when the player deleted the account: the row stays (their finished games keep their
    # seat), but nothing personal is left on it.
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # A computer player's account (games/computer/players.py): the level it plays at ("random", "greedy",
    # "strong"), "" for a person. It cannot log in, has no address, gets no mail, never takes a
    # vacation; it has a profile and ratings like anyone.
    computer_level = models.CharField(max_length=8, blank=True, default="", editable=False)
    # What the username looks like, as written and in lower case (accounts/usernames.py), kept by
    # save(): a new name is refused when another's looks the same.
    username_skeleton = models.CharField(
        max_length=usernames.SKELETON_LENGTH, blank=True, default="", editable=False, db_index=True
    )
    username_lower_skeleton = models.CharField(
        max_length=usernames.SKELETON_LENGTH, blank=True, default="", editable=False, db_index=True
    )

    def save(self, *args, **kwargs):
        self.username_skeleton = usernames.skeleton(self.username)
        self.username_lower_skeleton = usernames.lower_skeleton(self.username)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_skeleton", "username_lower_skeleton"}
        super().save(*args, **kwargs)

    @property
    def is_computer(self):
        return bool(self.computer_level)

    @property
    def zone(self):
        """The player's time zone; UTC should their stored one have left the tz database."""
        try:
            return zoneinfo.ZoneInfo(self.time_zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    @property
    def mail_language(self):
        """The language this player's mails are written in: their setting, else English."""
        return self.language or settings.LANGUAGE_CODE

    @property
    def display_name(self):
        """The name to show beside this player's seat anywhere on the site."""
        return str(DELETED_NAME) if self.deleted_at else self.username

    def get_absolute_url(self):
        return reverse("profile", args=[self.username])


class Vacation(models.Model):
    """Days, in the player's own time zone, on which their clocks in slow games stand still.
    Both ends are included. The rules (not in the past, no overlap, 21 days a calendar year)
    live in accounts.vacations, which every write goes through."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations")
    start = models.DateField()
    end = models.DateField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["start"]
        indexes = [models.Index(fields=["user", "end"])]
        constraints = [
            models.CheckConstraint(condition=models.Q(end__gte=models.F("start")), name="vacation_ends_after_start")
        ]

    def __str__(self):
        return f"{self.user} away {self.start}–{self.end}"

    @property
    def days(self):
        return (self.end - self.start).days + 1


class Follow(models.Model):
    """`follower` follows `followed`: the followed player is in the follower's friends list on
    the lobby (accounts/friends.py). One way; the followed player is not told."""

    follower = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows")
    followed = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(condition=~models.Q(follower=models.F("followed")), name="follow_not_oneself"),
        ]

    def __str__(self):
        return f"{self.follower} follows {self.followed}"


class Block(models.Model):
    """`blocker` blocks `blocked`: the blocked player cannot invite the blocker, join the games
    the blocker sits in, or be read by the blocker in table talk; they are never told
    (docs/friends.md)."""

    blocker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocked_by")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(condition=~models.Q(blocker=models.F("blocked")), name="block_not_oneself"),
        ]

    def __str__(self):
        return f"{self.blocker} blocks {self.blocked}"
