"""Reading the mails the site sent: the links in them."""

import re
from urllib.parse import urlsplit

LINK = re.compile(r"https?://[^\s<>\"]+")


def links(body):
    return LINK.findall(body)


def path_of_link(body, containing):
    """The path of the one link in `body` whose path contains `containing`."""
    found = [urlsplit(link).path for link in links(body) if containing in urlsplit(link).path]
    assert len(found) == 1, (containing, body)
    return found[0]
