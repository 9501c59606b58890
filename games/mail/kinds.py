"""The kinds of mail a player gets and the setting of theirs that each answers to (the one its
unsubscribe link switches off), and which of a game's players may be mailed."""

from django.utils.translation import gettext_lazy

from accounts.emails import NOTIFICATION_FIELDS, verified_email
from games.models import Seat

# Games with less time per move than this are live: players are at the table.
LIVE_BELOW = 60 * 60


def is_live(game):
    return game.time_per_move < LIVE_BELOW


# The settings field each kind of mail answers to; the unsubscribe link switches it off.
SETTING_OF_KIND = {
    "your_move": "your_move",
    "live_your_move": "live_your_move",
    "reminder_half": "reminder",
    "reminder_last": "reminder",
    "game_started": "game_started",
    "game_finished": "game_finished",
    "invitation": "invitation",
    "digest": "your_move",
    # A tournament's table for a round (tournaments/mail.py): its game starts with it.
    "tournament_table": "game_started",
}
SETTING_LABELS = {
    "your_move": gettext_lazy("“your move” mails (and the daily digest) for slow games"),
    "live_your_move": gettext_lazy("“your move” mails for live games"),
    "reminder": gettext_lazy("reminders before your deadlines"),
    "game_started": gettext_lazy("mails when a game you joined starts"),
    "game_finished": gettext_lazy("mails when a game you played ends"),
    "invitation": gettext_lazy("invitations to private games"),
}
# The kinds of mail that tell a player what they are asked to decide.
TELLS_WHAT_IS_ASKED = ("your_move", "live_your_move", "game_started")
# allauth's address confirmations, kept only when their first sending failed (accounts.adapter).
ACCOUNT_MAIL = "account"


def seats_with_mail():
    """Seats with their players and whether each has a verified address, in one query."""
    return Seat.objects.select_related("user").annotate(verified=verified_email("user"))


def verified_users(seats):
    return {seat.user_id for seat in seats if seat.verified and seat.user.is_active and seat.user.email}


def wants(user, setting, verified):
    """accounts.emails.wants_mail, with the verified addresses already looked up."""
    return getattr(user, NOTIFICATION_FIELDS[setting]) and user.pk in verified
