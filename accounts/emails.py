"""Who may be mailed: the one place notification code asks before sending anything."""

from allauth.account.models import EmailAddress
from django.db.models import Exists, OuterRef
from django.db.models.functions import Lower

# Each kind of mail a player can switch on or off in the settings, and the User field that holds it.
NOTIFICATION_FIELDS = {
    "your_move": "notify_your_move",
    "live_your_move": "notify_live_your_move",
    "reminder": "notify_reminder",
    "game_started": "notify_game_started",
    "game_finished": "notify_game_finished",
    "invitation": "notify_invitation",
}


def has_verified_email(user):
    """Whether the user's current address was confirmed by following the mailed link. Only such
    an address gets notifications, and only such a player takes part in rated games."""
    if not user.is_authenticated or not user.is_active or not user.email:
        return False
    return EmailAddress.objects.filter(user=user, email__iexact=user.email, verified=True).exists()


def holds_address(user, email):
    """Whether `email` is `user`'s own: their current address, or one they confirmed. Not an
    address they asked to change to and have not confirmed (ACCOUNT_CHANGE_EMAIL): anyone may type
    anyone's there, which makes it neither taken for a sign-up nor a way into the account by a
    password reset."""
    return (user.email or "").lower() == email.lower() or EmailAddress.objects.filter(
        user=user, email__iexact=email, verified=True
    ).exists()


def wants_mail(user, kind):
    """Whether a mail of `kind` (a key of NOTIFICATION_FIELDS) may be sent to the user now. Whether
    it goes out at once or in the daily digest is `user.digest`'s to say."""
    return getattr(user, NOTIFICATION_FIELDS[kind]) and has_verified_email(user)



def verified_email(user_field="user"):
    """An expression for annotate(): whether the user that `user_field` names has_verified_email,
    short of being active (check user.is_active). For mail to a game's players at once, in the
    query that loads them, where asking one by one would cost a query each."""
    return Exists(
        EmailAddress.objects.annotate(address=Lower("email")).filter(
            user=OuterRef(user_field), verified=True, address=Lower(OuterRef(f"{user_field}__email"))
        )
    )
