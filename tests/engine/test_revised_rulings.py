"""The revised edition's rulings (seed 001, checked with the designers; docs/rules.md states them):

1. the King returns is played in turn, each player seeing the shares already sent (§9.2);
2. begun means whole (rule 4);
3. a veto before the secret disks (§9.4);
4. the taker may veto his own action in progress (rule 4b).

at_action gives seat 0 (red) the card; the other seats are yellow, blue, green, brown in order.
"""

import random

import pytest

from games.engine import apply_move, legal_moves, random_move, to_act, view_for
from games.engine.board import AREA_INDEX
from tests.support.engine_builders import at_action, holdings, refused
from tests.support.engine_positions import SEAT, holding, king_returns_position, secret_position

ALLOW = {"type": "allow"}
VETO = {"type": "veto"}


def count(state, colour, area):
    return state.caballeros[AREA_INDEX[area]][SEAT[colour]]


def kinds(events):
    return [event["event"] for event in events]


# --- 1. The King returns, in turn ---------------------------------------------------------------------


def test_king_returns_shares_are_sent_one_after_another_clockwise_from_the_takers_left():
    state = apply_move(king_returns_position(), 0, {"type": "special"})
    assert [e["order"] for e in state.events if e["event"] == "special"] == [[1, 2, 3]]
    for colour in ("yellow", "blue", "green"):
        # One seat decides at a time: the others cannot send theirs yet.
        assert to_act(state) == [SEAT[colour]]
        assert view_for(state, SEAT[colour])["decision"]["kind"] == "share"
        for other in ("yellow", "blue", "green"):
            if other != colour:
                refused(state, SEAT[other], {"type": "share", "from": {"court": 2, "aragon": 1}}, "not_your_turn")
        state = apply_move(state, SEAT[colour], {"type": "share", "from": {"court": 2, "aragon": 1}})
        # The share is sent at once, for everyone to see.
        assert holdings(state, colour)["court"] == 0 and count(state, colour, "aragon") == 1
        assert [e["shifts"] for e in state.events if e["event"] == "shift"] == [[
            {"seat": SEAT[colour], "from": "court", "to": "provinces", "count": 2},
            {"seat": SEAT[colour], "from": "aragon", "to": "provinces", "count": 1},
        ]]
    assert state.phase == "action" and state.special_done and to_act(state) == [0]


def test_each_sharer_sees_the_shares_already_sent_before_choosing_his_own():
    state = apply_move(king_returns_position(), 0, {"type": "special"})
    state = apply_move(state, SEAT["yellow"], {"type": "share", "from": {"aragon": 2, "court": 1}})
    blue_view = view_for(state, SEAT["blue"])
    aragon = next(region for region in blue_view["regions"] if region["id"] == "aragon")
    assert "yellow" not in aragon["caballeros"]
    assert blue_view["players"][SEAT["yellow"]]["court"] == 1
    assert blue_view["decision"]["kind"] == "share" and blue_view["decision"]["needed"] == 3


def test_a_sharer_without_a_choice_sends_at_once_and_one_with_nothing_sends_nothing():
    state = at_action(
        "king_returns",
        num_players=4,
        caballeros={"aragon": {"blue": 2, "green": 1}},
        court={"red": 5, "yellow": 0, "blue": 2, "green": 2},
    )
    after = apply_move(state, 0, {"type": "special"})
    # yellow has nothing outside the King's region and the Castillo; green has exactly 3.
    assert kinds(after.events)[:2] == ["special", "share_none"]
    assert to_act(after) == [SEAT["blue"]]
    after = apply_move(after, SEAT["blue"], {"type": "share", "from": {"court": 1, "aragon": 2}})
    assert holdings(after, "green")["court"] == 0 and count(after, "green", "aragon") == 0
    assert after.special_done


def test_a_share_must_send_exactly_three_from_the_sharers_own_places():
    state = apply_move(king_returns_position(), 0, {"type": "special"})
    refused(state, SEAT["yellow"], {"type": "share", "from": {"court": 2}}, "share_exactly .*count=3")
    refused(state, SEAT["yellow"], {"type": "share", "from": {"court": 3}}, "share_source_short")
    refused(state, SEAT["yellow"], {"type": "share", "from": {"granada": 1, "court": 2}}, "share_source_short")
    refused(state, SEAT["yellow"], {"type": "choose_region", "region": "aragon"}, "wrong_move .*expected='share'")


def test_a_share_may_be_given_as_a_list_of_pairs_as_any_map_of_counts():
    state = apply_move(king_returns_position(), 0, {"type": "special"})
    by_map = apply_move(state, SEAT["yellow"], {"type": "share", "from": {"aragon": 1, "court": 2}})
    by_list = apply_move(state, SEAT["yellow"], {"type": "share", "from": [["aragon", 1], ["court", 2]]})
    assert by_list.to_json() == by_map.to_json()
    refused(state, SEAT["yellow"], {"type": "share", "from": [["court", 2], ["court", 1]]}, "share_source_short")
    # The refusal names what the pairs ask of the place in all (3), not the last pair's count (1),
    # which the sharer does hold.
    refused(state, SEAT["yellow"], {"type": "share", "from": [["court", 2], ["court", 1]]}, "count=3")
    refused(state, SEAT["yellow"], {"type": "share", "from": [["court", 2, 1]]}, "share_malformed")
    refused(state, SEAT["yellow"], {"type": "share", "from": "court"}, "share_malformed")


def test_a_holder_may_stop_the_king_returns_before_any_players_share():
    state = apply_move(king_returns_position(holders=("green",)), 0, {"type": "special"})
    assert to_act(state) == [SEAT["green"]] and view_for(state, None)["pending"]["before"] == SEAT["yellow"]
    state = apply_move(state, SEAT["green"], ALLOW)
    state = apply_move(state, SEAT["yellow"], {"type": "share", "from": {"court": 2, "aragon": 1}})
    # Before blue's share, the holder is asked again; he vetoes: blue and green keep theirs.
    assert to_act(state) == [SEAT["green"]] and view_for(state, None)["pending"]["before"] == SEAT["blue"]
    state = apply_move(state, SEAT["green"], VETO)
    assert holdings(state, "blue")["court"] == 2 and holdings(state, "green")["court"] == 2
    assert holdings(state, "yellow")["court"] == 0
    assert state.vetoes == [] and state.special_done


def test_king_returns_decisions_have_legal_and_random_moves_for_timeouts():
    state = apply_move(king_returns_position(holders=("green",)), 0, {"type": "special"})
    assert legal_moves(state, SEAT["green"]) == [ALLOW, {"type": "veto", "cut": 0}]
    state = apply_move(state, SEAT["green"], ALLOW)
    shares = legal_moves(state, SEAT["yellow"])
    assert {"type": "share", "from": {"court": 2, "aragon": 1}} in shares
    rng = random.Random(5)
    for _ in range(20):
        move = random_move(state, SEAT["yellow"], rng)
        assert move in shares
        apply_move(state, SEAT["yellow"], move)


# --- 2. Begun means whole -----------------------------------------------------------------------------

def test_begun_means_whole_intrigue_court_2_puts_exactly_two_from_court():
    state = at_action("intrigue_court_2", court={"red": 5})
    refused(state, 0, {"type": "special", "to": {"aragon": 1}}, "in_full_court .*count=2")
    after = apply_move(state, 0, {"type": "special", "to": {"aragon": 1, "castillo": 1}})
    assert holdings(after, "red")["court"] == 3


def test_begun_means_whole_an_empty_court_spread_begins_nothing():
    state = at_action("intrigue_court_2", court={"red": 5})
    after = apply_move(state, 0, {"type": "special", "to": {}})
    assert after.special_done and holdings(after, "red")["court"] == 5


def test_begun_means_whole_intrigue_court_2_with_one_in_court_puts_that_one():
    state = at_action("intrigue_court_2", court={"red": 1})
    assert view_for(state, 0)["decision"]["special"]["count"] == 1
    refused(state, 0, {"type": "special", "to": {"aragon": 2}}, "court_holds_only .*count=1")
    assert holdings(apply_move(state, 0, {"type": "special", "to": {"aragon": 1}}), "red")["court"] == 0


def test_begun_means_whole_the_court_option_of_intrigue_court_2_or_own_region():
    state = at_action("intrigue_court_2_or_own_region", court={"red": 4}, caballeros={"aragon": {"red": 2}})
    refused(state, 0, {"type": "special", "option": "court", "to": {"galicia": 1}}, "in_full_court")
    after = apply_move(state, 0, {"type": "special", "option": "court", "to": {"galicia": 2}})
    assert count(after, "red", "galicia") == 2


def two_and_two(**layout):
    return at_action("intrigue_2_own_2_foreign", **layout)


def move(source, target, colour, count=1):
    return {"from": source, "to": target, "colour": colour, "count": count}


def test_begun_means_whole_intrigue_2_own_2_foreign_moves_two_and_two():
    state = two_and_two(caballeros={"aragon": {"red": 3, "yellow": 3}})
    refused(state, 0, {"type": "special", "plan": [move("aragon", "galicia", "red")]}, "in_full_own .*count=2")
    refused(state, 0, {"type": "special", "plan": [move("aragon", "galicia", "red", 2),
                                                   move("aragon", "galicia", "yellow")]}, "in_full_foreign")
    after = apply_move(state, 0, {"type": "special", "plan": [move("aragon", "galicia", "red", 2),
                                                              move("aragon", "basque", "yellow", 2)]})
    assert count(after, "red", "galicia") == 2 and count(after, "yellow", "basque") == 2


def test_begun_means_whole_as_many_as_the_board_allows_when_fewer():
    # One own caballero that may move (the other stands in the King's region, a third in the
    # Castillo), and no foreign one outside the King's region.
    state = two_and_two(
        king="new_castile",
        caballeros={"aragon": {"red": 1}, "new_castile": {"red": 1, "yellow": 4}, "castillo": {"red": 1}},
    )
    options = view_for(state, 0)["decision"]["special"]
    assert options["own"] == [1, 2] and options["foreign"] == [0, 2]
    after = apply_move(state, 0, {"type": "special", "plan": [move("aragon", "galicia", "red")]})
    assert count(after, "red", "galicia") == 1
    # The same caballero may move twice (seed 001, rule 4's example).
    twice = apply_move(state, 0, {"type": "special", "plan": [move("aragon", "galicia", "red"),
                                                              move("galicia", "basque", "red")]})
    assert count(twice, "red", "basque") == 1


def test_begun_means_whole_leaves_up_to_cards_free_to_do_less():
    state = at_action("intrigue_3_foreign", caballeros={"aragon": {"yellow": 3}})
    after = apply_move(state, 0, {"type": "special", "plan": [move("aragon", "galicia", "yellow")]})
    assert count(after, "yellow", "galicia") == 1


def test_begun_means_whole_an_empty_plan_begins_nothing():
    state = two_and_two(caballeros={"aragon": {"red": 3, "yellow": 3}})
    after = apply_move(state, 0, {"type": "special", "plan": []})
    assert after.special_done and count(after, "red", "aragon") == 3


# --- 3. A veto before the secret disks ------------------------------------------------------------------

SECRET_CARDS = {
    "eviction": {"type": "special", "region": "aragon"},
    "secret_two_to_provinces": {"type": "special"},
    "secret_all_to_provinces": {"type": "special"},
    "secret_unique_scoring": {"type": "special"},
}


@pytest.mark.parametrize("card", sorted(SECRET_CARDS))
def test_a_veto_before_the_secret_disks_stops_the_action_before_anyone_sets_a_disk(card):
    state = secret_position(card, ("blue",))
    asked = apply_move(state, 0, SECRET_CARDS[card])
    assert asked.action["stage"] == "veto" and asked.action["window"] == "disks"
    assert to_act(asked) == [SEAT["blue"]]
    assert view_for(asked, SEAT["blue"])["decision"]["window"] == "disks"
    assert legal_moves(asked, SEAT["blue"]) == [ALLOW, {"type": "veto", "cut": 0}]
    refused(asked, SEAT["blue"], {"type": "choose_region", "region": "aragon"})
    refused(asked, SEAT["blue"], {"type": "veto", "cut": 1}, "veto_cut_only_zero")
    stopped = apply_move(asked, SEAT["blue"], VETO)
    assert stopped.special_done and stopped.phase == "action" and stopped.vetoes == []
    assert stopped.caballeros == state.caballeros and stopped.scores == state.scores
    assert not {"awaiting_choices", "chosen", "reveal", "shift", "points"} & set(kinds(stopped.events))
    assert [e["window"] for e in stopped.events if e["event"] == "veto"] == ["disks"]


@pytest.mark.parametrize("card", sorted(SECRET_CARDS))
def test_allowed_before_the_disks_the_disks_are_set_then_the_revealed_plan_may_be_cut(card):
    state = secret_position(card, ("blue",))
    asked = apply_move(state, 0, SECRET_CARDS[card])
    disks = apply_move(asked, SEAT["blue"], ALLOW)
    assert disks.action["stage"] == "choices" and SEAT["blue"] in to_act(disks)
    assert disks.vetoes == [[SEAT["blue"], 1]]
    for seat in to_act(disks):
        disks = apply_move(disks, seat, {"type": "choose_region", "region": "aragon" if seat != 0 else "granada"})
    if disks.action is not None:  # the revealed plan has steps: the holder is asked again
        assert disks.action["window"] == "plan" and to_act(disks) == [SEAT["blue"]]


def test_a_veto_before_the_disks_can_itself_be_vetoed_and_the_disks_go_ahead():
    state = secret_position("secret_all_to_provinces", ("blue", "red"))
    asked = apply_move(state, 0, SECRET_CARDS["secret_all_to_provinces"])
    # The taker stopping his own action before the disks is declining it: only blue is asked.
    assert to_act(asked) == [SEAT["blue"]]
    vetoed = apply_move(asked, SEAT["blue"], VETO)
    assert vetoed.action["stage"] == "counter_veto" and to_act(vetoed) == [0]
    going = apply_move(vetoed, 0, VETO)
    assert going.action["stage"] == "choices" and going.vetoes == []
    assert kinds(going.events) == ["counter_veto", "awaiting_choices"]


def test_the_evicted_region_and_the_order_are_public_before_the_disks():
    asked = apply_move(secret_position("eviction", ("blue",)), 0, {"type": "special", "region": "aragon"})
    pending = view_for(asked, None)["pending"]
    assert pending["region"] == "aragon" and pending["window"] == "disks"
    assert pending["order"] == [SEAT["yellow"], SEAT["blue"], SEAT["green"]]


# --- 4. The taker may veto his own action ---------------------------------------------------------------

def test_the_taker_stops_his_own_decay_after_the_first_opponents_share():
    state = holding(at_action("decay_all", num_players=4, court={"red": 6, "yellow": 5, "blue": 4, "green": 3}), "red")
    asked = apply_move(state, 0, {"type": "special"})
    assert asked.action["window"] == "plan" and to_act(asked) == [0]
    after = apply_move(asked, 0, {"type": "veto", "cut": 1})
    assert after.court == [6, 0, 4, 3] and after.vetoes == [] and after.special_done


def test_the_taker_is_asked_with_the_other_holders_and_answers_last_on_equal_cuts():
    state = holding(at_action("decay_all", num_players=4, court={"red": 6, "yellow": 5, "blue": 4, "green": 3}),
                    "red", "blue")
    asked = apply_move(state, 0, {"type": "special"})
    assert to_act(asked) == [0, SEAT["blue"]]
    after = apply_move(asked, 0, {"type": "veto", "cut": 1})
    after = apply_move(after, SEAT["blue"], {"type": "veto", "cut": 1})
    # Blue, first clockwise from red's left, spends his card; red may veto that veto.
    assert after.vetoes == [[0, 1]] and after.action["stage"] == "counter_veto" and to_act(after) == [0]
    whole = apply_move(after, 0, VETO)
    assert whole.court == [6, 0, 0, 0]


def test_the_taker_may_veto_his_exact_intrigue_after_its_first_step():
    state = holding(at_action("intrigue_court_2", court={"red": 5}), "red")
    asked = apply_move(state, 0, {"type": "special", "to": [["castillo", 1], ["galicia", 1]]})
    assert to_act(asked) == [0]
    after = apply_move(asked, 0, {"type": "veto", "cut": 1})
    assert count(after, "red", "castillo") == 1 and count(after, "red", "galicia") == 0


@pytest.mark.parametrize(
    "card, move",
    [
        ("royal_adviser", {"type": "special", "to": "aragon"}),
        ("intrigue_4_any", {"type": "special", "plan": [move("aragon", "galicia", "yellow", 2)]}),
        ("intrigue_own_region", {"type": "special", "region": "aragon", "to": {"galicia": 1, "basque": 1}}),
    ],
)
def test_the_taker_is_not_asked_where_his_cut_could_change_nothing(card, move):
    state = holding(at_action(card, caballeros={"aragon": {"red": 2, "yellow": 2}}), "red")
    after = apply_move(state, 0, move)
    assert after.special_done and after.vetoes == [[0, 1]]
    assert "veto_question" not in kinds(after.events)


def test_the_taker_is_asked_before_later_shares_of_his_king_returns_but_not_the_first():
    state = apply_move(king_returns_position(holders=("red",)), 0, {"type": "special"})
    assert to_act(state) == [SEAT["yellow"]] and state.action["stage"] == "share"
    state = apply_move(state, SEAT["yellow"], {"type": "share", "from": {"court": 2, "aragon": 1}})
    assert to_act(state) == [0] and view_for(state, 0)["pending"]["before"] == SEAT["blue"]
    state = apply_move(state, 0, VETO)
    assert holdings(state, "blue")["court"] == 2 and state.special_done


def test_the_taker_may_stop_his_revealed_one_step_eviction():
    # 9.4 and 4b: once the disks are revealed the taker can no longer decline, so he is asked like any
    # holder even when the revealed plan is a single step.
    state = holding(at_action("eviction", num_players=4, caballeros={"aragon": {"yellow": 2}}), "red")
    state = apply_move(state, 0, {"type": "special", "region": "aragon"})
    assert state.action["stage"] == "choices" and to_act(state) == [SEAT["yellow"]]
    asked = apply_move(state, SEAT["yellow"], {"type": "choose_region", "region": "granada"})
    assert asked.action["window"] == "plan" and to_act(asked) == [0]
    stopped = apply_move(asked, 0, VETO)
    assert count(stopped, "yellow", "aragon") == 2 and count(stopped, "yellow", "granada") == 0
    assert stopped.vetoes == [] and stopped.special_done
