import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import broadcast
from games.engine import apply_move, new_game, to_act, view_for
from games.models import Game, Move, Seat
from games.play import lifecycle, moving
from games.play.errors import Conflict, GameError, NotAllowed, StaleVersion
from tests.support.helpers import play, snapshot, state_of, user_at

pytestmark = pytest.mark.django_db


def test_the_creator_takes_the_first_seat_of_an_open_game(make_user):
    creator = make_user()
    game = lifecycle.create_game(creator, num_players=4)
    assert game.status == Game.Status.OPEN
    assert game.state is None
    assert [seat.user for seat in game.seats.all()] == [creator]


def test_every_option_is_stored(make_user):
    game = lifecycle.create_game(
        make_user(), num_players=5, short_game=True, veto=False, show_castillo=True,
        time_per_move=300, rated=True, private=True,
    )
    game.refresh_from_db()
    assert (game.num_players, game.short_game, game.veto, game.show_castillo) == (5, True, False, True)
    assert (game.time_per_move, game.rated, game.private) == (300, True, True)
    assert len(game.invite_token) > 20


def test_a_game_has_two_to_five_players(make_user):
    with pytest.raises(GameError):
        lifecycle.create_game(make_user(), num_players=6)
    with pytest.raises(GameError):
        lifecycle.create_game(make_user(), num_players=1)


def test_the_game_starts_when_the_last_seat_is_taken(make_user, django_capture_on_commit_callbacks):
    users = [make_user() for _ in range(3)]
    game = lifecycle.create_game(users[0], num_players=3, short_game=True, time_per_move=120)
    lifecycle.join_game(game, user=users[1])
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN
    with django_capture_on_commit_callbacks(execute=True):
        lifecycle.join_game(game, user=users[2])
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert sorted(game.seats.values_list("index", flat=True)) == [0, 1, 2]
    expected = new_game(num_players=3, seed=game.seed, short_game=True, veto=True, show_castillo=False)
    assert game.state == expected.to_json()
    assert game.to_act == to_act(expected)
    assert timedelta(seconds=110) < game.deadline - timezone.now() <= timedelta(seconds=120)


def test_seating_is_drawn_from_the_game_seed(make_user):
    def seating(seed, users):
        game = lifecycle.create_game(users[0], num_players=4)
        Game.objects.filter(pk=game.pk).update(seed=seed)
        for user in users[1:]:
            lifecycle.join_game(game, user=user)
        return [seat.user for seat in Seat.objects.filter(game=game).order_by("index")]

    users = [make_user() for _ in range(4)]
    assert seating(11, users) == seating(11, users)
    shuffled = list(users)
    random.Random(11).shuffle(shuffled)
    assert seating(11, users) == shuffled
    orders = {tuple(u.pk for u in seating(seed, users)) for seed in range(1, 12)}
    assert len(orders) > 1


def test_colours_and_homes_come_from_the_engine_setup(start_game):
    game = start_game(4, seed=5)
    view = view_for(state_of(game), None)
    engine = new_game(num_players=4, seed=5, short_game=False, veto=True, show_castillo=False)
    assert [p["colour"] for p in view["players"]] == engine.colours
    homes = [p["home"] for p in view["players"]]
    assert len(set(homes)) == 4 and view["king"] not in homes


def test_a_private_game_needs_its_invitation(make_user):
    game = lifecycle.create_game(make_user(), num_players=3, private=True)
    stranger = make_user()
    with pytest.raises(NotAllowed):
        lifecycle.join_game(game, user=stranger)
    with pytest.raises(NotAllowed):
        lifecycle.join_game(game, user=stranger, token="not-the-token")
    lifecycle.join_game(game, user=stranger, token=game.invite_token)
    assert game.seats.filter(user=stranger).exists()


def test_nobody_takes_two_seats_or_joins_a_full_game(make_user):
    creator = make_user()
    game = lifecycle.create_game(creator, num_players=2)
    with pytest.raises(Conflict):
        lifecycle.join_game(game, user=creator)
    lifecycle.join_game(game, user=make_user())
    with pytest.raises(Conflict):
        lifecycle.join_game(game, user=make_user())


def test_players_leave_only_before_the_start(make_user):
    creator, other, third = make_user(), make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    lifecycle.join_game(game, user=other)
    lifecycle.leave_game(game, user=other)
    assert not game.seats.filter(user=other).exists()
    with pytest.raises(Conflict):
        lifecycle.leave_game(game, user=creator)
    lifecycle.join_game(game, user=other)
    lifecycle.join_game(game, user=third)
    with pytest.raises(Conflict):
        lifecycle.leave_game(game, user=other)


def test_only_the_creator_cancels_and_only_before_the_start(make_user):
    creator, other = make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    lifecycle.join_game(game, user=other)
    with pytest.raises(NotAllowed):
        lifecycle.cancel_game(game, user=other)
    lifecycle.cancel_game(game, user=creator)
    game.refresh_from_db()
    assert game.status == Game.Status.CANCELLED
    with pytest.raises(Conflict):
        lifecycle.join_game(game, user=make_user())


def test_an_accepted_move_is_applied_stored_and_versioned(start_game):
    game = start_game(3)
    before = state_of(game)
    seat = to_act(before)[0]
    move = {"type": "bid", "card": 9}
    version = game.version
    moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=version)
    game.refresh_from_db()
    assert game.version == version + 1
    assert game.state == apply_move(before, seat, move).to_json()
    stored = Move.objects.get(game=game)
    assert (stored.seat.index, stored.version, stored.move) == (seat, game.version, move)
    after = apply_move(before, seat, move)
    assert stored.events == after.events == [{"event": "bid", "round": 1, "seat": seat, "card": 9}]
    assert stored.round == after.round
    assert "log" not in game.state


def test_the_setups_events_are_stored_with_the_game(start_game):
    game = start_game(3)
    assert game.first_events == new_game(**game.engine_options()).events
    assert [event["event"] for event in game.first_events] == ["setup", "round"]


def test_a_move_against_an_old_version_changes_nothing(start_game):
    game = start_game(3)
    seat = to_act(state_of(game))[0]
    before = snapshot(game)
    with pytest.raises(StaleVersion) as refused:
        moving.submit_move(
            game, user=user_at(game, seat), move={"type": "bid", "card": 9}, expected_version=game.version - 1
        )
    assert "moved on" in refused.value.message
    assert snapshot(game) == before


@pytest.mark.parametrize(
    "move",
    [
        {"type": "bid", "card": 14},
        {"type": "bid", "card": -3},
        {"type": "bid", "card": "nine"},
        {"type": "bid"},
        {"type": "place", "to": {"atlantis": 2}},
        {"type": "fly"},
        {"card": 9},
        ["bid", 9],
        "bid",
        None,
    ],
)
def test_an_illegal_or_malformed_move_changes_nothing(start_game, move):
    game = start_game(3)
    seat = to_act(state_of(game))[0]
    before = snapshot(game)
    with pytest.raises(GameError) as refused:
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
    assert refused.value.status == 400
    assert refused.value.message
    assert snapshot(game) == before


def test_a_move_out_of_turn_changes_nothing(start_game):
    game = start_game(3)
    waiting = next(s for s in range(3) if s not in to_act(state_of(game)))
    before = snapshot(game)
    with pytest.raises(Conflict, match="not your turn"):
        moving.submit_move(
            game, user=user_at(game, waiting), move={"type": "bid", "card": 9}, expected_version=game.version
        )
    assert snapshot(game) == before


def test_only_a_seated_user_moves(start_game, make_user):
    game = start_game(3)
    before = snapshot(game)
    with pytest.raises(NotAllowed):
        moving.submit_move(game, user=make_user(), move={"type": "bid", "card": 9}, expected_version=game.version)
    assert snapshot(game) == before


def test_a_move_naming_another_seat_changes_nothing(start_game):
    game = start_game(3)
    seat = to_act(state_of(game))[0]
    before = snapshot(game)
    with pytest.raises(NotAllowed, match="your own seat"):
        moving.submit_move(
            game,
            user=user_at(game, seat),
            move={"type": "bid", "card": 9},
            expected_version=game.version,
            seat_index=(seat + 1) % 3,
        )
    assert snapshot(game) == before


def test_a_finished_game_takes_no_more_moves(start_game):
    game = start_game(2, short_game=True)
    state = play(game)
    game.refresh_from_db()
    assert state.is_over
    assert game.status == Game.Status.FINISHED and game.finished_at and game.deadline is None
    before = snapshot(game)
    with pytest.raises(Conflict, match="over"):
        moving.submit_move(
            game, user=user_at(game, 0), move={"type": "bid", "card": 1}, expected_version=game.version
        )
    assert snapshot(game) == before


def test_every_position_can_be_rebuilt_from_the_stored_moves(start_game):
    game = start_game(3)
    states = [state_of(game)]
    versions = [game.version]
    for _ in range(25):
        play(game, moves=1)
        states.append(state_of(game))
        versions.append(game.version)
    assert moving.replay(game).to_json() == game.state
    for version, state in zip(versions, states):
        assert moving.replay(game, upto=version).to_json() == state.to_json()


def test_a_move_is_announced_after_commit_with_only_the_version(
    start_game, monkeypatch, django_capture_on_commit_callbacks
):
    game = start_game(3)
    sent = []
    monkeypatch.setattr(broadcast, "send_versions_and_lobbies", lambda versions, user_ids: sent.append(versions))
    seat = to_act(state_of(game))[0]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        moving.submit_move(
            game, user=user_at(game, seat), move={"type": "bid", "card": 9}, expected_version=game.version
        )
        assert sent == []
    for callback in callbacks:
        callback()
    game.refresh_from_db()
    assert sent == [{game.pk: game.version}]
