"""A cache in this process's memory that keeps its values as they are, not pickled.

Django's LocMemCache pickles every value it stores and unpickles it on every read, and checks each
key's characters for memcached's sake: for the log's lines (games/reading/log_lines.py: some 40
moves' lines read on every render of a play partial) that was a seventh of the render's CPU
(bench/README.md, "The play partial cheaper"). Here a read is a dictionary look-up. The values are
shared by every reader of this process: whoever stores or reads one must never change it (store
tuples, or copy what is read before changing it)."""

import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache


class PlainMemoryCache(LocMemCache):
    """LocMemCache (its bounded size, culling and time-outs) without pickling nor key checks.
    `incr` is not supported (it would unpickle)."""

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_key(key, version=version)
        with self._lock:
            if self._has_expired(key):
                self._set(key, value, timeout)
                return True
            return False

    def get(self, key, default=None, version=None):
        found = self.get_many([key], version=version)
        return found.get(key, default)

    def get_many(self, keys, version=None):
        found = {}
        now = time.time()
        with self._lock:
            for key in keys:
                made = self.make_key(key, version=version)
                expires = self._expire_info.get(made, -1)
                if expires == -1:
                    continue
                if expires is not None and expires <= now:
                    self._delete(made)
                    continue
                found[key] = self._cache[made]
                self._cache.move_to_end(made, last=False)
        return found

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_key(key, version=version)
        with self._lock:
            self._set(key, value, timeout)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        with self._lock:
            for key, value in data.items():
                self._set(self.make_key(key, version=version), value, timeout)
        return []

    def incr(self, key, delta=1, version=None):
        raise NotImplementedError("PlainMemoryCache keeps no numbers to add to")
