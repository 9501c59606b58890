"""Stack 4 and the King card: scoreboards, the King, eviction, Grandes, power cards, court, secret scoring."""

import pytest

from games.engine import apply_move, to_act, view_for, visible_events
from games.engine.board import AREA_INDEX
from tests.support.engine_builders import at_action, holdings, refused

# King in New Castile unless said otherwise; Grandes: red galicia, yellow basque, blue catalonia, green seville.


def special(state, **fields):
    return apply_move(state, 0, {"type": "special", **fields})


def region_view(view, region):
    return next(r for r in view["regions"] if r["id"] == region)


# --- mobile_scoreboard -----------------------------------------------------------------------------


def test_mobile_scoreboard_puts_one_onto_a_region():
    state = special(at_action("mobile_scoreboard"), scoreboard="8/4/0", to="aragon")
    assert state.mobile == [AREA_INDEX["aragon"], None]
    view = view_for(state, 2)
    assert view["mobile_scoreboards"] == {"8/4/0": "aragon", "4/0/0": None}
    assert region_view(view, "aragon")["values"] == [8, 4, 0]
    assert region_view(view, "aragon")["mobile"] == "8/4/0"


def test_mobile_scoreboard_moves_one_already_on_the_board():
    state = at_action("mobile_scoreboard", mobile={"8/4/0": "aragon", "4/0/0": "granada"})
    state = special(state, scoreboard="4/0/0", to="castillo")
    assert state.mobile == [AREA_INDEX["aragon"], AREA_INDEX["castillo"]]
    view = view_for(state, None)
    assert view["castillo"]["values"] == [4, 0, 0]
    assert region_view(view, "granada")["values"] == [6, 3, 1]


@pytest.mark.parametrize(
    "fields",
    [
        {"scoreboard": "8/4/0", "to": "new_castile"},  # into the King's region
        {"scoreboard": "4/0/0", "to": "aragon"},  # out of the King's region
        {"scoreboard": "8/4/0", "to": "granada"},  # onto the other one
        {"scoreboard": "8/4/0", "to": "seville"},  # where it already lies
        {"scoreboard": "8/4/0", "to": None},  # back off the board
        {"scoreboard": "8/4/0", "to": "atlantis"},
        {"scoreboard": "0/4/8", "to": "aragon"},
        {"scoreboard": None, "to": "aragon"},
        {"to": "aragon"},
    ],
)
def test_mobile_scoreboard_refuses(fields):
    state = at_action("mobile_scoreboard", mobile={"8/4/0": "seville", "4/0/0": "new_castile"})
    if fields.get("to") == "granada":
        state = at_action("mobile_scoreboard", mobile={"8/4/0": "seville", "4/0/0": "granada"})
    refused(state, 0, {"type": "special", **fields})


def test_mobile_scoreboard_caught_by_the_king_stays_there():
    state = at_action("king_card", mobile={"8/4/0": "aragon"})
    state = special(state, to="aragon")
    assert state.king == AREA_INDEX["aragon"]
    assert view_for(state, 1)["regions"][AREA_INDEX["aragon"]]["values"] == [8, 4, 0]


# --- royal_adviser / king_card ---------------------------------------------------------------------


def test_royal_adviser_moves_the_king_to_a_neighbouring_region():
    state = at_action("royal_adviser", caballeros={"new_castile": {"red": 2}, "seville": {"blue": 1}})
    after = special(state, to="seville")
    assert after.king == AREA_INDEX["seville"]
    assert after.caballeros == state.caballeros
    assert view_for(after, 3)["king"] == "seville"


@pytest.mark.parametrize("target", ["galicia", "catalonia", "new_castile", "castillo", "atlantis", None])
def test_royal_adviser_refuses_a_region_that_is_not_a_neighbour(target):
    refused(at_action("royal_adviser"), 0, {"type": "special", "to": target})


def test_king_card_moves_the_king_to_any_region():
    state = special(at_action("king_card"), to="galicia")
    assert state.king == AREA_INDEX["galicia"]
    refused(at_action("king_card"), 0, {"type": "special", "to": "castillo"})
    refused(at_action("king_card"), 0, {"type": "special", "to": "atlantis"})


def test_after_a_king_move_the_new_kings_region_is_taboo():
    state = at_action("king_card", caballeros={"galicia": {"red": 2}})
    state = special(state, to="galicia")
    state = apply_move(state, 0, {"type": "place", "to": {"basque": 1}})
    assert holdings(state, "red") == {"galicia": 2, "basque": 1, "court": 6, "provinces": 21}


def test_king_card_refuses_the_region_the_king_already_stands_in():
    refused(at_action("king_card"), 0, {"type": "special", "to": "new_castile"})
    refused(at_action("king_card", king="galicia"), 0, {"type": "special", "to": "galicia"})


def test_king_card_moves_only_the_king():
    # Caballeros, Grandes and mobile scoreboards in the old and the new King's region stay put.
    state = at_action("king_card", grandes={"red": "new_castile", "yellow": "galicia"},
                      mobile={"8/4/0": "galicia", "4/0/0": "new_castile"},
                      caballeros={"new_castile": {"red": 2, "blue": 1}, "galicia": {"yellow": 3, "green": 1},
                                  "castillo": {"red": 1}})
    after = special(state, to="galicia")
    assert after.king == AREA_INDEX["galicia"]
    assert after.caballeros == state.caballeros
    assert after.grandes == state.grandes == [AREA_INDEX["new_castile"], AREA_INDEX["galicia"],
                                              AREA_INDEX["catalonia"], AREA_INDEX["seville"]]
    assert after.mobile == state.mobile == [AREA_INDEX["galicia"], AREA_INDEX["new_castile"]]
    assert after.court == state.court and after.provinces == state.provinces and after.scores == state.scores


# --- eviction --------------------------------------------------------------------------------------

EVICTION_BOARD = {"aragon": {"red": 2, "yellow": 3, "blue": 1}, "granada": {"yellow": 1}}


def eviction(**fields):
    return special(at_action("eviction", caballeros=EVICTION_BOARD), region="aragon", **fields)


def test_eviction_asks_every_other_player_in_the_region():
    state = eviction()
    assert state.phase == "special" and to_act(state) == [1, 2]
    assert view_for(state, 1)["decision"]["kind"] == "region"


def test_eviction_moves_all_of_them_to_the_chosen_region_or_court():
    state = eviction()
    state = apply_move(state, 1, {"type": "choose_region", "region": "granada"})
    state = apply_move(state, 2, {"type": "choose_region", "region": "new_castile"})  # the King's: court
    assert state.phase == "action" and to_act(state) == [0]
    assert holdings(state, "yellow") == {"granada": 4, "court": 7, "provinces": 19}
    assert holdings(state, "blue") == {"court": 8, "provinces": 22}
    assert holdings(state, "red") == {"aragon": 2, "court": 7, "provinces": 21}


def test_eviction_choosing_the_same_region_sends_them_to_court():
    state = eviction()
    state = apply_move(state, 1, {"type": "choose_region", "region": "aragon"})
    state = apply_move(state, 2, {"type": "choose_region", "region": "galicia"})
    assert holdings(state, "yellow") == {"granada": 1, "court": 10, "provinces": 19}
    assert holdings(state, "blue") == {"galicia": 1, "court": 7, "provinces": 22}


def test_eviction_choices_are_secret_until_revealed():
    state = eviction()
    granada = apply_move(state, 1, {"type": "choose_region", "region": "granada"})
    galicia = apply_move(state, 1, {"type": "choose_region", "region": "galicia"})
    for seat in (0, 2, 3, None):
        assert view_for(granada, seat) == view_for(galicia, seat)
    assert granada.events == galicia.events == [{"event": "chosen", "round": 1, "seat": 1}]
    done = apply_move(granada, 2, {"type": "choose_region", "region": "seville"})
    reveal = [entry for entry in done.events if entry["event"] == "reveal"]
    assert len(reveal) == 1
    assert reveal[0]["choices"] == [{"seat": 1, "region": "granada"}, {"seat": 2, "region": "seville"}]
    assert reveal[0] in visible_events(done.events, 3) and reveal[0] in visible_events(done.events, None)


@pytest.mark.parametrize(
    "fields",
    [
        {"region": "new_castile"},
        {"region": "castillo"},
        {"region": "atlantis"},
        {"region": "aragon", "order": ["yellow", "blue", "yellow"]},
        {"region": "aragon", "order": ["yellow", "red", "blue"]},
        {"region": "aragon", "order": ["yellow"]},
    ],
)
def test_eviction_refuses(fields):
    refused(at_action("eviction", caballeros=EVICTION_BOARD), 0, {"type": "special", **fields})


@pytest.mark.parametrize("region", ["castillo", "atlantis", None])
def test_eviction_refuses_a_choice_off_the_disk(region):
    refused(eviction(), 1, {"type": "choose_region", "region": region})


def test_eviction_order_may_name_opponents_who_are_not_in_the_region():
    state = eviction(order=["green", "blue", "yellow"])
    assert state.action["plan"]["order"] == [2, 1]
    assert to_act(state) == [1, 2]


def test_eviction_of_a_region_without_other_players_does_nothing():
    state = at_action("eviction", caballeros={"aragon": {"red": 2}, "granada": {"yellow": 1}})
    after = special(state, region="aragon")
    assert after.phase == "action" and after.special_done is True
    assert after.caballeros == state.caballeros


# --- move_grande -----------------------------------------------------------------------------------


def test_move_grande_moves_the_takers_grande_and_its_home():
    state = special(at_action("move_grande"), to="basque")  # yellow's Grande stands there too
    assert state.grandes == [AREA_INDEX["basque"], AREA_INDEX["basque"], AREA_INDEX["catalonia"],
                             AREA_INDEX["seville"]]
    assert view_for(state, 2)["players"][0]["home"] == "basque"
    assert region_view(view_for(state, 2), "basque")["grandes"] == ["red", "yellow"]


def test_move_grande_home_bonus_follows_the_grande():
    state = at_action("score_one_region", grandes={"red": "aragon"}, caballeros={"aragon": {"red": 2}})
    assert special(state, region="aragon").scores == [7, 0, 0, 0]
    state = at_action("score_one_region", caballeros={"aragon": {"red": 2}})
    assert special(state, region="aragon").scores == [5, 0, 0, 0]


@pytest.mark.parametrize("target", ["new_castile", "castillo", "galicia", "atlantis", None])
def test_move_grande_refuses(target):
    refused(at_action("move_grande"), 0, {"type": "special", "to": target})


def test_move_grande_refuses_to_leave_the_kings_region():
    refused(at_action("move_grande", grandes={"red": "new_castile"}), 0, {"type": "special", "to": "aragon"})


# --- retake_power_card -----------------------------------------------------------------------------


def retake_position(vetoes=None):
    """Red has played 3, 7 and (this round) 13."""
    state = at_action("retake_power_card").clone()
    state.played[0] = [3, 7, 13]
    state.hands[0] = [card for card in range(1, 14) if card not in (3, 7, 13)]
    if vetoes is not None:
        state.vetoes = vetoes
    return state


def test_retake_power_card_takes_a_played_card_back_into_hand():
    state = special(retake_position(), card=7)
    assert state.played[0] == [3, 13]
    assert state.hands[0] == [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    assert view_for(state, 0)["hand"] == [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    assert view_for(state, 0)["played"] == [3, 13]
    retakes = [entry for entry in visible_events(state.events, 0) if entry["event"].startswith("retake")]
    assert any(entry.get("card") == 7 for entry in retakes)


def test_retake_power_card_keeps_a_card_below_the_top_private():
    three = special(retake_position(), card=3)
    seven = special(retake_position(), card=7)
    for seat in (1, 2, 3, None):
        assert view_for(three, seat) == view_for(seven, seat)
        assert visible_events(three.events, seat) == visible_events(seven.events, seat)
        assert view_for(seven, seat)["players"][0]["played_top"] == 13
        assert view_for(seven, seat)["players"][0]["hand_size"] == 11
    assert view_for(three, 0) != view_for(seven, 0)
    assert visible_events(three.events, 0) != visible_events(seven.events, 0)


def test_retake_power_card_announced_under_a_veto_stays_private():
    three = special(retake_position(vetoes=[[1, 1]]), card=3)
    seven = special(retake_position(vetoes=[[1, 1]]), card=7)
    assert three.phase == "special" and to_act(three) == [1]
    for seat in (1, 2, 3, None):
        assert view_for(three, seat) == view_for(seven, seat)
        assert visible_events(three.events, seat) == visible_events(seven.events, seat)
        assert view_for(seven, seat)["pending"]["steps"] == [{"step": "retake", "seat": 0}]
    assert view_for(seven, 0)["pending"]["steps"] == [{"step": "retake", "seat": 0, "card": 7}]
    question = [entry for entry in seven.events if entry["event"] == "veto_question"]
    assert len(question) == 1 and question[0]["steps"] == [{"step": "retake", "seat": 0}]


def test_retake_power_card_of_the_top_card_is_public():
    state = special(retake_position(), card=13)
    assert state.played[0] == [3, 7]
    assert 13 in state.hands[0]
    for seat in (1, None):
        view = view_for(state, seat)
        assert view["players"][0]["played_top"] == 7
        assert [entry["card"] for entry in visible_events(state.events, seat) if entry["event"] == "retake"] == [13]


@pytest.mark.parametrize("card", [5, 14, 0, -3, "7", 7.0, True, None, [7]])
def test_retake_power_card_refuses_a_card_not_played(card):
    refused(retake_position(), 0, {"type": "special", "card": card})


def test_retake_power_card_refuses_another_players_played_card():
    state = retake_position()
    assert state.played[1] == [12]
    refused(state, 0, {"type": "special", "card": 12})


# --- court_2 ---------------------------------------------------------------------------------------


def test_court_2_moves_two_from_the_provinces_to_court():
    state = special(at_action("court_2", caballeros={"aragon": {"red": 1}}))
    assert holdings(state, "red") == {"aragon": 1, "court": 9, "provinces": 20}
    assert holdings(state, "yellow") == {"court": 7, "provinces": 23}


def test_court_2_moves_only_what_the_provinces_hold():
    state = special(at_action("court_2", caballeros={"aragon": {"red": 2}}, court={"red": 27}))
    assert holdings(state, "red") == {"aragon": 2, "court": 28, "provinces": 0}


def test_court_2_with_empty_provinces_does_nothing_but_is_done():
    state = at_action("court_2", caballeros={"aragon": {"red": 2}}, court={"red": 28})
    after = special(state)
    assert holdings(after, "red") == {"aragon": 2, "court": 28, "provinces": 0}
    assert after.court == state.court and after.provinces == state.provinces
    assert after.caballeros == state.caballeros
    assert after.special_done is True and after.phase == "action" and to_act(after) == [0]
    refused(after, 0, {"type": "special"})


def test_court_2_with_one_in_the_provinces_moves_exactly_one():
    state = at_action("court_2", caballeros={"aragon": {"red": 3}}, court={"red": 26})
    after = special(state)
    assert holdings(after, "red") == {"aragon": 3, "court": 27, "provinces": 0}
    assert holdings(after, "yellow") == {"court": 7, "provinces": 23}
    assert after.special_done is True


# --- secret_unique_scoring -------------------------------------------------------------------------

UNIQUE_BOARD = {
    "seville": {"green": 2, "blue": 1},  # 4/3/1: green 4 + home 2, blue 3
    "new_castile": {"red": 2},  # the King's, 7/4/2: red 7 + 2
    "aragon": {"red": 5},
}


def unique():
    return special(at_action("secret_unique_scoring", caballeros=UNIQUE_BOARD))


def test_secret_unique_scoring_asks_every_player_the_taker_included():
    state = unique()
    assert to_act(state) == [0, 1, 2, 3]
    assert view_for(state, 0)["decision"]["kind"] == "region"


def test_secret_unique_scoring_scores_only_regions_picked_once():
    state = unique()
    for seat, region in ((2, "seville"), (0, "aragon"), (3, "new_castile"), (1, "aragon")):
        state = apply_move(state, seat, {"type": "choose_region", "region": region})
    assert state.phase == "action" and to_act(state) == [0]
    assert state.scores == [9, 0, 3, 6]
    areas = [entry["area"] for entry in state.events if entry["event"] == "points"]
    assert areas == ["new_castile", "new_castile", "seville", "seville", "seville"]


def test_secret_unique_scoring_choices_are_secret_until_revealed():
    state = unique()
    aragon = apply_move(state, 1, {"type": "choose_region", "region": "aragon"})
    seville = apply_move(state, 1, {"type": "choose_region", "region": "seville"})
    for seat in (0, 2, 3, None):
        assert view_for(aragon, seat) == view_for(seville, seat)
    assert view_for(aragon, 1)["pending"]["own_choice"] == "aragon"


@pytest.mark.parametrize("region", ["castillo", "atlantis", None])
def test_secret_unique_scoring_refuses_the_castillo_and_unknown_regions(region):
    refused(unique(), 2, {"type": "choose_region", "region": region})


def test_secret_unique_scoring_refuses_a_second_choice():
    state = apply_move(unique(), 2, {"type": "choose_region", "region": "seville"})
    refused(state, 2, {"type": "choose_region", "region": "aragon"})
