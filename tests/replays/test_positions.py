"""Positions rebuilt from the seed and the stored moves, from one snapshot per round: every position
is the engine's own, the snapshots are written once, and games that cannot be replayed say so."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.engine import GameState, apply_move, new_game, random_move, to_act
from games.models import Game, Move, Snapshot
from games.reading import replays
from games.records.old_logs import legacy_events
from tests.support.helpers import play, state_of
from tests.support.replays import engine_positions

pytestmark = pytest.mark.django_db


def loaded(game):
    """The game as the pages load it: with its seats prefetched."""
    return Game.objects.prefetch_related("seats").get(pk=game.pk)


def test_every_position_of_a_finished_game_is_the_engines_position_after_that_many_moves(finished_game):
    game = finished_game(veto=True)
    states = engine_positions(game)
    for at, expected in enumerate(states):
        found = replays.position(loaded(game), at)
        assert (found.at, found.last) == (at, len(states) - 1)
        assert found.state == expected, f"position {at}"
    assert states[-1] == state_of(game)


def test_a_finished_games_first_replay_stores_each_round_start_each_scoring_and_the_end_once(finished_game):
    game = finished_game()
    states = engine_positions(game)
    replays.position(loaded(game), 5)
    stored = list(Snapshot.objects.filter(game=game).values_list("kind", "position", "round", "scores"))
    round_starts = [
        ("round", at, state.round, state.scores)
        for at, state in enumerate(states)
        if at == 0 or state.round != states[at - 1].round
    ]
    assert [row for row in stored if row[0] == "round"] == round_starts
    assert [row[2] for row in round_starts] == [1, 2, 3, 4, 5, 6]
    scorings = [row for row in stored if row[0] == "scoring"]
    assert [row[2] for row in scorings] == [2, 4, 6]
    for _, at, _, _ in scorings:
        assert states[at].phase == "castillo" or states[at].scorings_done == states[at - 1].scorings_done + 1
    assert [row for row in stored if row[0] == "end"] == [("end", len(states) - 1, 6, states[-1].scores)]
    for snapshot in Snapshot.objects.filter(game=game):
        assert GameState.from_json(snapshot.state) == states[snapshot.position]
    # Later replays read them and write nothing.
    with CaptureQueriesContext(connection) as queries:
        for at in (0, 17, len(states) - 1):
            replays.position(loaded(game), at)
    assert not [query for query in queries if "INSERT" in query["sql"]]
    assert Snapshot.objects.filter(game=game).count() == len(stored)


def test_a_position_costs_one_query_for_the_snapshots_and_one_for_the_moves_however_long_the_game(finished_game):
    game = finished_game()
    replays.position(loaded(game), 0)
    last = Move.objects.filter(game=game).count()
    for at in (0, 1, last // 2, last - 1, last):
        game_row = loaded(game)
        with CaptureQueriesContext(connection) as queries:
            replays.position(game_row, at)
        assert len(queries) <= 2, [query["sql"] for query in queries]


def scoring_without_castillo_seed():
    """A seed whose random short game (as tests.support.helpers.play plays it) has a general scoring with
    nobody in the Castillo: the move that ends the round scores it and begins the next at once."""
    for seed in range(1, 200):
        state = new_game(num_players=3, seed=seed, short_game=True)
        rng = random.Random(seed)
        while not state.is_over:
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
            kinds = [event["event"] for event in state.events]
            if "general_scoring" in kinds and "awaiting_choices" not in kinds and "round" in kinds:
                return seed
    raise LookupError("no seed has a scoring with nobody in the Castillo")


def test_a_scoring_with_nobody_in_the_castillo_is_the_scoring_of_the_round_it_ended(finished_game):
    game = finished_game(seed=scoring_without_castillo_seed())
    states = engine_positions(game)
    replays.position(loaded(game))
    for round_number, at in Snapshot.objects.filter(game=game, kind="scoring").values_list("round", "position"):
        assert states[at - 1].round == round_number
        assert states[at].scorings_done == states[at - 1].scorings_done + 1 or states[at].phase == "castillo"
    assert list(Snapshot.objects.filter(game=game, kind="scoring").values_list("round", flat=True)) == [2, 4, 6]
    assert Snapshot.objects.filter(game=game, kind="scoring", position__in=Snapshot.objects.filter(
        game=game, kind="round").values("position")).exists()


def test_a_running_games_snapshots_follow_it_round_by_round(start_game):
    game = start_game(3, short_game=True)
    play(game, until=lambda state: state.round == 2 and state.phase == "court")
    first = replays.position(loaded(game))
    assert first.last == Move.objects.filter(game=game).count()
    assert first.state == state_of(game)
    assert list(Snapshot.objects.filter(game=game, kind="round").values_list("round", flat=True)) == [1, 2]
    play(game, until=lambda state: state.round == 4)
    later = replays.position(loaded(game))
    assert later.state == state_of(game) and later.last == Move.objects.filter(game=game).count()
    assert list(Snapshot.objects.filter(game=game, kind="round").values_list("round", flat=True)) == [1, 2, 3, 4]
    assert list(Snapshot.objects.filter(game=game, kind="scoring").values_list("round", flat=True)) == [2]
    assert not Snapshot.objects.filter(game=game, kind="end").exists()
    states = engine_positions(game)
    for at in (0, 1, first.last, later.last - 1):
        assert replays.position(loaded(game), at).state == states[at]


def test_a_position_out_of_range_is_the_nearest_there_is(finished_game):
    game = finished_game()
    last = Move.objects.filter(game=game).count()
    assert replays.position(loaded(game), -3).at == 0
    assert replays.position(loaded(game), 10**12).at == last
    assert replays.position(loaded(game)).at == last
    assert replays.position(loaded(game), back=2).at == last - 2
    assert replays.position(loaded(game), back=10**9).at == 0


def test_the_scores_by_round_are_the_scores_at_the_end_of_each_round(finished_game):
    game = finished_game()
    states = engine_positions(game)
    expected = [(0, [0, 0, 0])]
    for before, after in zip(states, states[1:]):
        if after.round != before.round:
            expected.append((before.round, after.scores))
    expected.append((6, states[-1].scores))
    assert replays.position(loaded(game), 3).scores_by_round() == expected


def test_a_game_not_started_has_nothing_to_replay(start_game, make_user):
    from games.play import lifecycle

    game = lifecycle.create_game(make_user(), num_players=3)
    with pytest.raises(replays.NotReplayable, match="not started"):
        replays.position(loaded(game))


def test_a_game_stored_under_earlier_rules_is_not_replayed(finished_game):
    game = finished_game()
    Game.objects.filter(pk=game.pk).update(first_events=legacy_events([{"round": 0, "text": "Red sits at seat 1."}]))
    with pytest.raises(replays.NotReplayable, match="earlier rules"):
        replays.position(loaded(game))
    assert not Snapshot.objects.filter(game=game).exists()


def test_moves_that_no_longer_replay_to_the_stored_position_are_not_replayed_nor_snapshotted(start_game):
    game = start_game(3)
    play(game, moves=12)
    state = state_of(game)
    state.scores[0] += 5
    Game.objects.filter(pk=game.pk).update(state=state.to_json())
    with pytest.raises(replays.NotReplayable):
        replays.position(loaded(game))
    assert not Snapshot.objects.filter(game=game).exists()
    Move.objects.filter(game=game, version=Move.objects.filter(game=game).order_by("version")[3].version).update(
        move={"type": "bid", "card": 99}
    )
    with pytest.raises(replays.NotReplayable):
        replays.position(loaded(game))
