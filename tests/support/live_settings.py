"""Settings for a server started by a test: the site's own, with the channel-layer prefix of the
test process that started it (see the `channel_prefix_of_this_process` fixture)."""

import os

from elgrande_site.settings import *  # noqa: F403
from elgrande_site.settings import CHANNEL_LAYERS

CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = os.environ["TEST_CHANNEL_PREFIX"]
