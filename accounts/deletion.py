"""Deleting an account: the player's finished games keep their seat, shown as a deleted player.

The row stays, since seats, moves and created games point at it, but nothing personal is left:
the username becomes deleted-<id>, the email address and names are cleared, the password is made
unusable (which also ends every session), and the account is inactive. What they wrote in table
talk is blanked, and so are the mails kept for them (which greet them by name): those not yet
sent are dropped. Their follows and blocks, both ways, are removed, and so are their entries in
tournaments still open for sign-up (as a withdrawal then): those would list a "deleted player"
among the entrants, counted, who will never be seated.
"""

from allauth.account.models import EmailAddress
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import ngettext

from games.models import Notification
from games.play import account_deletion

from . import friends
from .adapter import DELETED_PREFIX
from .models import User

# The running games named on the page and in the refusal; a player in hundreds gets "and N more".
GAMES_NAMED = 20


class AccountInUse(Exception):
    def __init__(self, games):
        numbers = ", ".join(str(game.pk) for game in games[:GAMES_NAMED])
        if len(games) > GAMES_NAMED:
            more = len(games) - GAMES_NAMED
            numbers = ngettext("%(numbers)s and %(more)d more", "%(numbers)s and %(more)d more", more) % {
                "numbers": numbers,
                "more": more,
            }
        super().__init__(
            ngettext(
                "You are playing in game %(numbers)s. Your opponents are counting on you: finish it "
                "first, then delete your account.",
                "You are playing in games %(numbers)s. Your opponents are counting on you: finish them "
                "first, then delete your account.",
                len(games),
            )
            % {"numbers": numbers}
        )
        self.games = games


def delete_account(user):
    """Anonymise `user`. Refused (AccountInUse) while they play in a running game; the games they
    wait in that have not started are left, or cancelled when they created them
    (games.play.account_deletion)."""
    with transaction.atomic():
        # The account first, then its games: the order in which a join (games.play.lifecycle.join_game)
        # locks them, so the two cannot deadlock. A join of this account waits for this
        # transaction and then finds the account deleted.
        user = User.objects.select_for_update().get(pk=user.pk)
        try:
            account_deletion.leave_games(user)
        except account_deletion.StillPlaying as playing:
            raise AccountInUse(playing.games) from None
        forget_mails_of(user)
        EmailAddress.objects.filter(user=user).delete()
        user.vacations.all().delete()
        friends.forget(user)
        # By the tournaments app's relation's name and its status "signup" (Tournament.Status.SIGNUP):
        # the account pages sit below the tournaments, which they do not import.
        user.tournament_entries.filter(tournament__status="signup").delete()
        user.username = f"{DELETED_PREFIX}{user.pk}"
        user.email = user.first_name = user.last_name = ""
        user.set_unusable_password()
        user.is_active = user.is_staff = user.is_superuser = False
        user.deleted_at = timezone.now()
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
    return user


def forget_mails_of(user):
    """Blank the stored mails to `user`: theirs, and those kept for one of their addresses alone
    (an address confirmation tried again). The ones not yet sent are dropped, not sent blank."""
    addresses = {user.email, *EmailAddress.objects.filter(user=user).values_list("email", flat=True)} - {""}
    mails = Q(user=user)
    for address in addresses:
        mails |= Q(user=None, address__iexact=address)
    rows = Notification.objects.filter(mails)
    rows.filter(status__in=[Notification.Status.PENDING, Notification.Status.FAILED]).update(
        status=Notification.Status.DROPPED, next_attempt_at=None
    )
    rows.update(subject="", text="", html="", address="")
