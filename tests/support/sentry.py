"""Sentry started as the site starts it (elgrande_site/errors.py), its events kept in memory rather
than sent: for the tests of what an error report holds."""

from contextlib import contextmanager

import sentry_sdk

from elgrande_site.errors import start_sentry


class Captured(sentry_sdk.transport.Transport):
    """A transport that keeps each event it is handed, as the JSON Sentry would receive."""

    def __init__(self, options=None):
        super().__init__(options)
        self.events = []

    def capture_envelope(self, envelope):
        self.events += [item.payload.json for item in envelope.items if item.type == "event"]


@contextmanager
def sentry_capturing():
    """Sentry on, with a DSN of no server, for the block; its transport (its `events`) yielded.
    Off again after."""
    transport = Captured()
    start_sentry("https://public@sentry.example/1", environment="test", transport=transport)
    try:
        yield transport
    finally:
        sentry_sdk.init()  # off again
