"""A real SMTP server on loopback (aiosmtpd) that keeps what it is sent."""

import asyncio
import email
import threading
import time
from contextlib import contextmanager
from email import policy

from tests.support.helpers import free_port


class Mailbox:
    """Keeps each message; with `delay`, answers it only that many seconds after it came in full
    (`arrived` is set meanwhile), as a slow server does."""

    def __init__(self, delay=0):
        self.messages = []
        self.delay = delay
        self.arrived = threading.Event()

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.original_content, policy=policy.default))
        self.arrived.set()
        await asyncio.sleep(self.delay)
        return "250 Message accepted for delivery"

    def wait_for(self, to, seconds=60):
        """The first message to `to`, waited for up to `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for message in self.messages:
                if to in message["To"]:
                    return message
            time.sleep(0.2)
        raise AssertionError(f"no mail to {to}: {[message['To'] for message in self.messages]}")


@contextmanager
def smtp_server(delay=0):
    """(the mailbox, its port) while the server runs."""
    from aiosmtpd.controller import Controller

    box = Mailbox(delay)
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield box, controller.port
    finally:
        controller.stop()
