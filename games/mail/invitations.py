"""Invitations to a private open game, by username or by email address, within the limits of an
account's day and of a game."""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import friends
from accounts.emails import has_verified_email, wants_mail
from accounts.models import User
from games.mail import links, outbox
from games.models import Game, MailOptOut, Notification

INVITATIONS_PER_GAME = 30


def invite(game, inviter, who):
    """Mail an invitation to a private open game to a player (by username or address) or to an
    address without an account. Returns a sentence for the inviter; raises ValueError saying why
    not (PermissionError: the inviter may not invite, or not by address).

    Only an inviter whose address is confirmed invites by address. An account sends at most
    settings.INVITATIONS_PER_DAY invitations in a day, and a game INVITATIONS_PER_GAME: both are
    counted with the inviter's account and the game locked, so invitations sent at once cannot
    pass them. Whether the invitee was mailed, was invited before, has a seat or takes no
    invitations, the answer is the same, by username or by address: whose account an address
    belongs to is not the inviter's to learn."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    who = (who or "").strip()
    closed = _("Only the creator of a private game can invite, while it is open.")
    if game.creator_id != inviter.pk or not game.private or game.status != Game.Status.OPEN:
        raise PermissionError(closed)
    if not who:
        raise ValueError(_("Name a player or an email address to invite."))
    try:
        validate_email(who)
        by_address = True
    except ValidationError:
        by_address = False
    if by_address and not has_verified_email(inviter):
        raise PermissionError(
            _("Confirm your email address before you invite by address: follow the link we mailed you, "
              "or send a new one from your settings.")
        )
    with transaction.atomic():
        # The inviter's account, then the game: the order of a join (games.play.lifecycle) and of an
        # account's deletion, so that none of them waits for another in a circle.
        User.objects.select_for_update().filter(pk=inviter.pk).values_list("pk").first()
        game = Game.objects.select_for_update().defer("state").get(pk=game.pk)
        if game.status != Game.Status.OPEN:
            raise PermissionError(closed)
        day_ago = timezone.now() - timedelta(days=1)
        invitations = Notification.objects.filter(kind="invitation")
        if invitations.filter(game__creator=inviter, created_at__gt=day_ago).count() >= settings.INVITATIONS_PER_DAY:
            raise ValueError(
                _("You can send at most %(count)d invitations a day.") % {"count": settings.INVITATIONS_PER_DAY}
            )
        if invitations.filter(game=game).count() >= INVITATIONS_PER_GAME:
            raise ValueError(
                _("A game can send at most %(count)d invitations.") % {"count": INVITATIONS_PER_GAME}
            )
        user = User.objects.filter(
            Q(username__iexact=who) | Q(emailaddress__email__iexact=who, emailaddress__verified=True),
            deleted_at__isnull=True,
        ).first()
        context = {"inviter": inviter, "url": links.absolute(reverse("invitation", args=[game.pk, game.invite_token]))}
        # Not the inviter's name, which anyone can choose to look like an address or a site.
        subject = gettext_lazy("An invitation to a game of El Grande")
        created = []
        if user is not None:
            if user.is_computer:
                raise ValueError(
                    _("%(who)s is a computer player: computer players take their seats when a game is created, "
                      "on the new-game form.") % {"who": who}
                )
            # One who blocks the inviter is answered for as one who takes no invitations.
            if (not game.seats.filter(user=user).exists() and wants_mail(user, "invitation")
                    and not friends.blocks(user, inviter)):
                with translation.override(user.mail_language):
                    created = outbox.record_message(user=user, game=game, version=game.version, kind="invitation",
                                              context=context, subject=str(subject))
        elif not by_address:
            raise ValueError(
                _("There is no player called “%(who)s”, and it is not an email address.") % {"who": who}
            )
        elif not MailOptOut.objects.filter(address__iexact=who).exists():
            # Someone without an account: in the inviter's language, who knows them.
            created = outbox.record_message(user=None, address=who, game=game, version=game.version, kind="invitation",
                                      context=context, subject=str(subject))
    outbox.queue_sending(created)
    # Every answer names the invitee as the inviter typed it, and says the same whatever came of it.
    return _(
        "Invitation sent to %(who)s, unless they were invited to this game before, have a seat in it, or "
        "do not take invitations by mail."
    ) % {"who": who}
