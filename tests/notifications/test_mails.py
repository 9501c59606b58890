"""What a mail says and carries: the subject names the game and what is asked, a text and an HTML
part, the link to the decision, one-click unsubscribe (RFC 8058) that works without a log-in, and
nothing the recipient's own seat may not see."""

import random
import re
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import apply_move, legal_moves, new_game, random_move, to_act, view_for
from games.mail import composing, outbox, unsubscribe
from games.models import Notification
from games.play import moving
from tests.support.helpers import logged_in, state_of
from tests.support.page_positions import hidden_variant

pytestmark = pytest.mark.django_db

SITE = "https://elgrande.example.org"


def your_move_mail(mailoutbox, started, committed):
    """A started 3-player game after the first bid, and the "your move" mail that bid caused."""
    game, users = started(3)
    mailoutbox.clear()
    state = state_of(game)
    bidder = to_act(state)[0]
    committed(
        moving.submit_move,
        game,
        user=users[bidder],
        move=legal_moves(state, bidder)[0],
        expected_version=game.version,
    )
    (message,) = mailoutbox
    seat = to_act(state_of(game))[0]
    return game, users, seat, message


def test_a_mail_has_a_text_and_an_html_part_and_the_link_to_the_decision(started, committed, mailoutbox):
    game, users, seat, message = your_move_mail(mailoutbox, started, committed)
    link = f"{SITE}/games/{game.pk}/play/"
    assert message.subject == f"[El Grande] Game {game.pk}, round 1: your bid"
    assert link in message.body
    (html, mimetype), = message.alternatives
    assert mimetype == "text/html"
    assert f'href="{link}"' in html
    assert "<strong>your bid</strong>" in html
    hand = ", ".join(str(card) for card in sorted(state_of(game).hands[seat]))
    assert f"Your power cards: {hand}" in message.body

    # The link opens the game at the decision, after logging in when needed.
    path = urlsplit(link).path
    response = logged_in(users[seat]).get(path)
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/#decision"
    response = Client().get(path)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('account_login')}?next={path}"


def test_one_click_unsubscribe_by_post_needs_no_login_nor_csrf_and_stops_that_kind(started, committed, mailoutbox):
    game, users, seat, message = your_move_mail(mailoutbox, started, committed)
    user = users[seat]
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = re.fullmatch(r"<(https://[^>]+)>", message.extra_headers["List-Unsubscribe"]).group(1)
    assert url.startswith(f"{SITE}/mail/unsubscribe/")
    assert url in message.body

    mail_client = Client(enforce_csrf_checks=True)
    path = urlsplit(url).path
    page = mail_client.get(path)
    assert page.status_code == 200 and "Stop “your move” mails" in page.content.decode()
    user.refresh_from_db()
    assert user.notify_your_move  # looking is not unsubscribing

    response = mail_client.post(path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    user.refresh_from_db()
    assert not user.notify_your_move
    assert user.notify_reminder and user.notify_game_finished

    # The next decision of that player is not mailed; the others' still are.
    mailoutbox.clear()
    state = state_of(game)
    committed(moving.submit_move, game, user=user, move=legal_moves(state, seat)[0], expected_version=game.version)
    next_seat = to_act(state_of(game))[0]
    assert [m.to for m in mailoutbox] == ([[users[next_seat].email]] if next_seat != seat else [])


def test_a_reminders_unsubscribe_link_switches_reminders_off_only(make_user):
    user = make_user()
    token = unsubscribe.unsubscribe_token("reminder_last", user)
    Client().post(reverse("unsubscribe", args=[token]))
    user.refresh_from_db()
    assert not user.notify_reminder and user.notify_your_move


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_forged_or_cut_unsubscribe_token_is_refused_and_changes_nothing(make_user, method):
    user = make_user()
    token = unsubscribe.unsubscribe_token("your_move", user)
    for bad in (token[:-3], token.replace(":", ":x", 1), "nonsense"):
        response = getattr(Client(), method)(reverse("unsubscribe", args=[bad]))
        assert response.status_code == 400
        assert "not valid" in response.content.decode()
    user.refresh_from_db()
    assert user.notify_your_move


def test_a_mail_still_queued_when_its_kind_is_switched_off_is_not_sent(started, monkeypatch, mailoutbox):
    from games import tasks

    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    game, users = started(3)
    assert len(queued) == 3
    for user in users.values():
        Client().post(reverse("unsubscribe", args=[unsubscribe.unsubscribe_token("game_started", user)]))
    for notification_id in queued:
        tasks.send_notification(notification_id)
    assert mailoutbox == []
    assert set(Notification.objects.values_list("status", flat=True)) == {Notification.Status.DROPPED}


def test_a_your_move_mail_no_longer_true_when_sent_is_dropped(started, committed, monkeypatch, mailoutbox):
    from games import tasks

    game, users = started(3)
    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    state = state_of(game)
    bidder = to_act(state)[0]
    committed(
        moving.submit_move,
        game,
        user=users[bidder],
        move=legal_moves(state, bidder)[0],
        expected_version=game.version,
    )
    (notification_id,) = queued
    state = state_of(game)
    second = to_act(state)[0]
    moving.submit_move(game, user=users[second], move=legal_moves(state, second)[0], expected_version=game.version)
    mailoutbox.clear()
    tasks.send_notification(notification_id)
    assert mailoutbox == []
    assert Notification.objects.get(pk=notification_id).status == Notification.Status.DROPPED


def decisions_of_every_kind():
    """{decision kind: (state, seat)} from random games of the engine alone."""
    found = {}
    for seed in range(1, 120):
        state = new_game(num_players=2 + seed % 4, seed=seed, veto=True)
        rng = random.Random(seed)
        while not state.is_over:
            for seat in to_act(state):
                found.setdefault(view_for(state, seat)["decision"]["kind"], (state, seat))
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
        if set(composing.ASKED) <= set(found):
            return found
    raise LookupError(f"no position for {set(composing.ASKED) - set(found)}")


def test_the_subject_says_what_each_kind_of_decision_asks(start_game):
    expected = {
        "bid": "your bid",
        "court": "your court move",
        "card": "take a card",
        "action": "your placement and special action",
        "region": "choose a region",
        "share": "send your King's-return share",
        "veto": "answer a veto question",
        "counter_veto": "answer a veto question",
        "castillo": "your Castillo choice",
    }
    games = {}
    for kind, (state, seat) in decisions_of_every_kind().items():
        if state.num_players not in games:
            game = start_game(state.num_players)
            games[state.num_players] = (game, {s.index: s for s in game.seats.select_related("user")})
        game, seats = games[state.num_players]
        subject, text, _ = composing.game_mail(
            "your_move", user=seats[seat].user, game=game, state=state, seat=seat, seats=seats
        )
        assert subject == f"Game {game.pk}, round {state.round}: {expected[kind]}"
        assert f": {expected[kind]}." in text


@pytest.mark.parametrize("num_players, seed", [(3, 5), (4, 8), (5, 2)])
def test_no_mail_shows_another_seats_hand_secret_choice_or_hidden_card(start_game, num_players, seed):
    """Every kind of game mail, drawn for each seat, is the same whatever the other seats hold in
    private (their hands, played cards under the top one, secret disks, the hidden Castillo)."""
    game = start_game(num_players, veto=True)
    seats = {s.index: s for s in game.seats.select_related("user")}
    state = new_game(num_players=num_players, seed=seed, veto=True)
    rng = random.Random(seed)
    moves = checked = sensitive = 0
    while not state.is_over:
        secret = state.phase in ("special", "castillo", "bid")
        if moves % 23 == 0 or (secret and moves % 3 == 0):
            for viewer in range(num_players):
                variant = hidden_variant(state, viewer)
                for kind in ("your_move", "reminder_half", "game_started"):
                    mail = composing.game_mail(
                        kind, user=seats[viewer].user, game=game, state=state, seat=viewer, seats=seats
                    )
                    assert mail == composing.game_mail(
                        kind, user=seats[viewer].user, game=game, state=variant, seat=viewer, seats=seats
                    ), f"seat {viewer}'s {kind} mail shows a private fact of another seat"
                    checked += 1
                # The same comparison sees a difference where the seat's own secrets changed.
                other = (viewer + 1) % num_players
                sensitive += composing.game_mail(
                    "your_move", user=seats[other].user, game=game, state=state, seat=other, seats=seats
                ) != composing.game_mail(
                    "your_move", user=seats[other].user, game=game, state=variant, seat=other, seats=seats
                )
        seat = to_act(state)[0]
        state = apply_move(state, seat, random_move(state, seat, rng))
        moves += 1
    assert checked > 100 and sensitive > 0
