# The fixtures of every test here (mail_sent_at_once is autouse); tests elsewhere import them too.
from tests.support.notifications import committed, mail_sent_at_once, started  # noqa: F401
