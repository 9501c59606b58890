"""A relay in front of Redis that a test can cut, and the site's URLs and channel layer through it."""

from contextlib import contextmanager
from urllib.parse import urlsplit

from django.conf import settings

from elgrande_site.channel_layers import WaitingRedisChannelLayer
from tests.support.processes import Proxy


@contextmanager
def relayed_redis():
    """A TCP relay (tests/test_deadline_faults.py) in front of the tests' Redis, up; down at the end."""
    url = urlsplit(settings.REDIS_URL)
    relay = Proxy((url.hostname or "127.0.0.1", url.port or 6379))
    relay.up()
    try:
        yield relay
    finally:
        if relay.running:
            relay.down()


def through(relay, url):
    """The Redis URL `url`, reached through `relay`."""
    return urlsplit(url)._replace(netloc=f"127.0.0.1:{relay.port}").geturl()


def layer_through(relay):
    """A layer like the site's (the settings' configuration and this test process's prefix) whose
    connections go through `relay`: a web process's, whose Redis goes away."""
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    [host] = config["hosts"]
    return WaitingRedisChannelLayer(**{**config, "hosts": [{**host, "address": through(relay, host["address"])}]})
