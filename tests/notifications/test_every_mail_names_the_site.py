"""Every mail names the site by SITE_NAME (and links SITE_URL), never the host a request came to
(a proxy's 127.0.0.1:8811): allauth's account mails, each of them, and every kind of game mail,
read as a real SMTP server received them."""

import random
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import random_move, to_act
from games.mail import digests, invitations, reminders
from games.play import lifecycle, moving
from tests.support.helpers import logged_in, play, state_of
from tests.support.site_mail import body, html_part, sign_up
from tests.support.site_mail import smtp_server as smtp_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db
HOST = "127.0.0.1:8811"


@pytest.fixture
def site_name(settings):
    settings.SITE_NAME = "Los Grandes"
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]


def assert_names_the_site(message):
    parts = [body(message)] + ([html_part(message)] if message.get_body(("html",)) else [])
    assert message["Subject"].startswith("[Los Grandes] "), message["Subject"]
    for part in parts:
        assert "Los Grandes" in part, part
        assert "127.0.0.1" not in part, part
    assert "127.0.0.1" not in message["Subject"] and "127.0.0.1" not in message["Message-ID"]


def test_every_account_mail_names_the_site(client, smtp_server, password, make_user, site_name):  # noqa: F811
    # The address confirmation of a sign-up.
    sign_up(client, password, HTTP_HOST=HOST)
    received = [smtp_server.take()]
    # A password reset for an address with an account, and for one without (allauth tells that
    # address it has no account).
    player = make_user("ines")
    for address in (player.email, "nobody@example.org"):
        Client().post(reverse("account_reset_password"), {"email": address}, HTTP_HOST=HOST)
        received.append(smtp_server.take())
    # A sign-up with an address already taken (allauth mails its owner).
    Client().post(
        reverse("account_signup"),
        {"username": "other", "email": player.email, "password1": password, "password2": password},
        HTTP_HOST=HOST,
    )
    received.append(smtp_server.take())
    # A new address added in the settings, to confirm.
    logged_in(player).post(reverse("account_email"), {"action_add": "", "email": "ines2@example.org"}, HTTP_HOST=HOST)
    received.append(smtp_server.take())
    # Five mails; the two address confirmations share their subject.
    assert len(received) == 5 and len({message["Subject"] for _, message in received}) == 4
    for _, message in received:
        assert_names_the_site(message)


def test_every_game_mail_names_the_site(started, committed, smtp_server, make_user, site_name):  # noqa: F811
    game, users = started(3, time_per_move=3 * 24 * 3600, short_game=True)
    rng = random.Random(1)
    state = state_of(game)
    seat = to_act(state)[0]
    committed(
        moving.submit_move, game, user=users[seat], move=random_move(state, seat, rng),
        expected_version=game.version)
    game.refresh_from_db()
    reminders.send_due_reminders(game.deadline - timedelta(hours=35))
    waiting = game.seats.get(index=to_act(state_of(game))[0]).user
    waiting.digest = "daily"
    waiting.save(update_fields=["digest"])
    noon = datetime.now(ZoneInfo(waiting.time_zone)).replace(hour=12, minute=0, second=0, microsecond=0)
    digests.send_digests(noon)
    committed(play, game)
    other = lifecycle.create_game(users[0], num_players=2, private=True)
    invitations.invite(other, users[0], make_user().username)
    invitations.invite(other, users[0], "stranger@example.org")
    kinds = {
        kind: [message for _, message in smtp_server.messages if marker in message["Subject"]]
        for kind, marker in [
            ("started", "has started"), ("your move", ": your "), ("reminder", "half your time"),
            ("digest", "wait"), ("over", "is over"), ("invitation", "invitation"),
        ]
    }
    assert all(kinds.values()), {kind: len(found) for kind, found in kinds.items()}
    for _, message in smtp_server.messages:
        assert_names_the_site(message)
        # Paragraphs one blank line apart, as a reader's mail client shows them: no included part
        # (a decision, the standings) leaves a second blank line after it.
        assert "\n\n\n" not in body(message).replace("\r\n", "\n"), body(message)
