"""Django's cached_db sessions, refusing session keys that Django never makes."""

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDbSessionStore


class SessionStore(CachedDbSessionStore):
    """A forged cookie can carry any text as its session key, a NUL included (the cookie value
    "\\000" decodes to one), and PostgreSQL refused such a key with a server error. Django makes
    its keys of ASCII letters and digits; any other key now stands for no session at all."""

    def _validate_session_key(self, key):
        return super()._validate_session_key(key) and key.isascii() and key.isalnum()
