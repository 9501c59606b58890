"""Following and blocking players, and finding one by name (docs/friends.md).

A follow is one way and silent. A block is silent too: the blocked player's requests that it
stops (an invitation to the blocker, a seat in a game the blocker sits in) are refused with the
very answer any unavailable target gets, and the blocker no longer reads them in table talk.
"""

from allauth.account.models import EmailAddress
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Lower
from django.utils.translation import gettext as _

from .models import Block, Follow, User

# Name completion: at most this many names, for a typed beginning of at least MIN_TYPED characters.
SEARCH_RESULTS = 8
MIN_TYPED = 2
# At most SEARCH_LIMIT searches per SEARCH_WINDOW seconds from one account.
SEARCH_LIMIT = 30
SEARCH_WINDOW = 60


class Refused(Exception):
    """A follow or block that cannot be: its message is for the requester."""


def people():
    """The accounts one can follow, block or find: people's, not deleted."""
    return User.objects.filter(deleted_at__isnull=True, is_active=True, computer_level="")


def _target(user, target):
    if target.pk == user.pk:
        raise Refused(_("That is you."))
    if target.deleted_at is not None or not target.is_active or target.is_computer:
        raise Refused(_("There is no player of that name."))


def follow(user, target):
    _target(user, target)
    try:
        with transaction.atomic():
            Follow.objects.get_or_create(follower=user, followed=target)
    except IntegrityError:
        # Followed at the same moment from another tab: followed all the same.
        pass


def unfollow(user, target):
    Follow.objects.filter(follower=user, followed=target).delete()


def block(user, target):
    """Block `target`; `user` stops following them. `target` keeps any follow of theirs, which
    from now on shows `user` as away and without open games (accounts.friends.friends_of)."""
    _target(user, target)
    try:
        with transaction.atomic():
            Block.objects.get_or_create(blocker=user, blocked=target)
    except IntegrityError:
        pass
    Follow.objects.filter(follower=user, followed=target).delete()


def unblock(user, target):
    Block.objects.filter(blocker=user, blocked=target).delete()


def follows(user, target):
    return user.is_authenticated and Follow.objects.filter(follower=user, followed=target).exists()


def blocks(blocker, blocked):
    """Whether `blocker` blocks `blocked` (users or ids)."""
    blocker_id = getattr(blocker, "pk", blocker)
    blocked_id = getattr(blocked, "pk", blocked)
    if blocker_id is None or blocked_id is None:
        return False
    return Block.objects.filter(blocker_id=blocker_id, blocked_id=blocked_id).exists()


def blockers_of(user):
    """The ids of the players who block `user`, as a subquery."""
    return Block.objects.filter(blocked=user).values("blocker")


def blocked_by(user):
    """The ids of the players `user` blocks, as a subquery."""
    return Block.objects.filter(blocker=user).values("blocked")


def any_blocks(user, others):
    """Whether one of `others` (user ids) blocks `user`."""
    return Block.objects.filter(blocked=user, blocker_id__in=list(others)).exists()


def forget(user):
    """An account's deletion removes its follows and blocks, both ways."""
    Follow.objects.filter(Q(follower=user) | Q(followed=user)).delete()
    Block.objects.filter(Q(blocker=user) | Q(blocked=user)).delete()


class TooManySearches(Exception):
    pass


def count_search(user):
    """Count one name search of `user` in the current window; raise TooManySearches past it. In
    Django's cache, as the table talk's limit (games/play/chat.py)."""
    key = f"player-search-{user.pk}"
    cache.add(key, 0, timeout=SEARCH_WINDOW)
    try:
        count = cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=SEARCH_WINDOW)
        count = 1
    if count > SEARCH_LIMIT:
        raise TooManySearches(
            _("Too many searches: at most %(count)d a minute. Type the whole name, or wait a moment.")
            % {"count": SEARCH_LIMIT}
        )


def search(viewer, typed):
    """The usernames beginning with `typed` (case aside) of the players who take invitations:
    people's accounts, active and not deleted, with a confirmed address and invitations switched
    on, other than `viewer` and those who block them. Only names: never an address."""
    typed = (typed or "").strip()
    if len(typed) < MIN_TYPED or "\x00" in typed or len(typed) > 150:
        return []
    found = (
        people()
        .filter(username__istartswith=typed, notify_invitation=True)
        .exclude(pk=viewer.pk)
        .filter(Exists(
            EmailAddress.objects.annotate(address=Lower("email")).filter(
                user=OuterRef("pk"), verified=True, address=Lower(OuterRef("email")))
        ))
        .exclude(pk__in=blockers_of(viewer))
        .order_by(Lower("username"), "username")
        .values_list("username", flat=True)
    )
    return list(found[:SEARCH_RESULTS])
