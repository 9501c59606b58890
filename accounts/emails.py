"""Who may be mailed: the one place notification code asks before sending anything."""

from allauth.account.models import EmailAddress

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


def wants_mail(user, kind):
    """Whether a mail of `kind` (a key of NOTIFICATION_FIELDS) may be sent to the user now. Whether
    it goes out at once or in the daily digest is `user.digest`'s to say."""
    return getattr(user, NOTIFICATION_FIELDS[kind]) and has_verified_email(user)


def with_verified_email(users):
    """The ids of those of `users` who has_verified_email, in one query: for mail to many players
    at once (a game's seats), where asking one by one would cost a query each."""
    users = [user for user in users if user.is_active and user.email]
    confirmed = EmailAddress.objects.filter(user__in=users, verified=True).values_list("user_id", "email")
    addresses = {(user.pk, user.email.lower()) for user in users}
    return {user_id for user_id, address in confirmed if (user_id, address.lower()) in addresses}
