"""A real SMTP server on loopback (aiosmtpd) that keeps what it is sent."""

import email
import time
from contextlib import contextmanager
from email import policy

from tests.helpers import free_port


class Mailbox:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.original_content, policy=policy.default))
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
def smtp_server():
    """(the mailbox, its port) while the server runs."""
    from aiosmtpd.controller import Controller

    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield box, controller.port
    finally:
        controller.stop()
