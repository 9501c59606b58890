"""Setup, bidding, the turn (court, card), the end of a round, general-scoring rounds, the end, and
the refusal of bad moves (docs/rules.md: What each player has, Setting up, One round)."""

import collections

import pytest

from games.engine import IllegalMove, apply_move, legal_moves, new_game, to_act, view_for
from games.engine.board import AREA_INDEX, REGIONS
from games.engine.cards import CARDS
from games.words.refusals import refusal_message
from tests.support.engine_builders import at_action, frozen, game, lay_out, play, quiet, quiet_move
from tests.support.engine_positions import play_to_turn, shortfall_state

POWER_TABLE = {1: 6, 2: 5, 3: 5, 4: 4, 5: 4, 6: 3, 7: 3, 8: 2, 9: 2, 10: 1, 11: 1, 12: 0, 13: 0}

# docs/rules.md, "The action cards": the composition of stacks 1-4 (stack 5 is the King card).
STACK_COMPOSITION = {
    1: {
        "intrigue_own_region": 1,
        "intrigue_court_2": 1,
        "intrigue_court_2_or_own_region": 1,
        "intrigue_5_from_region": 2,
        "intrigue_3_foreign": 1,
        "intrigue_3_any": 1,
        "intrigue_2_own_2_foreign": 2,
        "intrigue_4_own": 1,
        "intrigue_4_any": 1,
    },
    2: {
        "veto": 2,
        "decay_all": 1,
        "decay_3": 1,
        "king_returns": 1,
        "one_each_to_provinces": 1,
        "secret_two_to_provinces": 1,
        "secret_all_to_provinces": 1,
        "score_one_region": 3,
    },
    3: {
        "score_fours": 2,
        "score_fives": 2,
        "score_six_sevens": 1,
        "score_castillo": 2,
        "score_first_only": 1,
        "score_most": 1,
        "score_least": 1,
        "score_any_region": 1,
    },
    4: {
        "mobile_scoreboard": 3,
        "royal_adviser": 1,
        "eviction": 1,
        "move_grande": 2,
        "retake_power_card": 2,
        "court_2": 1,
        "secret_unique_scoring": 1,
    },
}


# --- drivers --------------------------------------------------------------------------------------


def play_round(state, bids=None, events=None):
    """Bid (given values by seat, else the highest free card), then play every turn quietly; the
    events of these moves are added to `events`, if given."""
    bids = bids or {}
    start = state.round
    while state.phase == "bid":
        seat = to_act(state)[0]
        move = {"type": "bid", "card": bids[seat]} if seat in bids else quiet_move(state, seat)
        state = play(state, seat, move, events)
    while state.round == start and not state.is_over:
        state = quiet(state, events)
    return state


# --- setup ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", range(12))
def test_setup_places_king_homes_and_caballeros(num_players, seed):
    state = new_game(num_players, seed=seed)
    assert state.king not in state.grandes
    assert len(set(state.grandes)) == num_players
    assert all(0 <= home < len(REGIONS) for home in state.grandes)
    assert len(set(state.colours)) == num_players
    assert set(state.colours) <= {"red", "yellow", "blue", "green", "brown"}
    for seat in range(num_players):
        for area in range(len(REGIONS) + 1):
            expected = 2 if area == state.grandes[seat] else 0
            assert state.caballeros[area][seat] == expected
        assert state.court[seat] == 7
        assert state.provinces[seat] == 21
        assert state.scores[seat] == 0
        assert state.hands[seat] == list(range(1, 14))
        assert state.played[seat] == []
    assert state.round == 1
    assert state.phase == "bid"
    assert 0 <= state.first_bidder < num_players
    assert to_act(state) == [state.first_bidder]
    assert state.mobile == [None, None]
    assert state.vetoes == []


def test_new_game_leaves_the_setup_events():
    state = new_game(4, seed=3)
    assert [e["event"] for e in state.events] == ["setup", "round"]
    setup, first_round = state.events
    assert setup == {
        "event": "setup",
        "round": 0,
        "colours": state.colours,
        "homes": [REGIONS[home] for home in state.grandes],
        "king": REGIONS[state.king],
        "first_bidder": state.first_bidder,
    }
    assert first_round == {"event": "round", "round": 1, "cards": state.display, "first_bidder": state.first_bidder}
    after = apply_move(state, to_act(state)[0], {"type": "bid", "card": 5})
    assert after.events == [{"event": "bid", "round": 1, "seat": state.first_bidder, "card": 5}]
    assert "log" not in view_for(after, None) and "events" not in after.to_json()


def test_setup_king_and_first_bidder_vary_with_the_seed():
    kings = {new_game(4, seed=seed).king for seed in range(60)}
    first = {new_game(4, seed=seed).first_bidder for seed in range(60)}
    homes = {tuple(new_game(4, seed=seed).grandes) for seed in range(60)}
    assert len(kings) == 9
    assert first == {0, 1, 2, 3}
    assert len(homes) > 30


@pytest.mark.parametrize("veto", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_stacks_have_the_catalogue_composition(veto, seed):
    state = new_game(4, seed=seed, veto=veto)
    assert state.display[-1] == "king_card"
    assert len(state.display) == 5
    for index, stack in enumerate(state.stacks):
        number = index + 1
        cards = collections.Counter(stack + [state.display[index]])
        expected = dict(STACK_COMPOSITION[number])
        if not veto and number == 2:
            del expected["veto"]
        assert dict(cards) == expected
        assert len(stack) == sum(expected.values()) - 1
    total = sum(len(stack) for stack in state.stacks) + len(state.display)
    assert total == (45 if veto else 43)


def test_stacks_are_shuffled():
    orders = {tuple(tuple(s) for s in new_game(3, seed=seed).stacks) for seed in range(20)}
    assert len(orders) == 20
    state = new_game(3, seed=3)
    for stack in state.stacks:
        runs = sum(1 for a, b in zip(stack, stack[1:]) if a == b)
        assert runs < len(stack) - 3  # not grouped by kind


def test_veto_off_never_offers_a_veto_card():
    for seed in range(15):
        state = new_game(3, seed=seed, veto=False)
        for _ in range(9):
            assert "veto" not in state.display
            state = play_round(state)
            if state.is_over:
                break


def test_new_game_is_deterministic_from_the_seed():
    for seed in (0, 7, 12345):
        a = new_game(5, seed=seed, short_game=True)
        b = new_game(5, seed=seed, short_game=True)
        assert a == b
        assert frozen(a) == frozen(b)


def test_different_seeds_differ():
    states = [new_game(4, seed=seed) for seed in range(30)]
    serialized = {frozen(s).replace(f'"seed": {s.seed}', "") for s in states}
    assert len(serialized) == 30


def test_options_are_stored():
    state = new_game(2, seed=1, short_game=True, veto=False, show_castillo=True)
    assert (state.short_game, state.veto_enabled, state.show_castillo) == (True, False, True)
    assert state.num_rounds == 6
    assert view_for(state, 0)["options"] == {"num_players": 2, "short_game": True, "veto": False, "show_castillo": True}


@pytest.mark.parametrize("players", [1, 6, 0, True, "4"])
def test_new_game_refuses_impossible_player_counts(players):
    with pytest.raises(ValueError):
        new_game(players, seed=1)


# --- bidding --------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_bidding_goes_clockwise_from_the_first_bidder(num_players):
    state = new_game(num_players, seed=num_players * 11)
    first = state.first_bidder
    seen = []
    for value in range(1, num_players + 1):
        seat = to_act(state)[0]
        seen.append(seat)
        state = apply_move(state, seat, {"type": "bid", "card": value})
    assert seen == [(first + i) % num_players for i in range(num_players)]


def test_a_value_played_this_round_cannot_be_played_again():
    state = new_game(4, seed=2)
    seat = to_act(state)[0]
    state = apply_move(state, seat, {"type": "bid", "card": 9})
    second = to_act(state)[0]
    before = frozen(state)
    with pytest.raises(IllegalMove, match="power_card_already_played"):
        apply_move(state, second, {"type": "bid", "card": 9})
    assert frozen(state) == before
    assert {"type": "bid", "card": 9} not in legal_moves(state, second)
    assert len(legal_moves(state, second)) == 12


def test_a_card_played_in_an_earlier_round_is_not_in_hand():
    state = new_game(3, seed=4)
    bids = {0: 11, 1: 6, 2: 3}
    state = play_round(state, bids)
    assert state.round == 2
    for seat, value in bids.items():
        assert value not in state.hands[seat]
        assert state.played[seat] == [value]
        assert len(state.hands[seat]) == 12
    seat = to_act(state)[0]
    with pytest.raises(IllegalMove, match="power_card_not_in_hand"):
        apply_move(state, seat, {"type": "bid", "card": bids[seat]})
    assert {"type": "bid", "card": bids[seat]} not in legal_moves(state, seat)


@pytest.mark.parametrize(
    "bids",
    [{0: 5, 1: 12, 2: 1, 3: 8}, {0: 13, 1: 1, 2: 2, 3: 3}, {0: 2, 1: 4, 2: 6, 3: 10}],
)
def test_turn_order_is_by_value_descending(bids):
    state = new_game(4, seed=3)
    while state.phase == "bid":
        seat = to_act(state)[0]
        state = apply_move(state, seat, {"type": "bid", "card": bids[seat]})
    expected = sorted(bids, key=lambda s: -bids[s])
    assert state.turn_order == expected
    assert state.current_player == expected[0]
    assert to_act(state) == [expected[0]]


@pytest.mark.parametrize("bids, lowest", [({0: 5, 1: 12, 2: 1}, 2), ({0: 2, 1: 9, 2: 7}, 0), ({0: 13, 1: 3, 2: 8}, 1)])
def test_next_rounds_first_bidder_played_the_lowest_card(bids, lowest):
    state = new_game(3, seed=5)
    state = play_round(state, bids)
    assert state.round == 2
    assert state.first_bidder == lowest
    assert to_act(state) == [lowest]


# --- the court move ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", range(1, 12))
def test_court_moves_up_to_the_power_cards_number(value):
    other = 13 if value != 13 else 12
    state = play_to_turn(new_game(2, seed=8), 0, {0: value, 1: other})
    assert state.phase == "court"
    allowance = POWER_TABLE[value]
    assert view_for(state, 0)["decision"]["allowance"] == allowance
    assert [m["count"] for m in legal_moves(state, 0)] == list(range(allowance + 1))
    with pytest.raises(IllegalMove, match="court_too_many"):
        apply_move(state, 0, {"type": "court", "count": allowance + 1})
    after = apply_move(state, 0, {"type": "court", "count": allowance})
    assert after.court[0] == 7 + allowance
    assert after.provinces[0] == 21 - allowance
    assert after.phase == "card"
    fewer = apply_move(state, 0, {"type": "court", "count": 1})
    assert (fewer.court[0], fewer.provinces[0]) == (8, 20)


@pytest.mark.parametrize("value", [12, 13])
def test_power_cards_12_and_13_skip_the_court_move(value):
    other = 25 - value  # 13 -> 12, 12 -> 13
    state = play_to_turn(new_game(2, seed=8), 0, {0: value, 1: other})
    assert state.phase == "card"
    assert (state.court[0], state.provinces[0]) == (7, 21)


def test_shortfall_is_made_up_from_own_regions():
    state = shortfall_state()
    aragon = state.caballeros[AREA_INDEX["aragon"]][0]
    after = apply_move(state, 0, {"type": "court", "count": 4, "from_regions": {"aragon": 2, "seville": 1}})
    assert after.provinces[0] == 0
    assert after.court[0] == 7 + 4
    assert after.caballeros[AREA_INDEX["aragon"]][0] == aragon - 2
    assert after.caballeros[AREA_INDEX["seville"]][0] == 2
    assert after.phase == "card"
    # fewer than the allowance is fine too, once the provinces are emptied
    after = apply_move(state, 0, {"type": "court", "count": 2, "from_regions": {"seville": 1}})
    assert (after.provinces[0], after.court[0], after.caballeros[AREA_INDEX["seville"]][0]) == (0, 9, 2)


def test_shortfall_moves_are_listed():
    state = shortfall_state()
    moves = legal_moves(state, 0)
    assert {"type": "court", "count": 4, "from_regions": {"aragon": 2, "seville": 1}} in moves
    assert {"type": "court", "count": 1} in moves
    for move in moves:
        assert "galicia" not in move.get("from_regions", {})
        assert "castillo" not in move.get("from_regions", {})
        apply_move(state, 0, move)


@pytest.mark.parametrize(
    "move, message",
    [
        ({"count": 4, "from_regions": {"aragon": 2}}, "provinces_hold_only"),  # 2 from provinces, only 1 there
        ({"count": 1, "from_regions": {"aragon": 1}}, "court_regions_before_provinces_empty"),
        ({"count": 2, "from_regions": {"aragon": 2}}, "court_regions_before_provinces_empty"),
        ({"count": 4, "from_regions": {"aragon": 2, "galicia": 1}}, "king_region_closed"),
        ({"count": 4, "from_regions": {"aragon": 1, "castillo": 2}}, "castillo_closed"),
        ({"count": 5, "from_regions": {"seville": 4}}, "court_too_many .*most=4"),
        ({"count": 4, "from_regions": {"seville": 2, "aragon": 2}}, "court_regions_before_provinces_empty"),
        ({"count": 3, "from_regions": {"seville": 4}}, "court_regions_exceed_count"),
        ({"count": 4, "from_regions": {"granada": 3}}, "region_holds_only .*count=0"),
        ({"count": 5, "from_regions": {"aragon": 4}}, "court_too_many .*most=4"),
    ],
)
def test_shortfall_rule_refusals(move, message):
    state = shortfall_state()
    before = frozen(state)
    with pytest.raises(IllegalMove, match=message):
        apply_move(state, 0, {"type": "court", **move})
    assert frozen(state) == before


def test_regions_are_not_touched_while_the_provinces_suffice():
    state = game(3, seed=9, colours=["red", "blue", "green"])
    state = play_to_turn(state, 0, {0: 4, 1: 13, 2: 12})
    home = REGIONS[state.grandes[0]]
    with pytest.raises(IllegalMove, match="court_regions_before_provinces_empty"):
        apply_move(state, 0, {"type": "court", "count": 4, "from_regions": {home: 1}})
    assert all("from_regions" not in move for move in legal_moves(state, 0))


# --- taking a card ----------------------------------------------------------------------------------


def at_card_phase():
    state = new_game(4, seed=10)
    state = play_to_turn(state, 0, {0: 13, 1: 12, 2: 11, 3: 10})
    assert state.phase == "card"
    return state


def test_taking_a_card_is_compulsory():
    state = at_card_phase()
    before = frozen(state)
    for move in ({"type": "decline"}, {"type": "place", "to": {}}, {"type": "court", "count": 0}):
        with pytest.raises(IllegalMove, match="wrong_move .*expected='card'"):
            apply_move(state, 0, move)
    assert frozen(state) == before
    assert legal_moves(state, 0) == [{"type": "take_card", "card": card} for card in dict.fromkeys(state.display)]


def test_only_an_offered_card_can_be_taken():
    state = at_card_phase()
    hidden = state.stacks[0][-1]
    for card in ("no_such_card", hidden if hidden not in state.display else "veto_x", None, 3):
        with pytest.raises(IllegalMove, match="card_not_on_offer"):
            apply_move(state, 0, {"type": "take_card", "card": card})
    card = state.display[1]
    after = apply_move(state, 0, {"type": "take_card", "card": card})
    assert after.taken[0] == card
    assert card not in after.display or after.display.count(card) == state.display.count(card) - 1
    assert len(after.display) == 4
    assert after.phase == "action"


def test_a_taken_card_is_no_longer_offered_to_the_next_player():
    state = at_card_phase()
    card = state.display[2]
    state = apply_move(state, 0, {"type": "take_card", "card": card})
    state = apply_move(state, 0, {"type": "decline"})
    state = apply_move(state, 0, {"type": "place", "to": {}})
    assert state.current_player == 1
    state = apply_move(state, 1, {"type": "court", "count": 0}) if state.phase == "court" else state
    assert state.phase == "card"
    assert card not in state.display
    assert {"type": "take_card", "card": card} not in legal_moves(state, 1)
    assert_refused(state, 1, {"type": "take_card", "card": card}, "card_not_on_offer")


def test_the_last_card_is_taken_automatically():
    state = new_game(5, seed=11)
    state = play_to_turn(state, 4, {0: 13, 1: 12, 2: 11, 3: 10, 4: 1})
    # seat 4 moves to court, then the single card left is taken for it
    assert state.phase == "court"
    assert len(state.display) == 1
    last = state.display[0]
    state = apply_move(state, 4, {"type": "court", "count": 0})
    assert state.phase == "action"
    assert state.taken[4] == last
    assert state.display == []


def test_each_round_turns_up_one_card_per_stack_and_the_king_card():
    state = new_game(2, seed=12)
    for number in range(1, 6):
        assert state.round == number
        assert len(state.display) == 5
        assert state.display[-1] == "king_card"
        for index, card in enumerate(state.display[:4]):
            assert card in STACK_COMPOSITION[index + 1]
        assert [len(stack) for stack in state.stacks] == [11 - number] * 4
        state = play_round(state)


def test_king_card_taken_comes_back_next_round():
    state = new_game(2, seed=13)
    state = play_to_turn(state, 0, {0: 13, 1: 12})
    state = apply_move(state, 0, {"type": "take_card", "card": "king_card"})
    state = apply_move(state, 0, {"type": "decline"})
    state = apply_move(state, 0, {"type": "place", "to": {}})
    assert "king_card" not in state.display
    offered = list(state.display)
    events = []
    state = play_round(state, events=events)  # the rest of the round
    assert state.round == 2
    assert state.display[-1] == "king_card"
    discard = [e for e in events if e["event"] == "discard"]
    assert len(discard) == 1 and "king_card" not in discard[0]["cards"]
    assert len(discard[0]["cards"]) == 3 and set(discard[0]["cards"]) <= set(offered)


def test_unused_round_cards_never_come_back():
    state = new_game(3, seed=14)
    offered = list(state.display[:4])
    state = play_round(state)
    # 3 players took 3 of the 5; the unused ones are gone from every stack and from the display
    left = [c for c in offered if c not in [state.taken[s] for s in range(3)]]
    assert state.round == 2
    for stack in state.stacks:
        assert len(stack) == 9
    composition = collections.Counter(card for stack in state.stacks for card in stack) + collections.Counter(
        state.display[:4]
    )
    full = collections.Counter()
    for number in (1, 2, 3, 4):
        full.update(STACK_COMPOSITION[number])
    assert sum((full - composition).values()) == 4
    assert len(left) >= 1


# --- general scoring rounds and the end ------------------------------------------------------------


@pytest.mark.parametrize("short_game, rounds", [(True, [2, 4, 6]), (False, [3, 6, 9])])
@pytest.mark.parametrize("num_players", [2, 5])
def test_general_scorings_follow_the_track_and_the_game_ends_after_the_third(short_game, rounds, num_players):
    state = new_game(num_players, seed=15, short_game=short_game)
    assert state.scoring_rounds == tuple(rounds)
    scored = []
    events = list(state.events)
    while not state.is_over:
        before = state.scorings_done
        round_played = state.round
        state = play_round(state, events=events)
        if state.scorings_done != before:
            assert state.scorings_done == before + 1
            scored.append(round_played)
    assert scored == rounds
    assert state.round == rounds[-1]
    assert state.scorings_done == 3
    assert state.phase == "over"
    assert to_act(state) == []
    assert [e["round"] for e in events if e["event"] == "general_scoring"] == rounds
    assert [e["round"] for e in events if e["event"] == "round"] == list(range(1, rounds[-1] + 1))
    assert events[-1]["event"] == "game_over" and state.events[-1] == events[-1]
    assert [e for e in events if e["event"] == "game_over"] == [events[-1]]
    view = view_for(state, 0)
    assert view["is_over"] is True
    assert view["next_scoring"] == rounds[-1]


def test_no_move_is_accepted_after_the_end():
    state = new_game(2, seed=16, short_game=True)
    while not state.is_over:
        state = play_round(state)
    before = frozen(state)
    for seat in (0, 1):
        for move in ({"type": "bid", "card": 13}, {"type": "decline"}, {"type": "allow"}):
            with pytest.raises(IllegalMove, match="game_over"):
                apply_move(state, seat, move)
        assert legal_moves(state, seat) == []
    assert frozen(state) == before


def test_final_ranking_shares_places():
    state = new_game(4, seed=17, short_game=True)
    while not state.is_over:
        state = play_round(state)
    state = state.clone()
    state.scores = [30, 41, 30, 12]
    assert view_for(state, None)["ranking"] == [[1, 1], [2, 0], [2, 2], [4, 3]]
    state.scores = [20, 20, 20, 20]
    assert view_for(state, 2)["ranking"] == [[1, 0], [1, 1], [1, 2], [1, 3]]
    state.scores = [5, 9, 9, 1]
    assert [place for place, _seat in view_for(state, 0)["ranking"]] == [1, 1, 3, 4]
    assert {seat for place, seat in view_for(state, 0)["ranking"] if place == 1} == {1, 2}


def test_game_over_log_ranks_by_score():
    state = new_game(3, seed=18, short_game=True)
    while not state.is_over:
        state = play_round(state)
    entry = state.events[-1]
    assert entry["event"] == "game_over"
    ranking = entry["ranking"]
    assert ranking == view_for(state, None)["ranking"]
    assert sorted(seat for _place, seat in ranking) == [0, 1, 2]
    scores = [state.scores[seat] for _place, seat in ranking]
    assert scores == sorted(scores, reverse=True)
    for index, (place, seat) in enumerate(ranking):
        better = sum(1 for other in range(3) if state.scores[other] > state.scores[seat])
        assert place == better + 1, (index, ranking, state.scores)


def test_in_progress_views_have_no_ranking():
    state = new_game(3, seed=18)
    assert view_for(state, 0)["ranking"] is None


# --- refusing bad moves -----------------------------------------------------------------------------


def assert_refused(state, seat, move, match=None):
    before = frozen(state)
    with pytest.raises(IllegalMove) as info:
        apply_move(state, seat, move)
    error = info.value
    message = refusal_message(error)  # the English sentence the site shows
    assert len(message) > 10 and " " in message and error.code not in message, message
    if match:
        assert error.code == match, str(error)
    assert frozen(state) == before
    return message


def test_moves_out_of_turn_are_refused():
    state = new_game(4, seed=19)
    bidder = to_act(state)[0]
    for seat in range(4):
        if seat != bidder:
            assert_refused(state, seat, {"type": "bid", "card": 5}, "not_your_turn")
    state = play_to_turn(state, 0, {0: 13, 1: 12, 2: 11, 3: 10})
    assert_refused(state, 1, {"type": "take_card", "card": state.display[0]}, "not_your_turn")
    assert_refused(state, 3, {"type": "decline"}, "not_your_turn")


@pytest.mark.parametrize("seat", [-1, 4, 7, True, "0", None, 1.0])
def test_unknown_seats_are_refused(seat):
    state = new_game(4, seed=19)
    assert_refused(state, seat, {"type": "bid", "card": 5})


def test_moves_in_the_wrong_phase_are_refused():
    state = new_game(3, seed=20)
    bidder = to_act(state)[0]
    for move in (
        {"type": "court", "count": 1},
        {"type": "take_card", "card": state.display[0]},
        {"type": "place", "to": {}},
        {"type": "decline"},
        {"type": "special"},
        {"type": "allow"},
        {"type": "veto", "cut": 0},
        {"type": "choose_region", "region": "aragon"},
        {"type": "share", "from": {"court": 3}},
    ):
        assert_refused(state, bidder, move, "wrong_move")
    state = play_to_turn(state, 0, {0: 13, 1: 12, 2: 11})
    assert_refused(state, 0, {"type": "bid", "card": 5}, "wrong_move")
    assert_refused(state, 0, {"type": "choose_region", "region": "aragon"}, "wrong_move")


def test_place_and_special_are_each_allowed_once():
    state = new_game(2, seed=21)
    state = play_to_turn(state, 0, {0: 13, 1: 12})
    state = apply_move(state, 0, {"type": "take_card", "card": state.display[0]})
    state = apply_move(state, 0, {"type": "decline"})
    assert_refused(state, 0, {"type": "decline"}, "special_already_done")
    assert_refused(state, 0, {"type": "special"}, "special_already_done")


@pytest.mark.parametrize(
    "move",
    [
        None,
        "bid",
        ["bid", 5],
        ("bid", 5),
        5,
        {},
        {"type": None},
        {"type": "bids", "card": 5},
        {"type": "BID", "card": 5},
        {"type": 3},
        {"type": ["bid"]},
        {"type": {"bid": 1}},
        {"type": "bid"},
        {"type": "bid", "card": True},
        {"type": "bid", "card": "5"},
        {"type": "bid", "card": 5.0},
        {"type": "bid", "card": -3},
        {"type": "bid", "card": 0},
        {"type": "bid", "card": 14},
        {"type": "bid", "card": [5]},
    ],
)
def test_malformed_moves_in_bidding_are_refused(move):
    state = new_game(3, seed=22)
    assert_refused(state, to_act(state)[0], move)


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"count": True},
        {"count": False},
        {"count": "2"},
        {"count": -1},
        {"count": 1.5},
        {"count": None},
        {"count": 1, "from_regions": ["aragon"]},
        {"count": 1, "from_regions": {"atlantis": 1}},
        {"count": 1, "from_regions": {"aragon": -1}},
        {"count": 1, "from_regions": {"aragon": True}},
        {"count": 1, "from_regions": {"aragon": "1"}},
    ],
)
def test_malformed_court_moves_are_refused(fields):
    state = new_game(3, seed=23)
    state = play_to_turn(state, 0, {0: 4, 1: 13, 2: 12})
    assert state.phase == "court"
    assert_refused(state, 0, {"type": "court", **fields})


@pytest.mark.parametrize(
    "to",
    [
        ["aragon"],
        "aragon",
        {"atlantis": 1},
        {"aragon": -1},
        {"aragon": True},
        {"aragon": "1"},
        {"aragon": 1.0},
        {"aragon": None},
        {3: 1},
        {"castillo": 99},
    ],
)
def test_malformed_placements_are_refused(to):
    state = lay_out(new_game(3, seed=24), king="new_castile")
    state = play_to_turn(state, 0, {0: 13, 1: 12, 2: 11})
    state = apply_move(state, 0, {"type": "take_card", "card": state.display[0]})
    assert_refused(state, 0, {"type": "place", "to": to})


def test_placement_limits():
    state = lay_out(game(3, seed=24), king="galicia")
    state = play_to_turn(state, 0, {0: 13, 1: 12, 2: 11})
    state = state.clone()
    state.display[2] = "score_castillo"  # stack 3: places up to 3
    state = apply_move(state, 0, {"type": "take_card", "card": "score_castillo"})
    decision = view_for(state, 0)["decision"]
    assert decision["place_limit"] == 3
    assert set(decision["place_areas"]) == {"basque", "old_castile", "castillo"}
    assert_refused(state, 0, {"type": "place", "to": {"basque": 4}}, "place_too_many")
    assert_refused(state, 0, {"type": "place", "to": {"basque": 2, "castillo": 2}}, "place_too_many")
    assert_refused(state, 0, {"type": "place", "to": {"aragon": 1}}, "place_not_next_to_king")
    assert_refused(state, 0, {"type": "place", "to": {"galicia": 1}}, "place_not_next_to_king")
    after = apply_move(state, 0, {"type": "place", "to": {"basque": 1, "old_castile": 1, "castillo": 1}})
    assert after.court[0] == state.court[0] - 3
    castillo = AREA_INDEX["castillo"]
    assert after.caballeros[castillo][0] == state.caballeros[castillo][0] + 1
    assert_refused(after, 0, {"type": "place", "to": {}}, "already_placed")


@pytest.mark.parametrize(
    "region",
    [None, "atlantis", "castillo", 3, ["aragon"], True, "ARAGON"],
)
def test_malformed_castillo_choices_are_refused(region):
    state = new_game(3, seed=25)
    state = play_round(state)
    state = play_round(state)
    state = lay_out(state, caballeros={"castillo": {state.colours[0]: 2}})
    while state.phase != "castillo":
        state = quiet(state)
    assert to_act(state) == [0]
    assert_refused(state, 0, {"type": "choose_region", "region": region})
    assert_refused(state, 1, {"type": "choose_region", "region": "aragon"}, "not_your_turn")


JUNK = [None, True, -1, 2.5, "x", "castillo", [], ["aragon"], {}, {"aragon": -1}, [{"from": "aragon"}], ["red", "red"]]
FIELDS = ["plan", "region", "to", "option", "order", "picks", "scoreboard", "card"]


@pytest.mark.parametrize("card", sorted(CARDS))
def test_malformed_special_fields_are_refused_or_harmless(card):
    state = at_action(card, caballeros={"aragon": {"red": 2, "yellow": 2, "blue": 1}, "basque": {"red": 1}})
    before = frozen(state)
    for field in FIELDS:
        for junk in JUNK:
            for extra in ({}, {"option": "court"}, {"option": "own_region"}):
                try:
                    apply_move(state, 0, {"type": "special", **extra, field: junk})
                except IllegalMove as error:
                    assert error.code and refusal_message(error)
    assert frozen(state) == before
