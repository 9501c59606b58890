"""Django's Redis cache, which a Redis refused or silent does not turn into server errors.

Everything the site keeps in the cache can be done without: sessions are read from the database
(cached_db), pages are rendered again, the rate limits refuse what they cannot count
(accounts.views.rate_limited says why). So while Redis cannot be reached every read is a miss and
every write is dropped, and for RETRY_AFTER seconds after a failure Redis is not even asked: a
silent Redis costs one request one socket timeout, not every request one per cache call.

A write that was dropped may leave an older value behind in Redis (a session logged out meanwhile
would come back with it): the keys of the dropped writes are deleted first thing when Redis
answers again.
"""

import logging
import threading
import time
from functools import partial

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from redis import exceptions

logger = logging.getLogger(__name__)

# What redis-py raises when Redis refuses the connection, or does not answer in time.
UNREACHABLE = (exceptions.ConnectionError, exceptions.TimeoutError)

# Seconds during which Redis is not asked again after a failure.
RETRY_AFTER = 5

# Shared by every cache object of the process (Django makes one per thread).
_lock = threading.Lock()
_down_until = 0.0
# The keys whose writes were dropped, to delete when Redis answers again.
_stale = set()


def unreachable():
    """Whether this process found Redis unreachable less than RETRY_AFTER seconds ago."""
    return time.monotonic() < _down_until


def _failed(error, keys):
    """Redis could not be reached: leave it out for RETRY_AFTER seconds; `keys` were not written."""
    global _down_until
    with _lock:
        if not unreachable():
            logger.warning("Redis cannot be reached (%s): the cache is left out for %s s", error, RETRY_AFTER)
        _down_until = time.monotonic() + RETRY_AFTER
        _stale.update(keys)


def _dropped(keys):
    with _lock:
        _stale.update(keys)


# The connection pools of the process, and a redis.Redis over each, shared by every cache object:
# {(server, pool class, its options): (pool, client)}.
_pools = {}


class _KeptClient(RedisCacheClient):
    """Django's client keeps its connection pools on itself, and Django makes a cache object per
    thread and async context: under Daphne each request and each socket's render runs in a thread
    of its own, so each made a pool of its own, and with it a new connection to Redis (its TCP
    handshake and redis-py's CLIENT SETINFO, some 1.1 ms of CPU against 0.07 for a command on a
    kept connection; one connection made per game page request in bench/web.py, 1,624 in a
    run: bench/README.md, "Speed, the eighth pass (issue 22)"). Here the pools are the process's,
    one per server and options, as redis-py means them to be (thread-safe, and reset in a forked
    child); Django also made a new redis.Redis (its table of some 170 reply callbacks filled in
    anew) on every call, 0.1-0.2 ms of CPU a call: one is kept per pool."""

    def _kept(self, write):
        index = self._get_connection_pool_index(write)
        server = self._servers[index]
        key = (server, self._pool_class, repr(sorted(self._pool_options.items())))
        kept = _pools.get(key)
        if kept is None:
            with _lock:
                kept = _pools.get(key)
                if kept is None:
                    pool = self._pool_class.from_url(server, **self._pool_options)
                    kept = _pools[key] = (pool, self._client(connection_pool=pool))
        return kept

    def _get_connection_pool(self, write):
        return self._kept(write)[0]

    def get_client(self, key=None, *, write=False):
        return self._kept(write)[1]


class RedisCache(DjangoRedisCache):
    """Each operation that cannot reach Redis answers as a miss would: `get` its default, `add`
    and `delete` False, `incr` ValueError. Configure fail-fast socket timeouts in OPTIONS
    (socket_timeout, socket_connect_timeout): without them a silent Redis holds every call."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _KeptClient

    def _reached(self, call, missed, written=()):
        """`call()`, or `missed` when Redis cannot be reached; `written`: the keys it writes."""
        if unreachable():
            _dropped(written)
            return self._missed(missed)
        try:
            self._delete_stale()
            return call()
        except UNREACHABLE as error:
            _failed(error, written)
            return self._missed(missed)

    @staticmethod
    def _missed(missed):
        if isinstance(missed, Exception):
            raise missed
        return missed

    def _delete_stale(self):
        if not _stale:
            return
        with _lock:
            keys = list(_stale)
            _stale.clear()
        try:
            self._cache.delete_many(keys)
        except UNREACHABLE:
            with _lock:
                _stale.update(keys)
            raise

    def _key(self, key, version):
        return self.make_and_validate_key(key, version=version)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._reached(partial(super().add, key, value, timeout, version), False, [self._key(key, version)])

    def get(self, key, default=None, version=None):
        return self._reached(partial(super().get, key, default, version), default)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._reached(partial(super().set, key, value, timeout, version), None, [self._key(key, version)])

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._reached(partial(super().touch, key, timeout, version), False, [self._key(key, version)])

    def delete(self, key, version=None):
        return self._reached(partial(super().delete, key, version), False, [self._key(key, version)])

    def get_many(self, keys, version=None):
        return self._reached(partial(super().get_many, keys, version), {})

    def has_key(self, key, version=None):
        return self._reached(partial(super().has_key, key, version), False)

    def incr(self, key, delta=1, version=None):
        missed = ValueError(f"Key '{key}' not found.")
        return self._reached(partial(super().incr, key, delta, version), missed, [self._key(key, version)])

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        keys = [self._key(key, version) for key in data]
        return self._reached(partial(super().set_many, data, timeout, version), list(data), keys)

    def delete_many(self, keys, version=None):
        keys = list(keys)
        made = [self._key(key, version) for key in keys]
        return self._reached(partial(super().delete_many, keys, version), None, made)

    def clear(self):
        return self._reached(super().clear, False)
