"""Fixtures that stop the site's clock and read what the view cache renders. They are plugins of
the whole suite (`pytest_plugins` in tests/conftest.py), so a test names them as arguments without
importing them."""

from datetime import UTC, datetime

import pytest


class Clock:
    """The time `django.utils.timezone.now` answers: `now`, which the test sets or moves on."""

    def __init__(self, now):
        self.now = now


@pytest.fixture
def clock(monkeypatch):
    """A clock standing at noon UTC on 1 March 2026 until the test moves it (`clock.now = ...`,
    `clock.now += ...`): a view sent and a view fetched count the same seconds."""
    from django.utils import timezone

    stopped = Clock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    monkeypatch.setattr(timezone, "now", lambda: stopped.now)
    return stopped


@pytest.fixture
def renders(monkeypatch):
    """The keys that the play partial's cache (games/reading/view_cache.py) rendered, in order."""
    from games.reading import view_cache

    keys = []
    render = view_cache.render

    def counted(template, context, cache_key):
        keys.append(cache_key)
        return render(template, context, cache_key)

    monkeypatch.setattr(view_cache, "render", counted)
    return keys
