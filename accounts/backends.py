"""The site's authentication backend: allauth's (log in by username or email, behind its rate
limits), with the session's user read by a SELECT written out once.

Django's `ModelBackend.get_user`, which allauth's keeps, builds and compiles the ORM's query on
every request that has a session: 0.78 ms of CPU on PostgreSQL against 0.16 ms for the same
SELECT written out and its instance built as the ORM builds it (elgrande_site/sql_rows.py);
every logged-in request and every render of a player's view for his socket
(games/live/own_views.py) asks for it (bench/README.md, "Speed, the eighth pass (issue 22)")."""

from contextlib import contextmanager
from contextvars import ContextVar

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import connection

from elgrande_site.sql_rows import columns, concrete_fields, holds_id, instance

_USER = get_user_model()
_FIELDS = concrete_fields(_USER)
_BY_ID = (
    f'SELECT {columns(_USER, _FIELDS)} FROM "{_USER._meta.db_table}"'
    f' WHERE "{_USER._meta.db_table}"."{_USER._meta.pk.column}" = %s'
)
# The users other SELECTs read whole meanwhile (`read_along`), by id, within `users_read_along`.
_READ = ContextVar("users read along", default=None)


@contextmanager
def users_read_along():
    """Within it, `get_user` answers for a user that another SELECT read whole, every column as
    `_BY_ID` reads them (`read_along`), without a SELECT of its own: a socket's render of a
    seat's view reads the game's seats with their users (games/reading/page_game.py), and its
    reader is one of them (games/live/own_views.py). The same row of the same moment, so the
    same answer: active or not, and the session's hash checked against its password by Django."""
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def read_along(users):
    """Offer `users` (instances with every concrete column) to `get_user` within `users_read_along`."""
    known = _READ.get()
    if known is not None:
        known.update((user.pk, user) for user in users)


class AuthenticationBackend(AllauthBackend):
    """Listed first in settings.AUTHENTICATION_BACKENDS, before allauth's own, which stays there for
    the sessions that name it (logged in before this one was): Django logs out a session whose
    backend is not listed."""

    def authenticate(self, request, **credentials):
        """allauth's answer; when it refuses, Django is told to stop there (PermissionDenied), so
        that allauth's own backend, listed after, does not check the same password a second time
        (the same answer, for twice the hashing)."""
        user = super().authenticate(request, **credentials)
        if user is None:
            raise PermissionDenied
        return user

    def get_user(self, user_id):
        """What `ModelBackend.get_user` answers: the active user of that id, else None."""
        if not holds_id(_USER, user_id):
            return None
        known = _READ.get()
        if known is not None and user_id in known:
            user = known[user_id]
            return user if self.user_can_authenticate(user) else None
        with connection.cursor() as cursor:
            cursor.execute(_BY_ID, [user_id])
            row = cursor.fetchone()
        if row is None:
            return None
        user = instance(_USER, _FIELDS, list(row))
        return user if self.user_can_authenticate(user) else None
