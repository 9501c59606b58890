"""The start mail waits for a player at the table as a "your move" mail does, and every waiting
mail has an end: the decision no longer theirs, the game over, or a day of waiting."""

import logging
import random
import time
from datetime import timedelta

import pytest
from django.core.cache import cache

from games.engine import new_game, to_act
from games.infra import presence
from games.mail import decisions, late_decisions
from games.models import Game, MailToDecide, Notification
from games.play import lifecycle
from tests.support.helpers import state_of
from tests.support.notifications import GRACE, at, bid

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def grace(settings):
    settings.YOUR_MOVE_GRACE_SECONDS = GRACE
    cache.clear()
    yield
    cache.clear()


def creator_bids_first(seed):
    joined = [0, 1, 2]
    random.Random(seed).shuffle(joined)
    return joined[to_act(new_game(num_players=3, seed=seed))[0]] == 0


def test_no_start_mail_to_players_at_the_table_and_a_your_move_mail_once_the_first_bidder_leaves(
    make_user, committed, mailoutbox
):
    users = [make_user() for _ in range(3)]
    game = lifecycle.create_game(users[0], num_players=3)
    # A seed whose first bidder is the creator, at the table (the seed shuffles the seats too).
    seed = next(seed for seed in range(1, 100) if creator_bids_first(seed))
    Game.objects.filter(pk=game.pk).update(seed=seed)
    committed(lifecycle.join_game, game, user=users[1], token=game.invite_token)
    # The first two wait at the table for the game to start; the third joins from the lobby.
    opened = time.time()
    for user in users[:2]:
        presence.seen(game.pk, user.pk, now=opened)
    mailoutbox.clear()
    committed(lifecycle.join_game, game, user=users[2], token=game.invite_token)
    game.refresh_from_db()
    started = Notification.objects.filter(game=game, kind="game_started")
    assert list(started.values_list("user", flat=True)) == [users[2].pk]
    assert [message.to for message in mailoutbox] == [[users[2].email]]

    first = to_act(state_of(game))[0]
    bidder = game.seats.get(index=first).user
    assert bidder == users[0]
    (waiting,) = MailToDecide.objects.filter(game=game)
    assert waiting.waiting_for == [first]
    # Both leave the table; once the grace is over the first bidder alone is mailed, once.
    for user in users[:2]:
        presence.seen(game.pk, user.pk, open=False, now=opened + 10)
    assert late_decisions.decide_waiting(at(opened + 10 + GRACE + 1)) == 1
    assert mailoutbox[-1].to == [bidder.email]
    assert mailoutbox[-1].subject == f"[El Grande] Game {game.pk}, round 1: your bid"
    assert not MailToDecide.objects.filter(game=game).exists()


def test_a_start_mail_still_goes_to_every_player_away_from_the_table(started, mailoutbox):
    game, users = started(3)
    assert sorted(Notification.objects.filter(game=game, kind="game_started").values_list("user", flat=True)) == (
        sorted(user.pk for user in users.values())
    )


def test_a_waiting_mail_that_fails_is_put_off_then_given_up_after_a_day(
    started, committed, mailoutbox, monkeypatch, caplog
):
    game, users = started(3)
    opened = time.time()
    for user in users.values():
        presence.seen(game.pk, user.pk, open=False, now=opened)
    mailoutbox.clear()
    bid(game, users, committed)
    row = MailToDecide.objects.get(game=game)
    calls = []

    def failing(*args, **kwargs):
        calls.append(args)
        raise RuntimeError("cannot decide")

    monkeypatch.setattr(decisions, "your_move", failing)
    now = at(opened + GRACE + 1)
    late_decisions.decide_waiting(now)
    assert len(calls) == 1
    # Not looked at again at every sweep: put off.
    row.refresh_from_db()
    assert row.due_at > now
    for seconds in range(5, 60, 5):
        late_decisions.decide_waiting(now + timedelta(seconds=seconds))
    assert len(calls) == 1
    # A day on, it ends, with a word in the log.
    MailToDecide.objects.filter(pk=row.pk).update(created_at=now - timedelta(days=1, seconds=1))
    with caplog.at_level(logging.WARNING, logger="games.mail.late_decisions"):
        late_decisions.decide_waiting(now + timedelta(minutes=5))
    assert not MailToDecide.objects.filter(pk=row.pk).exists()
    assert any("waited for a day: dropped" in record.getMessage() for record in caplog.records)
    assert mailoutbox == []


def test_a_mail_waiting_while_the_page_stays_open_ends_after_a_day(started, committed, mailoutbox):
    game, users = started(3)
    opened = time.time()
    for user in users.values():
        presence.seen(game.pk, user.pk, now=opened)
    mailoutbox.clear()
    bid(game, users, committed)
    row = MailToDecide.objects.get(game=game)
    MailToDecide.objects.filter(pk=row.pk).update(created_at=row.created_at - timedelta(days=1))
    late_decisions.decide_waiting(at(opened + 3 * GRACE))
    assert not MailToDecide.objects.filter(pk=row.pk).exists()
    assert mailoutbox == []


def test_a_mail_waiting_for_a_game_that_ended_is_dropped(started, committed, mailoutbox):
    game, users = started(3)
    opened = time.time()
    for user in users.values():
        presence.seen(game.pk, user.pk, open=False, now=opened)
    mailoutbox.clear()
    bid(game, users, committed)
    assert MailToDecide.objects.filter(game=game).exists()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    assert late_decisions.decide_waiting(at(opened + GRACE + 1)) == 0
    assert not MailToDecide.objects.filter(game=game).exists() and mailoutbox == []
