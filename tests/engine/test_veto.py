"""The Veto (docs/rules.md "The Veto"; seed 001, card rules 9 and 9.1-9.4, whose examples are tests here).

at_action gives seat 0 (red) the card; the other seats are yellow, blue, green, brown in order.
"""

import json

import pytest

from games.engine import apply_move, legal_moves, to_act, view_for
from games.engine.board import AREA_INDEX, REGIONS
from tests.support.engine_builders import game, play_to_action, quiet, refused
from tests.support.veto_positions import FOUR_MOVES, SEAT, at, holding, intrigue_position

NO_HOMES = {"red": "galicia", "yellow": "galicia", "blue": "galicia", "green": "galicia"}  # 4 players


def count(state, colour, area):
    return state.caballeros[AREA_INDEX[area]][SEAT[colour]]


def veto(cut=None):
    return {"type": "veto"} if cut is None else {"type": "veto", "cut": cut}


ALLOW = {"type": "allow"}


# --- 9.1: an action aimed at one player: the holder vetoes after the first moves ------------------------


def test_9_1_holder_vetoes_after_the_first_two_moves():
    state = apply_move(intrigue_position(), 0, FOUR_MOVES)
    assert state.phase == "special"
    assert to_act(state) == [SEAT["blue"]]
    pending = view_for(state, SEAT["blue"])["pending"]
    assert pending["kind"] == "veto" and pending["card"] == "intrigue_4_any" and pending["taker"] == 0
    assert len(pending["steps"]) == 4
    # nothing has moved while the plan is announced
    assert (count(state, "yellow", "aragon"), count(state, "blue", "aragon")) == (2, 2)
    assert view_for(state, SEAT["blue"])["decision"]["kind"] == "veto"
    assert veto(2) in legal_moves(state, SEAT["blue"])
    state = apply_move(state, SEAT["blue"], veto(2))
    # the first 2 moves stand, the other 2 never happen
    assert count(state, "yellow", "catalonia") == 1
    assert count(state, "blue", "catalonia") == 1
    assert count(state, "yellow", "basque") == 0
    assert count(state, "blue", "basque") == 0
    assert (count(state, "yellow", "aragon"), count(state, "blue", "aragon")) == (1, 1)
    assert state.vetoes == []
    assert state.phase == "action" and state.special_done
    assert any(e["event"] == "veto" and e["cut"] == 2 and e["seat"] == SEAT["blue"] for e in state.events)


def test_a_vetoed_action_still_leaves_the_takers_placement():
    state = apply_move(intrigue_position(), 0, FOUR_MOVES)
    state = apply_move(state, SEAT["blue"], veto(0))
    assert count(state, "yellow", "aragon") == 2 and count(state, "blue", "aragon") == 2
    assert state.phase == "action" and state.current_player == 0
    assert view_for(state, 0)["decision"]["can_place"] is True
    assert view_for(state, 0)["decision"]["can_special"] is False
    after = apply_move(state, 0, {"type": "place", "to": {"aragon": 1}})
    assert count(after, "red", "aragon") == 1
    assert after.court[0] == 4
    assert after.current_player != 0


def test_placement_before_the_vetoed_action_stands():
    state = apply_move(intrigue_position(), 0, {"type": "place", "to": {"granada": 1}})
    state = apply_move(state, 0, FOUR_MOVES)
    state = apply_move(state, SEAT["blue"], veto(0))
    assert count(state, "red", "granada") == 2
    assert state.current_player != 0  # the turn is over


def test_allowed_plan_runs_whole():
    state = apply_move(intrigue_position(), 0, FOUR_MOVES)
    state = apply_move(state, SEAT["blue"], ALLOW)
    assert count(state, "yellow", "basque") == 1 and count(state, "blue", "basque") == 1
    assert count(state, "yellow", "aragon") == 0 and count(state, "blue", "aragon") == 0
    assert state.vetoes == [[SEAT["blue"], 1]]  # an allow keeps the card


# --- 9.2: actions others carry out in turn ----------------------------------------------------------


def decay_position(holders=("blue",)):
    return at(
        "decay_all",
        holders,
        num_players=4,
        court={"red": 6, "yellow": 5, "blue": 4, "green": 3},
    )


def test_9_2_decay_in_the_takers_order_holder_vetoes_before_his_own_share():
    state = decay_position()
    state = apply_move(state, 0, {"type": "special", "order": ["green", "blue", "yellow"]})
    assert to_act(state) == [SEAT["blue"]]
    steps = view_for(state, None)["pending"]["steps"]
    assert [step["shifts"][0]["seat"] for step in steps] == [SEAT["green"], SEAT["blue"], SEAT["yellow"]]
    before = state.provinces[:]
    state = apply_move(state, SEAT["blue"], veto(1))
    # green (first in the order) sent the whole court; blue and the player after him keep theirs
    assert state.court == [6, 5, 4, 0]
    assert state.provinces[SEAT["green"]] == before[SEAT["green"]] + 3
    assert state.provinces[SEAT["blue"]] == before[SEAT["blue"]]


def test_9_2_veto_before_anybody_sends():
    state = apply_move(decay_position(), 0, {"type": "special", "order": ["green", "blue", "yellow"]})
    state = apply_move(state, SEAT["blue"], veto(0))
    assert state.court == [6, 5, 4, 3]


def test_9_2_default_order_is_clockwise_from_the_takers_left():
    state = apply_move(decay_position(holders=("green",)), 0, {"type": "special"})
    state = apply_move(state, SEAT["green"], veto(2))
    assert state.court == [6, 0, 0, 3]


def test_9_2_king_returns_in_five_players_third_player_vetoes():
    # Seed 001 §9.2: "the first and then the second player send 3 caballeros to the provinces, the
    # third plays a Veto card ... so the third and the fourth player send none".
    state = at(
        "king_returns",
        ("green",),
        num_players=5,
        court={"red": 5, "yellow": 5, "blue": 5, "green": 5, "brown": 5},
    )
    state = apply_move(state, 0, {"type": "special"})
    # Before each share the holder is asked; nobody has a choice of where from (court only).
    for sharer in ("yellow", "blue"):
        assert to_act(state) == [SEAT["green"]]
        assert view_for(state, None)["pending"]["before"] == SEAT[sharer]
        state = apply_move(state, SEAT["green"], ALLOW)
    assert view_for(state, None)["pending"]["before"] == SEAT["green"]
    state = apply_move(state, SEAT["green"], veto(0))
    # players 1 and 2 (yellow, blue) sent 3; the third (green, the holder) and the fourth (brown) keep theirs
    assert state.court == [5, 2, 2, 5, 5]
    assert state.provinces[SEAT["yellow"]] - state.provinces[SEAT["green"]] == 3
    assert state.phase == "action" and state.special_done


def test_9_2_king_returns_with_choices_then_the_veto():
    state = at(
        "king_returns",
        ("green",),
        num_players=5,
        caballeros={"aragon": {"yellow": 2, "blue": 2}},
        court={"red": 5, "yellow": 5, "blue": 5, "green": 5, "brown": 5},
    )
    state = apply_move(state, 0, {"type": "special"})
    state = apply_move(state, SEAT["green"], ALLOW)
    assert state.action["stage"] == "share" and to_act(state) == [SEAT["yellow"]]
    state = apply_move(state, SEAT["yellow"], {"type": "share", "from": {"aragon": 2, "court": 1}})
    state = apply_move(state, SEAT["green"], ALLOW)
    assert to_act(state) == [SEAT["blue"]]
    state = apply_move(state, SEAT["blue"], {"type": "share", "from": {"court": 3}})
    assert to_act(state) == [SEAT["green"]]
    state = apply_move(state, SEAT["green"], veto(0))
    assert count(state, "yellow", "aragon") == 0 and state.court[SEAT["yellow"]] == 4
    assert count(state, "blue", "aragon") == 2 and state.court[SEAT["blue"]] == 2
    assert state.court[SEAT["green"]] == 5 and state.court[SEAT["brown"]] == 5


# --- 9.3: scorings, region by region and rank by rank -------------------------------------------------


def test_9_3_score_one_region_leader_takes_six_then_vetoes():
    state = at(
        "score_one_region",
        ("yellow",),
        num_players=4,
        grandes=NO_HOMES,
        caballeros={"old_castile": {"yellow": 4, "blue": 3, "green": 2}},
        scores={"red": 0, "yellow": 0, "blue": 0, "green": 0},
    )
    state = apply_move(state, 0, {"type": "special", "region": "old_castile"})
    steps = view_for(state, SEAT["yellow"])["pending"]["steps"]
    assert len(steps) == 3  # 6 to the leader, 4 to the second, 2 to the third
    state = apply_move(state, SEAT["yellow"], veto(1))
    assert state.scores == [0, 6, 0, 0]


def test_9_3_score_fives_aragons_leader_takes_five_then_vetoes():
    state = at(
        "score_fives",
        ("yellow",),
        num_players=4,
        grandes=NO_HOMES,
        caballeros={
            "basque": {"blue": 2, "green": 1},
            "aragon": {"yellow": 3, "blue": 1},
            "valencia": {"green": 2},
        },
        scores={"red": 0, "yellow": 0, "blue": 0, "green": 0},
    )
    state = apply_move(state, 0, {"type": "special"})
    steps = state.action["steps"]
    assert [step[1] for step in steps] == [AREA_INDEX[a] for a in ("basque", "basque", "aragon", "aragon", "valencia")]
    state = apply_move(state, SEAT["yellow"], veto(3))
    # Basque scored (blue 5, green 3), yellow 5 in Aragon; nothing more for Aragon nor Valencia
    assert state.scores == [0, 5, 5, 3]


def test_9_3_tied_players_are_one_step():
    state = at(
        "score_one_region",
        ("green",),
        num_players=4,
        grandes=NO_HOMES,
        caballeros={"aragon": {"yellow": 2, "blue": 2, "green": 1}},
    )
    state = apply_move(state, 0, {"type": "special", "region": "aragon"})
    assert len(state.action["steps"]) == 2
    state = apply_move(state, SEAT["green"], veto(1))
    assert state.scores == [0, 4, 4, 0]


def test_9_3_kings_bonus_rides_with_the_first_rank():
    state = at(
        "score_one_region",
        ("blue",),
        num_players=4,
        king="new_castile",
        grandes=NO_HOMES,
        caballeros={"new_castile": {"yellow": 2, "blue": 1}},
    )
    state = apply_move(state, 0, {"type": "special", "region": "new_castile"})
    state = apply_move(state, SEAT["blue"], veto(1))
    assert state.scores == [0, 7 + 2, 0, 0]


# --- 9.4: secret disks -------------------------------------------------------------------------------


def secret_position():
    return at(
        "secret_two_to_provinces",
        ("yellow",),
        num_players=4,
        caballeros={
            "aragon": {"yellow": 2, "blue": 3, "green": 2},
            "granada": {"yellow": 3, "blue": 2, "green": 2},
        },
    )


def chosen_secretly(cut):
    state = apply_move(secret_position(), 0, {"type": "special", "order": ["blue", "yellow", "green"]})
    # Seed 001 §9.4: the holder may first stop the action before anyone sets a disk.
    assert state.action["stage"] == "veto" and state.action["window"] == "disks"
    state = apply_move(state, SEAT["yellow"], ALLOW)
    assert state.action["stage"] == "choices"
    assert to_act(state) == [SEAT["yellow"], SEAT["blue"], SEAT["green"]]
    state = apply_move(state, SEAT["green"], {"type": "choose_region", "region": "aragon"})
    state = apply_move(state, SEAT["yellow"], {"type": "choose_region", "region": "granada"})
    assert state.action["stage"] == "choices"
    state = apply_move(state, SEAT["blue"], {"type": "choose_region", "region": "aragon"})
    # revealed; now the holder may cut before any player's share
    assert state.action["stage"] == "veto"
    assert to_act(state) == [SEAT["yellow"]]
    assert len(state.action["steps"]) == 3
    return apply_move(state, SEAT["yellow"], veto(cut))


def test_9_4_veto_before_any_share():
    state = chosen_secretly(0)
    assert count(state, "blue", "aragon") == 3
    assert count(state, "yellow", "granada") == 3
    assert count(state, "green", "aragon") == 2


def test_9_4_veto_in_the_middle():
    state = chosen_secretly(1)
    # blue (first in the order) sent 2 from Aragon; yellow, the holder, and green after him keep theirs
    assert count(state, "blue", "aragon") == 1
    assert count(state, "yellow", "granada") == 3
    assert count(state, "green", "aragon") == 2


def test_9_4_without_veto_all_shares_run():
    state = apply_move(secret_position(), 0, {"type": "special", "order": ["blue", "yellow", "green"]})
    state = apply_move(state, SEAT["yellow"], ALLOW)
    for colour, region in (("green", "aragon"), ("yellow", "granada"), ("blue", "aragon")):
        state = apply_move(state, SEAT[colour], {"type": "choose_region", "region": region})
    state = apply_move(state, SEAT["yellow"], ALLOW)
    assert (count(state, "blue", "aragon"), count(state, "yellow", "granada"), count(state, "green", "aragon")) == (
        1,
        1,
        0,
    )


# --- windows: who is asked --------------------------------------------------------------------------------


def test_no_window_when_no_other_player_holds_a_veto():
    state = apply_move(intrigue_position(holders=()), 0, FOUR_MOVES)
    assert state.phase == "action" and state.special_done
    assert count(state, "yellow", "basque") == 1
    assert not any(e["event"] == "veto_question" for e in state.events)


def test_the_takers_own_veto_opens_no_window_for_an_up_to_card():
    # "Up to 4": cutting his own plan gives nothing he could not have announced (seed 001, rule 4).
    state = apply_move(intrigue_position(holders=("red",)), 0, FOUR_MOVES)
    assert state.phase == "action" and state.special_done
    assert count(state, "blue", "basque") == 1
    assert state.vetoes == [[0, 1]]


def test_declining_opens_no_window():
    state = apply_move(intrigue_position(), 0, {"type": "decline"})
    assert state.phase == "action" and state.special_done
    assert state.vetoes == [[SEAT["blue"], 1]]


def test_two_holders_answer_at_once_and_the_earliest_cut_stands():
    state = apply_move(intrigue_position(holders=("yellow", "green"), num_players=4), 0, FOUR_MOVES)
    assert to_act(state) == [SEAT["yellow"], SEAT["green"]]
    state = apply_move(state, SEAT["yellow"], veto(3))
    assert to_act(state) == [SEAT["green"]]  # still waiting for the other answer
    assert state.phase == "special"
    state = apply_move(state, SEAT["green"], veto(1))
    # green's cut (1) is the earliest: green's card is spent; yellow, still holding, may veto the veto
    assert state.vetoes == [[SEAT["yellow"], 1]]
    assert state.action["stage"] == "counter_veto"
    assert to_act(state) == [SEAT["yellow"]]
    assert legal_moves(state, SEAT["yellow"]) == [ALLOW, {"type": "veto"}]
    state = apply_move(state, SEAT["yellow"], ALLOW)
    assert count(state, "yellow", "catalonia") == 1
    assert count(state, "blue", "catalonia") == 0
    assert count(state, "blue", "aragon") == 2
    assert state.vetoes == [[SEAT["yellow"], 1]]


def test_two_holders_with_the_same_cut_the_first_clockwise_from_the_taker_spends():
    state = apply_move(intrigue_position(holders=("yellow", "green"), num_players=4), 0, FOUR_MOVES)
    state = apply_move(state, SEAT["green"], veto(2))
    state = apply_move(state, SEAT["yellow"], veto(2))
    assert state.vetoes == [[SEAT["green"], 1]]
    assert state.action["vetoer"] == SEAT["yellow"]
    state = apply_move(state, SEAT["green"], ALLOW)
    assert count(state, "yellow", "catalonia") == 1 and count(state, "blue", "catalonia") == 1
    assert count(state, "yellow", "basque") == 0


def test_one_veto_one_allow_the_allower_may_then_veto_the_veto():
    state = apply_move(intrigue_position(holders=("yellow", "blue"), num_players=4), 0, FOUR_MOVES)
    state = apply_move(state, SEAT["yellow"], veto(0))
    state = apply_move(state, SEAT["blue"], ALLOW)
    assert state.action["stage"] == "counter_veto"
    assert to_act(state) == [SEAT["blue"]]
    state = apply_move(state, SEAT["blue"], veto())
    # the veto is vetoed: the whole plan runs and both cards are spent
    assert count(state, "yellow", "basque") == 1 and count(state, "blue", "basque") == 1
    assert state.vetoes == []
    assert state.phase == "action"


def test_the_taker_vetoes_the_veto():
    state = apply_move(intrigue_position(holders=("red", "blue")), 0, FOUR_MOVES)
    assert to_act(state) == [SEAT["blue"]]
    state = apply_move(state, SEAT["blue"], veto(0))
    assert state.action["stage"] == "counter_veto"
    assert to_act(state) == [0]
    view = view_for(state, 0)
    assert view["pending"]["kind"] == "counter_veto" and view["pending"]["vetoer"] == SEAT["blue"]
    state = apply_move(state, 0, veto())
    assert count(state, "yellow", "basque") == 1 and count(state, "blue", "basque") == 1
    assert state.vetoes == []


def test_the_taker_lets_the_veto_stand():
    state = apply_move(intrigue_position(holders=("red", "blue")), 0, FOUR_MOVES)
    state = apply_move(state, SEAT["blue"], veto(1))
    state = apply_move(state, 0, ALLOW)
    assert count(state, "yellow", "catalonia") == 1 and count(state, "blue", "catalonia") == 0
    assert state.vetoes == [[0, 1]]


def test_vetoing_the_taking_of_a_veto_card_discards_it():
    state = at("veto", ("blue",), num_players=3)
    state = apply_move(state, 0, {"type": "special"})
    assert to_act(state) == [SEAT["blue"]]
    assert len(state.action["steps"]) == 1
    assert legal_moves(state, SEAT["blue"]) == [ALLOW, veto(0)]
    state = apply_move(state, SEAT["blue"], veto(0))
    assert state.vetoes == []
    assert "veto" not in state.display
    assert view_for(state, 1)["players"][0]["vetoes"] == []
    assert state.phase == "action"


def test_taking_a_veto_card_allowed_by_the_holder():
    state = at("veto", ("blue",), num_players=3)
    state = apply_move(state, 0, {"type": "special"})
    state = apply_move(state, SEAT["blue"], ALLOW)
    assert sorted(state.vetoes) == [[0, 1], [SEAT["blue"], 1]]


# --- the card's life: rounds r and r+1 ---------------------------------------------------------------


def finish_round(state, events=None):
    """Quiet moves to the next round; the events of every move are added to `events`."""
    start = state.round
    while state.round == start:
        state = quiet(state)
        if events is not None:
            events.extend(state.events)
    return state


def test_a_veto_kept_in_round_r_is_usable_in_r_plus_1_and_discarded_after():
    state = play_to_action(game(3, seed=41, colours=["red", "yellow", "blue"]), "veto")
    state = apply_move(state, 0, {"type": "special"})
    assert state.vetoes == [[0, 1]]
    assert view_for(state, 2)["players"][0]["vetoes"] == [{"expires_round": 2}]
    state = finish_round(state)
    assert state.round == 2
    assert state.vetoes == [[0, 1]]  # survives the end of its own round
    # round 2: yellow's special action opens a window for red
    state = play_to_action(state, "score_one_region", seat=1)
    home = REGIONS[state.grandes[1]]  # yellow's 2 caballeros are there: the scoring has a step
    state = apply_move(state, 1, {"type": "special", "region": home})
    assert state.phase == "special" and to_act(state) == [0]
    state = apply_move(state, 0, ALLOW)
    assert state.vetoes == [[0, 1]]
    events = []
    state = finish_round(state, events)
    assert state.round == 3
    assert state.vetoes == []
    expired = [e for e in events if e["event"] == "veto_expired"]
    assert len(expired) == 1 and expired[0]["seat"] == 0 and expired[0]["round"] == 2
    # round 3: no window any more
    state = play_to_action(state, "score_one_region", bids={0: 1, 1: 10, 2: 2}, seat=1)
    state = apply_move(state, 1, {"type": "special", "region": home})
    assert state.phase == "action" and state.special_done


def test_a_veto_kept_in_the_previous_round_can_be_used():
    state = at("score_one_region", ("blue",), num_players=3, caballeros={"aragon": {"yellow": 2}})
    state = holding(state, "blue", taken=0)  # as if kept in the round before this one
    state = apply_move(state, 0, {"type": "special", "region": "aragon"})
    assert to_act(state) == [SEAT["blue"]]
    state = apply_move(state, SEAT["blue"], veto(0))
    assert state.scores[SEAT["yellow"]] == 0
    assert state.vetoes == []


def test_a_spent_veto_is_gone_for_later_actions():
    state = apply_move(intrigue_position(), 0, FOUR_MOVES)
    state = apply_move(state, SEAT["blue"], veto(0))
    state = apply_move(state, 0, {"type": "place", "to": {}})
    assert state.vetoes == []
    events = []
    finish_round(state, events)
    assert not any(e["event"] == "veto_expired" for e in events)


# --- refused answers ---------------------------------------------------------------------------------------


def test_veto_answers_by_seats_not_asked_are_refused():
    state = apply_move(intrigue_position(num_players=4), 0, FOUR_MOVES)
    for seat in (0, SEAT["yellow"], SEAT["green"]):
        refused(state, seat, ALLOW, "not_your_turn")
        refused(state, seat, veto(0), "not_your_turn")
    refused(state, 0, {"type": "place", "to": {}}, "not_your_turn")


def test_a_holder_cannot_answer_twice():
    state = apply_move(intrigue_position(holders=("yellow", "green"), num_players=4), 0, FOUR_MOVES)
    state = apply_move(state, SEAT["yellow"], ALLOW)
    refused(state, SEAT["yellow"], veto(0), "not_your_turn")


@pytest.mark.parametrize("cut", [4, 5, -1, True, False, "1", 1.5, None, [1]])
def test_bad_cut_values_are_refused(cut):
    state = apply_move(intrigue_position(), 0, FOUR_MOVES)
    refused(state, SEAT["blue"], {"type": "veto", "cut": cut})


def test_other_moves_in_a_veto_window_are_refused():
    state = apply_move(intrigue_position(), 0, FOUR_MOVES)
    for move in (
        {"type": "choose_region", "region": "aragon"},
        {"type": "share", "from": {"court": 3}},
        {"type": "decline"},
        {"type": "bid", "card": 3},
    ):
        refused(state, SEAT["blue"], move)


def test_the_veto_window_is_public_but_answers_are_not_leaked_early():
    state = apply_move(intrigue_position(holders=("yellow", "green"), num_players=4), 0, FOUR_MOVES)
    a = apply_move(state, SEAT["yellow"], veto(1))
    b = apply_move(state, SEAT["yellow"], ALLOW)
    for seat in (0, SEAT["blue"], SEAT["green"], None):
        assert json.dumps(view_for(a, seat), sort_keys=True) == json.dumps(view_for(b, seat), sort_keys=True)


def test_without_the_veto_option_no_veto_card_is_dealt():
    state = game(4, seed=3, veto=False)
    cards = [c for stack in state.stacks for c in stack] + state.display
    assert "veto" not in cards
    assert view_for(state, 0)["options"]["veto"] is False
