"""The site's Redis cache (elgrande_site/cache.py) with nothing listening at its address: every
call answers as a miss would, and Redis is not asked again until RETRY_AFTER has passed; and its
connections are the process's. No Redis is needed."""

import socket
import threading

import pytest
from django.core.cache import cache as default_cache
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCacheClient

from elgrande_site import cache
from tests.support.helpers import free_port


@pytest.fixture
def asked(settings, monkeypatch):
    """The site's cache at a port nothing listens on; returns the list of the `get` calls that
    reached redis-py's client."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "elgrande_site.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        }
    }
    monkeypatch.setattr(cache, "_down_until", 0.0)
    monkeypatch.setattr(cache, "_stale", set())
    asked = []
    get = RedisCacheClient.get
    monkeypatch.setattr(RedisCacheClient, "get", lambda self, *args: asked.append(args) or get(self, *args))
    return asked


def test_every_call_answers_as_a_miss(asked):
    assert default_cache.get("key", "default") == "default"
    assert cache.unreachable()
    assert default_cache.add("key", 1) is False
    assert default_cache.set("key", 1) is None
    assert default_cache.get_many(["key", "other"]) == {}
    assert default_cache.has_key("key") is False
    assert default_cache.delete("key") is False
    assert default_cache.set_many({"key": 1, "other": 2}) == ["key", "other"]
    with pytest.raises(ValueError):
        default_cache.incr("key")
    # The keys it could not write are deleted first when Redis answers again.
    assert {key.rsplit(":", 1)[-1] for key in cache._stale} == {"key", "other"}


def test_redis_is_asked_once_then_left_out_for_a_while(asked, monkeypatch):
    default_cache.get("key")
    default_cache.get("key")
    default_cache.get("other")
    assert len(asked) == 1
    monkeypatch.setattr(cache, "_down_until", 0.0)  # RETRY_AFTER has passed
    assert default_cache.get("key", 5) == 5
    assert len(asked) == 2


class _FakeRedis:
    """A listening socket that answers each RESP command as Redis would a cache miss (what redis-py
    asks on connecting as Redis would, a nil to anything else), and counts the
    connections it accepts."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    @staticmethod
    def _answer(connection):
        nil = b"$-1\r\n"
        with connection, connection.makefile("rb") as reader:
            while (header := reader.readline()).startswith(b"*"):
                words = []
                for _ in range(int(header[1:])):
                    length = int(reader.readline()[1:])
                    words.append(reader.read(length + 2)[:-2])
                command = words[0].upper()
                if command == b"HELLO":  # redis-py's RESP3 greeting: the protocol it asked for
                    connection.sendall(b"%1\r\n$5\r\nproto\r\n:" + words[1] + b"\r\n")
                    nil = b"_\r\n" if words[1] == b"3" else nil
                else:
                    connection.sendall(b"+OK\r\n" if command in (b"CLIENT", b"SELECT") else nil)

    def close(self):
        self.server.close()


@pytest.fixture
def fake_redis(settings, monkeypatch):
    fake = _FakeRedis()
    settings.CACHES = {
        **settings.CACHES,
        "default": {"BACKEND": "elgrande_site.cache.RedisCache", "LOCATION": f"redis://127.0.0.1:{fake.port}/0"},
    }
    monkeypatch.setattr(cache, "_down_until", 0.0)
    monkeypatch.setattr(cache, "_pools", {})  # the pools of other tests point elsewhere
    yield fake
    fake.close()


def test_cache_objects_of_many_threads_share_the_process_connection(fake_redis):
    """Django makes a cache object per thread (and async context), and Daphne runs each request in
    a thread of its own: each request's cache calls go over the connection kept by the process,
    instead of a new one per request."""
    seen = []

    def request():
        seen.append(caches["default"].get("key", "missed"))

    for _ in range(10):
        thread = threading.Thread(target=request)
        thread.start()
        thread.join()
    assert seen == ["missed"] * 10
    assert not cache.unreachable()
    assert fake_redis.connections == 1
