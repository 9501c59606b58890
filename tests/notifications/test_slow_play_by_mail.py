"""The slow-play loop of issue 7 through a real SMTP server (aiosmtpd, started by the test): sign up,
verify by the mailed link, an opponent moves, the "your move" mail arrives and its link opens the
game at the decision, the reminder arrives when the clock says so, and one-click unsubscribe
stops that kind."""

import random
import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.emails import has_verified_email
from accounts.models import User
from games.engine import legal_moves, new_game, to_act
from games.mail import reminders
from games.models import Game
from games.play import lifecycle, moving
from tests.support.helpers import state_of
from tests.support.mail_links import path_of_link
from tests.support.site_mail import body
from tests.support.site_mail import smtp_server as smtp_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def seed_where_the_creator_bids_first():
    """A seed that seats the game's creator (joined first) where the first bid is asked."""
    for seed in range(1, 100):
        joined = ["creator", "joiner"]
        random.Random(seed).shuffle(joined)  # as lifecycle._start draws the seats
        if joined[to_act(new_game(num_players=2, seed=seed))[0]] == "creator":
            return seed
    raise LookupError("no such seed")


def test_sign_up_verify_get_your_move_and_a_reminder_then_unsubscribe_over_real_mail(
    client, smtp_server, password, make_user, django_capture_on_commit_callbacks  # noqa: F811
):
    client.post(
        reverse("account_signup"),
        {"username": "isabel", "email": "isabel@example.org", "password1": password, "password2": password},
    )
    _, message = smtp_server.take()
    client.post(path_of_link(body(message), "/accounts/confirm-email/"))
    isabel = User.objects.get(username="isabel")
    assert has_verified_email(isabel)

    otto = make_user("otto")
    game = lifecycle.create_game(otto, num_players=2, time_per_move=3 * 24 * 3600)
    Game.objects.filter(pk=game.pk).update(seed=seed_where_the_creator_bids_first())
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("join", args=[game.pk]))
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    started = {tuple(recipients): message for recipients, message in smtp_server.messages}
    smtp_server.messages.clear()
    assert started[("isabel@example.org",)]["Subject"] == f"[El Grande] Game {game.pk} has started"
    assert started[("otto@example.org",)]["Subject"] == f"[El Grande] Game {game.pk} has started: your bid"

    # The opponent moves: Isabel's "your move" mail arrives over SMTP.
    state = state_of(game)
    (otto_seat,) = to_act(state)
    with django_capture_on_commit_callbacks(execute=True):
        moving.submit_move(game, user=otto, move=legal_moves(state, otto_seat)[0], expected_version=game.version)
    recipients, message = smtp_server.take()
    assert recipients == ["isabel@example.org"]
    assert message["Subject"] == f"[El Grande] Game {game.pk}, round 1: your bid"
    assert message.get_body(preferencelist=("html",)).get_content().count("/play/") == 1
    link = path_of_link(body(message), f"/games/{game.pk}/play/")

    # The link opens the game at the decision, through the log-in page for a logged-out browser.
    browser = Client()
    login = browser.get(link, follow=True)
    assert login.redirect_chain[-1][0] == f"{reverse('account_login')}?next={link}"
    page = browser.post(
        login.redirect_chain[-1][0], {"login": "isabel@example.org", "password": password}, follow=True
    )
    assert page.redirect_chain[-1][0] == f"/games/{game.pk}/#decision"
    html = page.content.decode()
    assert 'id="decision-panel" data-kind="bid"' in html
    assert page.context["your_move"]

    # The reminder arrives when the clock says so: past half the time, not before.
    game.refresh_from_db()
    reminders.send_due_reminders(game.deadline - timedelta(hours=37))
    assert smtp_server.messages == []
    reminders.send_due_reminders(game.deadline - timedelta(hours=35))
    recipients, reminder = smtp_server.take()
    assert recipients == ["isabel@example.org"]
    assert reminder["Subject"] == f"[El Grande] Game {game.pk}, round 1: your bid (half your time is gone)"

    # One-click unsubscribe, as a mail client does it, stops the reminders and only them.
    assert reminder["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = re.fullmatch(r"<(https://[^>]+)>", reminder["List-Unsubscribe"].strip()).group(1)
    response = Client(enforce_csrf_checks=True).post(
        urlsplit(url).path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    isabel.refresh_from_db()
    assert not isabel.notify_reminder and isabel.notify_your_move
    reminders.send_due_reminders(game.deadline - timedelta(hours=11))
    assert smtp_server.messages == []
    assert mail.outbox == []
