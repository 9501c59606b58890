"""The deadline sweep decides the mails of a batch of games together, after their commits."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import deadlines
from games.mail import decisions
from games.models import Game

# Real commits: the sweep's mails are decided after them, inside the sweep.
pytestmark = pytest.mark.django_db(transaction=True)


def overdue_games(started, count):
    games = []
    for _ in range(count):
        game, users = started(3)
        Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(days=2))
        games.append((game, users))
    return games


def test_a_sweep_mails_the_next_player_of_every_game_asking_for_their_seats_once(started, mailoutbox):
    games = overdue_games(started, 3)
    mailoutbox.clear()
    with CaptureQueriesContext(connection) as context:
        assert deadlines.sweep() == 3
    expected = []
    for game, users in games:
        game.refresh_from_db()
        (seat,) = game.to_act
        expected.append(([users[seat].email], f"[El Grande] Game {game.pk}, round 1: your bid"))
    assert sorted((m.to, m.subject) for m in mailoutbox) == sorted(expected)
    seats_with_players = [
        q["sql"] for q in context.captured_queries
        if q["sql"].startswith('SELECT "games_seat"') and 'JOIN "accounts_user"' in q["sql"]
    ]
    # Once for the batch, whatever its number of games: what says whether each game may mail
    # anyone (a few columns), then the seats and players whole of the games that may.
    assert len(seats_with_players) == 2, seats_with_players
    assert '"password"' not in seats_with_players[0] and '"password"' in seats_with_players[1]


def test_a_game_whose_mails_fail_to_be_decided_is_logged_and_the_others_are_mailed(
    started, mailoutbox, monkeypatch, caplog
):
    (broken, _), (fine, fine_users) = overdue_games(started, 2)
    mailoutbox.clear()
    real = decisions.decide

    def decide(game, *args):
        if game.pk == broken.pk:
            raise KeyError("a template bug")
        return real(game, *args)

    monkeypatch.setattr(decisions, "decide", decide)
    assert deadlines.sweep() == 2
    fine.refresh_from_db()
    (seat,) = fine.to_act
    assert [m.to for m in mailoutbox] == [[fine_users[seat].email]]
    assert f"the mails of game {broken.pk}" in caplog.text
