"""What the computer players do: the evaluation follows the scoring rules, and the greedy and strong
players take the plain good move in positions laid out by hand (at_action: seat 0 plays red and
has taken the card; the other seats play yellow, blue, …)."""

import random

import pytest

from games.bots import choose_move
from games.bots.evaluate import NOW, area_points, chance_tables, evaluate
from games.engine import apply_move, legal_moves, new_game, to_act, view_for
from games.engine.board import REGIONS
from games.engine.scoring import rank_groups, rank_points, sole_leader, values_in_play
from tests.support.engine_builders import at_action, lay_out

# --- the evaluation ---------------------------------------------------------------------------------


def test_ranks_of_a_scoring_that_happens_now_are_the_rules_ranks():
    """Ties included (a tied group takes the next value, however many tie; 5/3/1 with 4,4,4,3
    gives 3,3,3,1), and the King's and home bonuses go to the sole leader alone."""
    rng = random.Random(1)
    for _ in range(5000):
        n = rng.randint(2, 5)
        counts = [rng.choice([0, 0, 1, 2, 3, 3, 4, 5]) for _ in range(n)]
        values = values_in_play(rng.choice([(5, 3, 1), (6, 4, 2), (4, 2, 0), (8, 4, 0), (4, 0, 0)]), n)
        king = rng.random() < 0.3
        homes = tuple(rng.random() < 0.3 for _ in range(n))
        points = area_points(counts, values, chance_tables(NOW), king, homes)
        exact = rank_points(dict(enumerate(counts)), values, n)
        leader = sole_leader(rank_groups({s: c for s, c in enumerate(counts) if c}))
        for s in range(n):
            bonus = 2 * (king + homes[s]) if s == leader else 0
            assert points[s] == pytest.approx(exact.get(s, 0) + bonus), (counts, values)
    assert area_points([4, 4, 4, 3], (5, 3, 1), chance_tables(NOW), False, (False,) * 4) == [3, 3, 3, 1]


def test_a_lead_counts_for_less_the_further_away_its_scoring():
    values = (5, 3)
    homes = (False, False, False)
    near = area_points([3, 2, 0], values, chance_tables(0.3), False, homes)
    far = area_points([3, 2, 0], values, chance_tables(2.5), False, homes)
    assert 3 < far[0] < near[0] <= 5
    assert 5 > far[1] > near[1] >= 3
    wide = area_points([6, 2, 0], values, chance_tables(2.5), False, homes)
    assert wide[0] > far[0]


def test_the_evaluation_prefers_the_seat_that_leads_more_regions():
    state = at_action("veto", num_players=3, caballeros={"galicia": {"red": 2, "yellow": 2, "blue": 2}})
    ahead = lay_out(state, caballeros={"aragon": {"red": 4, "yellow": 1}, "granada": {"red": 3}})
    behind = lay_out(state, caballeros={"aragon": {"red": 1, "yellow": 4}, "granada": {"yellow": 3}})
    assert evaluate(ahead, 0) > evaluate(state, 0) > evaluate(behind, 0)
    assert evaluate(ahead, 1) < evaluate(state, 1) < evaluate(behind, 1)


# --- the greedy player ------------------------------------------------------------------------------


def greedy(state, seat=0, index=0):
    return choose_move(view_for(state, seat), "greedy", random.Random(index))


def last_turn(state, round_):
    """The position with red (seat 0) playing the last turn of that round."""
    state = state.clone()
    state.round = round_
    state.turn_order = [s for s in range(1, state.num_players)] + [0]
    state.turn_index = state.num_players - 1
    state.taken = [state.taken[0]] + [None] * (state.num_players - 1)
    return state


def whole_turn(state, level="greedy", seat=0):
    """The moves the player makes to finish its turn in the action phase."""
    moves = []
    while state.phase == "action" and state.current_player == seat:
        move = choose_move(view_for(state, seat), level, random.Random(len(moves)), iterations=2)
        moves.append(move)
        state = apply_move(state, seat, move)
    return moves


def test_the_greedy_player_scores_the_region_it_leads():
    state = at_action(
        "score_one_region",
        num_players=3,
        king="galicia",
        caballeros={"new_castile": {"red": 5, "yellow": 1}, "granada": {"yellow": 4}, "aragon": {"blue": 4}},
        court={"red": 0},
    )
    assert {"type": "special", "region": "new_castile"} in whole_turn(state)


def test_the_greedy_player_places_to_take_a_region_from_its_rival():
    """The last turn of the game, two players (the first value alone counts), court of 2, card of
    stack 2; King in Galicia: Old Castile and the Basque Country lie next to him. Yellow leads Old
    Castile (6 points) by one; the Basque Country (5) is empty."""
    state = at_action(
        "veto",
        num_players=2,
        king="galicia",
        caballeros={"old_castile": {"yellow": 2, "red": 1}},
        court={"red": 2},
    )
    state = last_turn(state, 9)
    assert {"type": "place", "to": {"old_castile": 2}} in whole_turn(state)


def test_the_greedy_player_vetoes_a_scoring_that_feeds_its_rival_and_allows_one_that_feeds_it():
    def scored_by_yellow(leader):
        state = at_action(
            "score_one_region",
            num_players=3,
            king="galicia",
            caballeros={"new_castile": {leader: 5}},
        )
        # Seat 1 (yellow) takes the turn: seat 0 (red) holds a Veto kept this round.
        state = state.clone()
        state.turn_order = [1, 0, 2]
        state.taken = [None, "score_one_region", None]
        state.vetoes = [[0, state.round]]
        state = apply_move(state, 1, {"type": "special", "region": "new_castile"})
        assert to_act(state) == [0]
        return state

    assert greedy(scored_by_yellow("yellow")) == {"type": "veto", "cut": 0}
    assert greedy(scored_by_yellow("red")) == {"type": "allow"}


def test_the_greedy_player_sends_its_castillo_caballeros_where_they_win_the_region():
    """Two players: only the first value counts. Red's 3 Castillo caballeros make New Castile
    (7 points) red's instead of yellow's; an empty region would only add its own first value."""
    state = at_action(
        "veto",
        num_players=2,
        king="galicia",
        caballeros={"castillo": {"red": 3}, "new_castile": {"yellow": 4, "red": 2}, "aragon": {"yellow": 3}},
    )
    state = last_turn(state, 3)  # a general scoring follows
    for move in ({"type": "special"}, {"type": "place", "to": {}}):
        state = apply_move(state, 0, move)
    assert state.phase == "castillo" and to_act(state) == [0]
    assert greedy(state) == {"type": "choose_region", "region": "new_castile"}


# --- the strong player ------------------------------------------------------------------------------


def test_the_strong_player_also_scores_the_region_it_leads():
    state = at_action(
        "score_one_region",
        num_players=3,
        king="galicia",
        caballeros={"new_castile": {"red": 5, "yellow": 1}, "granada": {"yellow": 4}, "aragon": {"blue": 4}},
        court={"red": 0},
    )
    assert {"type": "special", "region": "new_castile"} in whole_turn(state, "strong")


def test_the_strong_players_move_is_one_of_the_legal_ones_and_repeats_with_its_seed():
    state = new_game(3, seed=8)
    view = view_for(state, to_act(state)[0])
    first = choose_move(view, "strong", random.Random(4), iterations=2)
    assert first in legal_moves(state, view["seat"])
    assert choose_move(view, "strong", random.Random(4), iterations=2) == first


# --- the interface ----------------------------------------------------------------------------------


def test_a_computer_player_answers_only_for_a_seat_that_must_decide():
    state = new_game(3, seed=2)
    waiting = next(s for s in range(3) if s not in to_act(state))
    with pytest.raises(ValueError, match="nothing to decide"):
        choose_move(view_for(state, waiting), "greedy", random.Random(0))
    with pytest.raises(ValueError, match="no computer player level"):
        choose_move(view_for(state, to_act(state)[0]), "grandmaster", random.Random(0))


def test_a_move_without_a_choice_is_made_at_once():
    """Red bids 11 (1 to court) with nobody left in the provinces or the regions: moving nobody to
    court is all red can do, whatever the level."""
    state = new_game(3, seed=2)
    red = state.colours[0]
    home = REGIONS[state.grandes[0]]
    state = lay_out(state, caballeros={home: {}, "castillo": {red: 23}})
    for _ in range(3):
        seat = to_act(state)[0]
        state = apply_move(state, seat, {"type": "bid", "card": {0: 11, 1: 1, 2: 2}[seat]})
    assert state.phase == "court" and to_act(state) == [0] and state.provinces[0] == 0
    assert legal_moves(state, 0) == [{"type": "court", "count": 0}]
    for level in ("random", "greedy", "strong"):
        assert choose_move(view_for(state, 0), level, random.Random(0)) == {"type": "court", "count": 0}
