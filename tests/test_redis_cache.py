"""The site's Redis cache (elgrande_site/cache.py) with nothing listening at its address: every
call answers as a miss would, and Redis is not asked again until RETRY_AFTER has passed. No Redis
is needed."""

import pytest
from django.core.cache import cache as default_cache
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
