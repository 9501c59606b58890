"""Properties over many random games (hypothesis draws the seeds and options; random_move plays).

Every transition keeps the rules' invariants (docs/rules.md: conservation, the King's region is taboo,
nothing leaves the Castillo before a general scoring, scores never fall); every game ends after its
last general scoring; states round-trip through JSON; games replay from seed and moves; and no
seat's view reveals another seat's private facts.
"""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import GameState, apply_move, legal_moves, new_game, random_move, to_act, view_for, visible_events
from games.engine.board import CASTILLO_INDEX, REGIONS
from tests.support.engine_positions import perturb
from tests.support.examples import examples

MAX_MOVES = 5000  # a 5-player 9-round game takes a few hundred moves

games = st.fixed_dictionaries(
    {
        "num_players": st.integers(2, 5),
        "seed": st.integers(0, 2**32 - 1),
        "short_game": st.booleans(),
        "veto": st.booleans(),
        "show_castillo": st.booleans(),
        "play": st.integers(0, 2**32 - 1),
    }
)


def options(params):
    return {k: params[k] for k in ("short_game", "veto", "show_castillo")}


def transitions(params):
    """Play one random game; yield (before, seat, move, after) for every move."""
    state = new_game(params["num_players"], seed=params["seed"], **options(params))
    rng = random.Random(params["play"])
    for _ in range(MAX_MOVES):
        if state.is_over:
            return
        seat = rng.choice(to_act(state))
        move = random_move(state, seat, rng)
        after = apply_move(state, seat, move)
        yield state, seat, move, after
        state = after
    raise AssertionError(f"no end after {MAX_MOVES} moves")


def fast(max_examples):
    return settings(
        max_examples=examples(max_examples),
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


# --- the rules' invariants ---------------------------------------------------------------------------


def check_conservation(state):
    for seat in range(state.num_players):
        on_board = sum(state.caballeros[area][seat] for area in range(len(REGIONS) + 1))
        assert on_board + state.court[seat] + state.provinces[seat] == 30, (seat, state)
        assert state.court[seat] >= 0 and state.provinces[seat] >= 0
        assert all(row[seat] >= 0 for row in state.caballeros)


def check_transition(before, after, seat, move):
    check_conservation(after)
    assert all(b <= a for b, a in zip(before.scores, after.scores)), "a score fell"
    scored = after.scorings_done > before.scorings_done
    assert after.scorings_done - before.scorings_done in (0, 1)
    if before.king == after.king:
        king = before.king
        assert before.caballeros[king] == after.caballeros[king], (move, "the King's region changed")
        assert [g == king for g in before.grandes] == [g == king for g in after.grandes], "a Grande crossed"
        assert [m == king for m in before.mobile] == [m == king for m in after.mobile], "a scoreboard crossed"
    if scored:
        assert after.caballeros[CASTILLO_INDEX] == [0] * after.num_players
    else:
        assert all(b <= a for b, a in zip(before.caballeros[CASTILLO_INDEX], after.caballeros[CASTILLO_INDEX])), (
            "a caballero left the Castillo"
        )
    assert after.round >= before.round
    check_events(before, after)
    if after.is_over:
        assert after.round == after.num_rounds and after.scorings_done == 3
    else:
        assert after.scorings_done == sum(1 for r in after.scoring_rounds if r < after.round)
        assert to_act(after), "nobody to act in a running game"


VETO_EVENTS = ("keep_veto", "veto_question", "allowed", "veto", "counter_veto", "veto_stands", "veto_expired")


def check_events(before, after):
    """The events of one move: plain JSON data, of this move's rounds only, never the setup again,
    private ones naming their seat, and points that add up to the scores' change."""
    events = after.events
    assert json.loads(json.dumps(events)) == events
    assert events is not before.events
    for event in events:
        assert isinstance(event["event"], str) and event["event"] != "setup", event
        assert before.round <= event["round"] <= after.round, event
        if event.get("private"):
            assert 0 <= event["seat"] < after.num_players, event
    gained = [0] * after.num_players
    for event in events:
        if event["event"] == "points":
            gained[event["seat"]] += event["points"]
    assert gained == [a - b for a, b in zip(after.scores, before.scores)], "points events and scores differ"


@fast(2000)
@given(games)
def test_random_games_keep_the_rules_invariants(params):
    state = None
    events = list(new_game(params["num_players"], seed=params["seed"], **options(params)).events)
    for before, seat, move, after in transitions(params):
        events.extend(after.events)
        if before.phase in ("bid", "card", "castillo") or (
            before.phase == "special" and before.action["stage"] != "veto"
        ):
            assert move in legal_moves(before, seat), (before.phase, move)
        check_transition(before, after, seat, move)
        state = after
    assert state.is_over
    assert state.round == state.num_rounds
    assert state.scorings_done == 3
    general = [e["round"] for e in events if e["event"] == "general_scoring"]
    assert general == list(state.scoring_rounds)
    assert [e["event"] for e in events].count("game_over") == 1 and events[-1]["event"] == "game_over"
    assert to_act(state) == []
    assert view_for(state, None)["ranking"] is not None
    if not params["veto"]:
        assert not any(e["event"] in VETO_EVENTS for e in events)


# --- persistence and replay --------------------------------------------------------------------------


def check_round_trip(state):
    data = state.to_json()
    assert GameState.from_json(data) == state
    text = json.dumps(data)
    assert GameState.from_json(json.loads(text)) == state
    assert json.loads(text) == data


@fast(600)
@given(games, st.floats(0.01, 0.1))
def test_states_round_trip_through_json_and_games_replay(params, rate):
    rng = random.Random(params["play"] ^ 0x7A7A)
    moves = []
    last = None
    for _before, seat, move, after in transitions(params):
        moves.append((seat, json.loads(json.dumps(move))))
        if rng.random() < rate:
            check_round_trip(after)
        last = after
    check_round_trip(last)
    replay = new_game(params["num_players"], seed=params["seed"], **options(params))
    for seat, move in moves:
        replay = apply_move(replay, seat, move)
    assert replay == last
    assert json.dumps(replay.to_json(), sort_keys=True) == json.dumps(last.to_json(), sort_keys=True)


# --- states are values --------------------------------------------------------------------------------


@fast(200)
@given(games)
def test_no_move_changes_a_state_made_before_it(params):
    """apply_move's state shares the lists a move seldom changes with the state before it
    (GameState.successor): the rules must put changed copies in their place. So every state of a
    game is, at the end, what it was when it was made, and a move made again gives the same state."""
    state = new_game(params["num_players"], seed=params["seed"], **options(params))
    rng = random.Random(params["play"])
    history = []
    while not state.is_over:
        seat = rng.choice(to_act(state))
        move = random_move(state, seat, rng)
        history.append((state, state.to_json(), seat, move))
        state = apply_move(state, seat, move)
    for before, made, _seat, move in history:
        assert before.to_json() == made, (made["phase"], move)
    before, _made, seat, move = history[rng.randrange(len(history))]
    assert apply_move(before, seat, move) == apply_move(before, seat, move)


@fast(100)
@given(games)
def test_playing_on_from_a_loaded_state_leaves_the_stored_data_as_it_was(params):
    """GameState.from_json takes the decoded data's lists as its own, uncopied: the moves made
    from it must leave the data (the site's stored state) as it was."""
    state = new_game(params["num_players"], seed=params["seed"], **options(params))
    rng = random.Random(params["play"])
    stored = None
    while not state.is_over:
        if stored is None and rng.random() < 0.02:
            stored = json.loads(json.dumps(state.to_json()))
            text = json.dumps(stored, sort_keys=True)
            state = GameState.from_json(stored)
        seat = rng.choice(to_act(state))
        state = apply_move(state, seat, random_move(state, seat, rng))
    if stored is not None:
        assert json.dumps(stored, sort_keys=True) == text


def test_a_clone_may_be_changed_in_place_without_changing_the_original():
    state = new_game(5, seed=8)
    rng = random.Random(8)
    while state.round < 4 or state.phase != "action":
        seat = rng.choice(to_act(state))
        state = apply_move(state, seat, random_move(state, seat, rng))
    made = state.to_json()
    other = state.clone()
    for field in ("grandes", "court", "provinces", "scores", "bids", "turn_order", "display", "taken", "mobile"):
        values = getattr(other, field)
        values[0] = values[-1] = "changed"
    for row in other.caballeros:
        row[0] += 1
    for rows in (other.caballeros, other.hands, other.played, other.stacks, other.vetoes):
        rows.append("added")
        rows[0] = "changed"
    assert state.to_json() == made


# --- private facts -----------------------------------------------------------------------------------


def castillo_moved(state, other):
    """{seat: change} for the seats whose Castillo count differs between the two states."""
    before, after = state.caballeros[CASTILLO_INDEX], other.caballeros[CASTILLO_INDEX]
    return {seat: after[seat] - before[seat] for seat in range(state.num_players) if after[seat] != before[seat]}


def check_views(state, rng):
    for viewer in list(range(state.num_players)) + [None]:
        view = view_for(state, viewer)
        text = json.dumps(view, sort_keys=True)
        assert json.loads(text) == view  # JSON-able as it is
        other = perturb(state, viewer, rng)
        assert list(map(sum, zip(*other.caballeros, other.court, other.provinces))) == [30] * state.num_players
        other_view = view_for(other, viewer)
        for seat, change in castillo_moved(state, other).items():
            # The caballero came from (or went to) the provinces, which are public: only they
            # may show the move; the Castillo itself must look the same.
            assert other_view["players"][seat]["provinces"] == view["players"][seat]["provinces"] - change
            other_view["players"][seat]["provinces"] = view["players"][seat]["provinces"]
        if state.is_over:
            # Once the game is over the Castillo is open to all (its last scoring showed it).
            assert other_view["castillo"]["caballeros"] == {
                other.colours[s]: n for s, n in enumerate(other.caballeros[CASTILLO_INDEX]) if n
            }
            other_view["castillo"] = view["castillo"]
        assert text == json.dumps(other_view, sort_keys=True), viewer
        castillo = view["castillo"]
        if state.show_castillo or state.is_over:
            shown = {state.colours[s]: n for s, n in enumerate(state.caballeros[CASTILLO_INDEX]) if n}
            assert castillo["caballeros"] == shown
        else:
            assert castillo["caballeros"] is None
        assert castillo["own"] == (state.caballeros[CASTILLO_INDEX][viewer] if viewer is not None else None)
        assert "log" not in view
        for entry in visible_events(state.events, viewer):
            assert not entry.get("private") or entry.get("seat") == viewer
        for player in view["players"]:
            assert set(player) >= {"hand_size", "played_top", "played_count"}
            assert "hand" not in player and "played" not in player
        if viewer is None:
            assert "hand" not in view and "played" not in view
        else:
            assert view["hand"] == sorted(state.hands[viewer])
        assert [s["remaining"] for s in view["stacks"]] == [len(s) for s in state.stacks]


def check_retake(before, after, seat, rng):
    """A power card taken back from below the top of the pile is named only to its owner, and an
    announced retake names the card to all only when it lies on top."""
    for owner in range(after.num_players):
        gained = [c for c in after.hands[owner] if c not in before.hands[owner]]
        for card in gained:
            if before.played[owner] and before.played[owner][-1] == card:
                continue
            for viewer in [s for s in range(after.num_players) if s != owner] + [None]:
                for entry in visible_events(after.events, viewer):
                    assert entry.get("card") != card or not entry["event"].startswith("retake"), entry
            private = [e for e in after.events if e["event"] == "retake_private"]
            assert [(e["seat"], e["card"]) for e in private] == [(owner, card)]
            assert private[0] in visible_events(after.events, owner)
    for entry in after.events:
        if entry["event"] == "veto_question":
            for step in entry.get("steps", []):
                if step["step"] == "retake" and "card" in step:
                    assert after.played[step["seat"]][-1] == step["card"], entry


@fast(250)
@given(games, st.floats(0.02, 0.15))
def test_no_view_reveals_another_seats_private_facts(params, rate):
    rng = random.Random(params["seed"] ^ 0x5EED)
    for before, seat, move, after in transitions(params):
        if before.phase == "special" or after.phase in ("special", "castillo") or rng.random() < rate:
            check_views(after, rng)
        if move.get("type") == "special" or before.phase == "special":
            check_retake(before, after, seat, rng)
