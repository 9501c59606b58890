"""The fixtures of tests/notifications (mail sent at once, on-commit callbacks run, a started game)
and the helpers of its tests: mails sent to a user, play until a condition, a turn that comes back."""

import random
from datetime import UTC, datetime

import pytest

from games.engine import apply_move, legal_moves, new_game, random_move, to_act
from games.models import Game
from games.play import lifecycle, moving
from tests.support.helpers import play, state_of


@pytest.fixture(autouse=True)
def mail_sent_at_once(monkeypatch, settings):
    """Queued notifications are sent at once in the test's own thread (and its transaction), by
    what the mailer thread runs for each; the thread itself is tested in test_sending.py."""
    from games.mail import outbox

    settings.SITE_URL = "https://elgrande.example.org"
    monkeypatch.setattr(outbox, "queue_notification", outbox.send_logged)


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run `change()` and then its after-commit hooks (mail is decided there), as a request would."""

    def run(change, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return change(*args, **kwargs)

    return run


@pytest.fixture
def started(make_user, committed):
    """A game started through the services with its after-commit hooks run: (game, users by seat)."""

    def start(num_players=3, seed=None, **options):
        users = [make_user() for _ in range(num_players)]
        game = lifecycle.create_game(users[0], num_players=num_players, **options)
        if seed is not None:
            Game.objects.filter(pk=game.pk).update(seed=seed)
        for user in users[1:]:
            committed(lifecycle.join_game, game, user=user, token=game.invite_token)
        game.refresh_from_db()
        return game, {seat.index: seat.user for seat in game.seats.select_related("user")}

    return start


def sent_to(mailoutbox, user):
    return [message for message in mailoutbox if message.to == [user.email]]


def play_until(game, users, committed, until):
    """Play random moves of the first seat to act, with the after-commit hooks run, until
    `until(state)`."""
    rng = random.Random(game.seed)
    state = state_of(game)
    while not until(state):
        seat = to_act(state)[0]
        committed(moving.submit_move, game, user=users[seat], move=random_move(state, seat, rng),
            expected_version=game.version)
        state = state_of(game)
    return state


def a_turn_that_comes_back_to_its_player(num_players=3):
    """(seed, moves before) of a game, played as `play_until` plays, whose first turn's player
    waits on other seats (a veto question, a share), then acts again in the same turn."""
    for seed in range(1, 300):
        state, rng = new_game(num_players=num_players, seed=seed), random.Random(seed)
        waiting = None
        while state.round == 1 and not state.is_over:
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
            if state.phase == "bid":
                continue
            if state.current_player not in to_act(state):
                waiting = state.current_player
            elif waiting == state.current_player:
                return seed
    raise LookupError("no such seed")


# The grace (seconds) the presence tests set for YOUR_MOVE_GRACE_SECONDS.
GRACE = 120


def at(unix_time):
    return datetime.fromtimestamp(unix_time, UTC)


def bid(game, users, committed):
    """The first bidder bids: (the seat that must bid next)."""
    state = state_of(game)
    bidder = to_act(state)[0]
    committed(
        moving.submit_move,
        game,
        user=users[bidder],
        move=legal_moves(state, bidder)[0],
        expected_version=game.version,
    )
    return to_act(state_of(game))[0]


# The engine's seed 1 with four players: its 8th random move opens a veto question to three seats.
SEED = 1
MOVES_BEFORE = 7
ZONES = ["Asia/Tokyo", "America/New_York", "Europe/Madrid"]
MOVER_ZONE = "Australia/Sydney"


@pytest.fixture
def veto_question(make_user, committed, smtp_server):
    """A slow four-player game one move before a veto question to three seats; (game, users by
    seat, the mover's seat and the move), every player in their own time zone."""
    users = [make_user() for _ in range(4)]
    game = lifecycle.create_game(users[0], num_players=4, time_per_move=3 * 24 * 3600)
    Game.objects.filter(pk=game.pk).update(seed=SEED)
    for user in users[1:]:
        committed(lifecycle.join_game, game, user=user, token=game.invite_token)
    game.refresh_from_db()
    rng = random.Random(SEED)
    play(game, moves=MOVES_BEFORE, rng=rng)
    state = state_of(game)
    (mover,) = to_act(state)
    seats = {seat.index: seat.user for seat in game.seats.select_related("user")}
    others = sorted(set(seats) - {mover})
    for index, zone in zip([mover, *others], [MOVER_ZONE, *ZONES], strict=True):
        seats[index].time_zone = zone
        seats[index].save(update_fields=["time_zone"])
    smtp_server.messages.clear()
    return game, seats, mover, random_move(state, mover, rng)
