"""A site whose channel layer loses the notices to the game pages while a flag file exists, as a
channel layer that failed to send them would: the live site of tests/browser/test_page_catches_up.py
runs with DJANGO_SETTINGS_MODULE=tests.support.lossy_layer and LOSE_NOTICES_WHILE=<that file>."""

import os
from pathlib import Path

from channels.layers import InMemoryChannelLayer

from tests.support.site_settings import *  # noqa: F403

CHANNEL_LAYERS = {"default": {"BACKEND": "tests.support.lossy_layer.LosingLayer"}}


class LosingLayer(InMemoryChannelLayer):
    """The in-memory layer, whose notices to a game's groups (its players' and its spectators')
    are dropped while the flag file exists."""

    async def group_send(self, group, message):
        if group.startswith("game-") and Path(os.environ["LOSE_NOTICES_WHILE"]).exists():
            return
        await super().group_send(group, message)
