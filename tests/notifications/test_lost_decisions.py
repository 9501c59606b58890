"""The mails of a commit are decided after it; a process that dies in between must not lose them.

Each commit that calls for mail writes a MailToDecide row in its own transaction; the decision
deletes it once the mails are recorded, and the sweep decides those left behind."""

import logging
import random
import subprocess
import sys
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from games import deadlines
from games.engine import apply_move, legal_moves, random_move, to_act
from games.infra import rows
from games.mail import decisions, late_decisions, periodic
from games.models import Game, MailToDecide, Notification
from games.play import lifecycle, moving
from tests.support.helpers import state_of
from tests.support.processes import ROOT, environment

LOST = late_decisions.MAIL_DECISION_LOST_AFTER

# What a sweep in a process of its own does, up to the moment the mails of its batch are decided:
# there the process is killed, as a worker's OOM kill or a restart would, after the commits.
KILLED_BEFORE_THE_MAILS = """
import os, signal, django
django.setup()
from games import deadlines
from games.mail import decisions, late_decisions, periodic

def killed(saved):
    print("killed with", len(saved), "games to decide", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

decisions.games_saved = killed
deadlines.sweep()
print("not killed", flush=True)
"""


def bid(game, users, committed=None, highest=False):
    """The first seat to act bids (its lowest card, or its highest), through the services. With
    `committed` its after-commit hooks run, as a request's would; without, the move is committed
    but its hooks never run: the process is gone before its mails. Returns the seat."""
    game.refresh_from_db()
    state = state_of(game)
    seat = to_act(state)[0]
    bids = sorted(legal_moves(state, seat), key=lambda move: move["card"])
    (committed or (lambda change, *args, **kwargs: change(*args, **kwargs)))(
        moving.submit_move,
        game,
        user=users[seat],
        move=bids[-1] if highest else bids[0],
        expected_version=game.version,
    )
    game.refresh_from_db()
    return seat


def overdue(started, count):
    games = []
    for _ in range(count):
        game, users = started(3)
        Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(days=2))
        games.append((game, users))
    return games


def next_players(games):
    """[(address, subject)] of the "your move" mail each game's player to act should get now."""
    expected = []
    for game, users in games:
        game.refresh_from_db()
        (seat,) = game.to_act
        expected.append(([users[seat].email], f"[El Grande] Game {game.pk}, round 1: your bid"))
    return sorted(expected)


@pytest.mark.django_db(transaction=True)
def test_a_sweep_killed_after_its_commits_loses_no_mail_the_next_sweeps_send_them_once(started, mailoutbox):
    games = overdue(started, 3)
    versions = {game.pk: game.version for game, _ in games}
    mailoutbox.clear()
    sweep = subprocess.run(
        [sys.executable, "-c", KILLED_BEFORE_THE_MAILS], cwd=ROOT, env=environment(),
        capture_output=True, text=True, timeout=120,
    )
    assert sweep.returncode == -9, sweep.stdout + sweep.stderr
    assert "killed with 3 games to decide" in sweep.stdout
    # Every game moved on and stayed so; none of its mails was decided, but each commit left its row.
    for game, _ in games:
        game.refresh_from_db()
        assert game.version > versions[game.pk]
    assert sorted(MailToDecide.objects.values_list("game_id", "version")) == sorted(
        (game.pk, game.version) for game, _ in games
    )
    assert not Notification.objects.filter(kind="your_move").exists()

    # A decision under way elsewhere is not raced: rows younger than LOST are left alone.
    deadlines.sweep()
    assert mailoutbox == []
    assert MailToDecide.objects.count() == 3

    later = timezone.now() + LOST
    deadlines.sweep(later)
    assert sorted((m.to, m.subject) for m in mailoutbox) == next_players(games)
    assert not MailToDecide.objects.exists()
    deadlines.sweep(later + timedelta(seconds=1))
    assert len(mailoutbox) == 3


def test_a_game_started_by_a_process_that_died_before_its_mails_gets_them_from_the_sweep(
    make_user, committed, mailoutbox
):
    users = [make_user() for _ in range(3)]
    game = lifecycle.create_game(users[0], num_players=3)
    committed(lifecycle.join_game, game, user=users[1], token=game.invite_token)
    mailoutbox.clear()
    # The last seat taken starts the game; the process dies before its after-commit hooks.
    lifecycle.join_game(game, user=users[2], token=game.invite_token)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    periodic.sweep(timezone.now() + LOST)
    assert sorted(m.to[0] for m in mailoutbox) == sorted(user.email for user in users)
    assert all(m.subject.startswith(f"[El Grande] Game {game.pk} has started") for m in mailoutbox)
    assert not MailToDecide.objects.exists()


def test_a_last_move_whose_process_died_before_its_mails_still_gets_the_ranking_mailed(
    started, committed, mailoutbox
):
    game, users = started(2, short_game=True)
    rng = random.Random(game.seed)
    state = state_of(game)
    while True:
        seat = to_act(state)[0]
        move = random_move(state, seat, rng)
        if apply_move(state, seat, move).is_over:
            break
        committed(moving.submit_move, game, user=users[seat], move=move, expected_version=game.version)
        state = state_of(game)
    mailoutbox.clear()
    moving.submit_move(game, user=users[seat], move=move, expected_version=game.version)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    periodic.sweep(timezone.now() + LOST)
    assert sorted(m.to[0] for m in mailoutbox) == sorted(user.email for user in users.values())
    assert all(f"Game {game.pk} is over: you placed" in m.subject for m in mailoutbox)
    assert not MailToDecide.objects.exists()


def test_a_move_whose_process_died_before_its_mails_gets_them_from_the_sweep(started, mailoutbox):
    game, users = started(3)
    mailoutbox.clear()
    bidder = bid(game, users)
    (nxt,) = game.to_act
    assert list(MailToDecide.objects.values_list("game_id", "version", "previous_to_act")) == [
        (game.pk, game.version, [bidder])
    ]
    periodic.sweep(timezone.now())
    assert mailoutbox == []
    periodic.sweep(timezone.now() + LOST)
    assert [(m.to, m.subject) for m in mailoutbox] == [
        ([users[nxt].email], f"[El Grande] Game {game.pk}, round 1: your bid")
    ]
    assert not MailToDecide.objects.exists()


def test_lost_decisions_of_a_game_that_moved_on_mail_only_who_must_act_now_once(started, committed, mailoutbox):
    game, users = started(4)
    mailoutbox.clear()
    # Two moves whose mails were lost, then one whose mails were decided as usual.
    bid(game, users)
    bid(game, users)
    bid(game, users, committed)
    (now_to_act,) = game.to_act
    assert [m.to for m in mailoutbox] == [[users[now_to_act].email]]
    assert MailToDecide.objects.count() == 2
    mailoutbox.clear()
    periodic.sweep(timezone.now() + LOST)
    # The players who had to act at the lost versions have moved since: nothing to tell them, and
    # the player to act now was told already.
    assert mailoutbox == []
    assert not MailToDecide.objects.exists()


def test_lost_decisions_of_a_game_that_moved_on_without_mail_tell_the_player_still_to_act(started, mailoutbox):
    game, users = started(3)
    mailoutbox.clear()
    bid(game, users)
    (nxt,) = game.to_act
    # A change of version that calls for no mail of its own (the player to act is the same).
    Game.objects.filter(pk=game.pk).update(version=game.version + 1)
    periodic.sweep(timezone.now() + LOST)
    game.refresh_from_db()
    assert [(m.to, m.subject) for m in mailoutbox] == [
        ([users[nxt].email], f"[El Grande] Game {game.pk}, round 1: your bid")
    ]
    assert Notification.objects.get(kind="your_move").version == game.version
    assert not MailToDecide.objects.exists()


def test_a_decision_that_keeps_failing_is_retried_then_given_up_after_a_day_loudly(
    started, mailoutbox, monkeypatch, caplog
):
    game, users = started(3)
    mailoutbox.clear()
    bid(game, users)
    monkeypatch.setattr(decisions, "decide", lambda *args: 1 / 0)
    for minutes in (3, 60, 23 * 60):
        periodic.sweep(timezone.now() + timedelta(minutes=minutes))
        assert MailToDecide.objects.count() == 1
    assert "were not decided" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.ERROR):
        periodic.sweep(timezone.now() + timedelta(days=1, minutes=1))
    assert not MailToDecide.objects.exists()
    assert f"the mails of game {game.pk} at version {game.version} could not be decided for a day" in caplog.text
    # (A day on, the reminders of the clock are due: they are not what was given up.)
    assert not Notification.objects.filter(kind="your_move").exists()


def test_a_lost_decision_that_fails_does_not_hold_up_the_others(started, mailoutbox, monkeypatch, caplog):
    (broken, broken_users), (fine, fine_users) = started(3), started(3)
    bid(broken, broken_users)
    bid(fine, fine_users)
    mailoutbox.clear()
    real = late_decisions.as_lost

    def as_lost(game, *args):
        if game.pk == broken.pk:
            raise ValueError("a corrupt state")
        return real(game, *args)

    monkeypatch.setattr(late_decisions, "as_lost", as_lost)
    periodic.sweep(timezone.now() + LOST)
    fine.refresh_from_db()
    (nxt,) = fine.to_act
    assert [m.to for m in mailoutbox] == [[fine_users[nxt].email]]
    assert list(MailToDecide.objects.values_list("game_id", flat=True)) == [broken.pk]
    assert f"the mails of game {broken.pk} at version" in caplog.text


@contextmanager
def uncleared(monkeypatch):
    """The decisions made inside record and send their mails, but their MailToDecide rows are
    not deleted (the database went away just then)."""

    def fail(*args):
        raise OperationalError("the database went away")

    with monkeypatch.context() as patched:
        patched.setattr(rows, "delete_each", fail)
        yield


def test_a_decision_made_whose_row_stayed_mails_nobody_twice_once_the_game_moved_on(
    started, committed, mailoutbox, monkeypatch
):
    game, users = started(3)
    mailoutbox.clear()
    with uncleared(monkeypatch):
        bid(game, users, committed)
    (nxt,) = game.to_act
    assert [m.to for m in mailoutbox] == [[users[nxt].email]]
    assert MailToDecide.objects.count() == 1
    # A change of version that asks nobody anything new (a deadline moved by a vacation).
    Game.objects.filter(pk=game.pk).update(version=game.version + 1)
    periodic.sweep(timezone.now() + LOST)
    assert len(mailoutbox) == 1, [m.subject for m in mailoutbox[1:]]
    assert not MailToDecide.objects.exists()


def test_a_start_announced_whose_row_stayed_is_not_announced_again_once_the_game_moved_on(
    make_user, committed, mailoutbox, monkeypatch
):
    users = [make_user() for _ in range(3)]
    game = lifecycle.create_game(users[0], num_players=3)
    committed(lifecycle.join_game, game, user=users[1], token=game.invite_token)
    with uncleared(monkeypatch):
        committed(lifecycle.join_game, game, user=users[2], token=game.invite_token)
    assert sum("has started" in m.subject for m in mailoutbox) == 3
    assert MailToDecide.objects.filter(started=True).count() == 1
    by_seat = {seat.index: seat.user for seat in game.seats.select_related("user")}
    bid(game, by_seat, committed)
    sent = len(mailoutbox)
    periodic.sweep(timezone.now() + LOST)
    assert len(mailoutbox) == sent, [m.subject for m in mailoutbox[sent:]]
    assert not MailToDecide.objects.exists()


def test_a_player_who_moved_since_a_lost_decision_is_told_of_the_new_one(started, mailoutbox):
    game, users = started(3)
    mailoutbox.clear()
    # The first bidder bids highest, so the turns begin with them; every bid's mails are lost.
    first = bid(game, users, highest=True)
    bid(game, users)
    bid(game, users)
    assert game.to_act == [first]
    periodic.sweep(timezone.now() + LOST)
    # They had to act before the first lost decision, but they have moved since: told again.
    assert [m.to for m in mailoutbox] == [[users[first].email]]
    assert not MailToDecide.objects.exists()
