"""Stack 2: the Veto (keeping and expiry), decay, the King's return, provinces cards, one region scored."""

import pytest

from games.engine import apply_move, legal_moves, to_act, view_for, visible_events
from tests.support.engine_builders import at_action, holdings, of_kind, play, refused


def special(state, **fields):
    return apply_move(state, 0, {"type": "special", **fields})


def finish_round(state, events=None):
    """Everybody left in this round takes a card, places nobody and declines the special action;
    the events of these moves are added to `events`, if given."""
    start = state.round
    while state.round == start and not state.is_over:
        seat = to_act(state)[0]
        if state.phase == "action":
            move = {"type": "decline"} if not state.special_done else {"type": "place", "to": {}}
        else:
            move = legal_moves(state, seat)[0]
        state = play(state, seat, move, events)
    return state


def shift_seats(events):
    """The seat of each caballero shift in the events, in order."""
    return [entry["shifts"][0]["seat"] for entry in of_kind(events, "shift")]


# --- veto: keeping and expiry ----------------------------------------------------------------------


def test_veto_is_kept_by_its_taker_until_the_end_of_the_next_round():
    state = at_action("veto")
    assert state.round == 1
    state = special(state)
    assert state.vetoes == [[0, 1]]
    assert view_for(state, 2)["players"][0]["vetoes"] == [{"expires_round": 2}]
    assert view_for(state, None)["players"][1]["vetoes"] == []
    assert of_kind(state.events, "keep_veto") == [{"event": "keep_veto", "round": 1, "seat": 0, "until_round": 2}]
    state = apply_move(state, 0, {"type": "place", "to": {}})
    seen = []
    state = finish_round(state, seen)
    assert state.round == 2
    assert state.vetoes == [[0, 1]]
    assert of_kind(seen, "veto_expired") == []
    seen = []
    state = finish_round(state, seen)
    assert state.round == 3
    assert state.vetoes == []
    expired = of_kind(seen, "veto_expired")
    assert len(expired) == 1 and expired[0]["seat"] == 0 and expired[0]["round"] == 2
    assert view_for(state, 0)["players"][0]["vetoes"] == []


def test_a_declined_veto_card_is_not_kept():
    state = apply_move(at_action("veto"), 0, {"type": "decline"})
    assert state.vetoes == []
    assert view_for(state, 1)["players"][0]["vetoes"] == []


# --- decay_all / decay_3 ---------------------------------------------------------------------------


def test_decay_all_sends_every_other_court_to_the_provinces():
    state = at_action("decay_all", court={"red": 6, "yellow": 7, "blue": 3, "green": 0})
    state = special(state)
    assert state.court == [6, 0, 0, 0]
    assert state.provinces == [24, 30, 30, 30]
    assert [entry["shifts"] for entry in of_kind(state.events, "shift")] == [
        [{"seat": 1, "from": "court", "to": "provinces", "count": 7}],
        [{"seat": 2, "from": "court", "to": "provinces", "count": 3}],
    ]


def test_decay_all_runs_in_the_takers_order():
    state = at_action("decay_all", court={"yellow": 7, "blue": 3, "green": 1})
    state = special(state, order=["green", "yellow", "blue"])
    assert shift_seats(state.events) == [3, 1, 2]
    assert state.court == [7, 0, 0, 0]


def test_decay_3_sends_three_or_the_whole_smaller_court():
    state = at_action("decay_3", court={"red": 7, "yellow": 7, "blue": 2, "green": 3})
    state = special(state)
    assert state.court == [7, 4, 0, 0]
    assert state.provinces == [23, 26, 30, 30]


@pytest.mark.parametrize("card", ["decay_all", "decay_3"])
@pytest.mark.parametrize(
    "order",
    [
        ["red", "yellow", "blue", "green"],
        ["yellow", "blue"],
        ["yellow", "yellow", "blue", "green"],
        ["yellow", "blue", "brown"],
        ["yellow", "blue", "purple"],
        "yellow",
    ],
)
def test_decay_refuses_an_order_that_does_not_name_each_other_player_once(card, order):
    refused(at_action(card), 0, {"type": "special", "order": order})


# --- king_returns ----------------------------------------------------------------------------------

KING_RETURNS_BOARD = {
    "aragon": {"red": 2, "yellow": 3, "green": 1},
    "granada": {"blue": 5},
    "new_castile": {"green": 4, "yellow": 1},  # the King's region
    "castillo": {"yellow": 2, "blue": 1},
}


def king_returns():
    return at_action("king_returns", caballeros=KING_RETURNS_BOARD,
                     court={"red": 4, "yellow": 2, "blue": 0, "green": 1})


def test_king_returns_waits_only_for_players_with_a_real_choice():
    state = special(king_returns())
    # yellow: court 2 + aragon 3 (the King's region and the Castillo do not count) = a choice;
    # blue: only granada; green: court 1 + aragon 1 = 2 < 3, all of them.
    assert state.phase == "special" and to_act(state) == [1]
    assert view_for(state, 1)["decision"]["kind"] == "share"


def test_king_returns_each_other_player_sends_three():
    state = special(king_returns())
    state = apply_move(state, 1, {"type": "share", "from": {"court": 1, "aragon": 2}})
    assert state.phase == "action" and to_act(state) == [0]
    assert holdings(state, "yellow") == {"aragon": 1, "new_castile": 1, "castillo": 2, "court": 1, "provinces": 25}
    assert holdings(state, "blue") == {"granada": 2, "castillo": 1, "court": 0, "provinces": 27}
    assert holdings(state, "green") == {"new_castile": 4, "court": 0, "provinces": 26}
    assert holdings(state, "red") == {"aragon": 2, "court": 4, "provinces": 24}
    # Yellow's share, then blue's and green's, which leave no choice, at once and in turn.
    assert [entry["shifts"] for entry in of_kind(state.events, "shift")] == [
        [{"seat": 1, "from": "court", "to": "provinces", "count": 1},
         {"seat": 1, "from": "aragon", "to": "provinces", "count": 2}],
        [{"seat": 2, "from": "granada", "to": "provinces", "count": 3}],
        [{"seat": 3, "from": "court", "to": "provinces", "count": 1},
         {"seat": 3, "from": "aragon", "to": "provinces", "count": 1}],
    ]


def test_king_returns_shares_are_sent_in_turn_clockwise_from_the_takers_left():
    # Blue too has a choice now (court 2 + Granada 5): he is asked only after yellow's share is sent,
    # and sees it; green's share, which leaves no choice, follows blue's at once.
    state = at_action("king_returns", caballeros=KING_RETURNS_BOARD,
                      court={"red": 4, "yellow": 2, "blue": 2, "green": 1})
    state = special(state)
    assert to_act(state) == [1] and view_for(state, 3)["pending"]["before"] == 1
    assert of_kind(state.events, "shift") == []
    state = apply_move(state, 1, {"type": "share", "from": {"court": 1, "aragon": 2}})
    assert state.phase == "special" and to_act(state) == [2]
    assert view_for(state, 0)["pending"]["before"] == 2
    assert shift_seats(state.events) == [1]
    assert view_for(state, 2)["players"][1]["provinces"] == 22 + 3
    decision = view_for(state, 2)["decision"]
    assert decision["kind"] == "share" and decision["needed"] == 3
    assert decision["sources"] == [{"id": "court", "max": 2}, {"id": "granada", "max": 5}]
    refused(state, 1, {"type": "share", "from": {"court": 1, "aragon": 2}}, match="not_your_turn")
    state = apply_move(state, 2, {"type": "share", "from": {"court": 2, "granada": 1}})
    assert state.phase == "action" and to_act(state) == [0]
    assert shift_seats(state.events) == [2, 3]
    assert holdings(state, "blue") == {"granada": 4, "castillo": 1, "court": 0, "provinces": 22 + 3}
    assert holdings(state, "green") == {"new_castile": 4, "court": 0, "provinces": 26}


def test_king_returns_a_share_without_choice_is_sent_at_once_in_its_turn():
    # Yellow (first, clockwise from red's left) has only Aragon's 3: sent with the announcement;
    # blue then has a choice and is asked.
    state = at_action("king_returns", caballeros=KING_RETURNS_BOARD,
                      court={"red": 4, "yellow": 0, "blue": 2, "green": 1})
    state = special(state)
    assert state.phase == "special" and to_act(state) == [2]
    assert shift_seats(state.events) == [1]
    assert holdings(state, "yellow") == {"new_castile": 1, "castillo": 2, "court": 0, "provinces": 24 + 3}
    state = apply_move(state, 2, {"type": "share", "from": {"granada": 3}})
    assert state.phase == "action" and shift_seats(state.events) == [2, 3]


@pytest.mark.parametrize(
    "share",
    [
        {"court": 1, "aragon": 1},  # 2, not 3
        {"court": 2, "aragon": 2},  # 4, not 3
        {"court": 2, "new_castile": 1},  # the King's region
        {"court": 2, "castillo": 1},  # the Castillo
        {"court": 3},  # only 2 in court
        {"aragon": 4, "court": -1},
        {"aragon": 3.0},
        {"atlantis": 3},
        {"seville": 1, "court": 2},  # none in Seville
    ],
)
def test_king_returns_refuses_a_wrong_share(share):
    refused(special(king_returns()), 1, {"type": "share", "from": share})


def test_king_returns_refuses_a_share_from_a_player_not_asked():
    state = special(king_returns())
    refused(state, 2, {"type": "share", "from": {"granada": 3}})
    refused(state, 0, {"type": "share", "from": {"aragon": 2, "court": 1}})
    refused(state, 1, {"type": "choose_region", "region": "aragon"})
    refused(state, 1, {"type": "share", "from": ["court", "court", "aragon"]})


def test_king_returns_lists_every_legal_share():
    state = special(king_returns())
    shares = [move["from"] for move in legal_moves(state, 1)]
    assert sorted(sorted(share.items()) for share in shares) == [
        [("aragon", 1), ("court", 2)],
        [("aragon", 2), ("court", 1)],
        [("aragon", 3)],
    ]


def test_king_returns_never_touches_the_takers_caballeros():
    state = at_action("king_returns", caballeros={"aragon": {"red": 3}}, court={"yellow": 0, "blue": 0, "green": 0})
    state = special(state)
    assert state.phase == "action"
    assert holdings(state, "red") == {"aragon": 3, "court": 7, "provinces": 20}
    assert [entry["seat"] for entry in of_kind(state.events, "share_none")] == [1, 2, 3]


# --- one_each_to_provinces -------------------------------------------------------------------------

ONE_EACH_BOARD = {
    "aragon": {"red": 2, "yellow": 1},
    "granada": {"yellow": 1, "green": 2},
    "new_castile": {"blue": 3},  # the King's region
    "castillo": {"blue": 2, "green": 1},
}


def test_one_each_to_provinces_sends_one_of_every_player_with_caballeros_outside():
    state = at_action("one_each_to_provinces", caballeros=ONE_EACH_BOARD)
    state = special(state, picks=[
        {"colour": "green", "region": "granada"},
        {"colour": "red", "region": "aragon"},
        {"colour": "yellow", "region": "granada"},
    ])
    assert state.caballeros[2] == [1, 1, 0, 0]
    assert state.caballeros[7] == [0, 0, 0, 1]
    assert state.caballeros[5] == [0, 0, 3, 0]
    assert state.caballeros[9] == [0, 0, 2, 1]
    assert state.provinces == [22, 22, 18, 21]
    assert shift_seats(state.events) == [3, 0, 1]


@pytest.mark.parametrize(
    "picks",
    [
        [{"colour": "red", "region": "aragon"}, {"colour": "yellow", "region": "granada"}],  # green missing
        [{"colour": "red", "region": "aragon"}, {"colour": "yellow", "region": "granada"},
         {"colour": "green", "region": "granada"}, {"colour": "blue", "region": "new_castile"}],
        [{"colour": "red", "region": "aragon"}, {"colour": "yellow", "region": "granada"},
         {"colour": "green", "region": "granada"}, {"colour": "blue", "region": "castillo"}],
        [{"colour": "red", "region": "aragon"}, {"colour": "yellow", "region": "granada"},
         {"colour": "yellow", "region": "aragon"}, {"colour": "green", "region": "granada"}],
        [{"colour": "red", "region": "aragon"}, {"colour": "yellow", "region": "seville"},
         {"colour": "green", "region": "granada"}],
        [{"colour": "red", "region": "aragon"}, {"colour": "yellow", "region": "granada"},
         {"colour": "green", "region": "castillo"}],
        [{"colour": "red", "region": "aragon"}, {"colour": "yellow", "region": "granada"},
         {"colour": "purple", "region": "granada"}],
        [{"colour": "red", "region": "atlantis"}, {"colour": "yellow", "region": "granada"},
         {"colour": "green", "region": "granada"}],
        {"red": "aragon"},
        None,
    ],
)
def test_one_each_to_provinces_refuses(picks):
    refused(at_action("one_each_to_provinces", caballeros=ONE_EACH_BOARD), 0, {"type": "special", "picks": picks})


# --- secret_two_to_provinces / secret_all_to_provinces ---------------------------------------------

SECRET_BOARD = {
    "aragon": {"red": 2, "yellow": 3},
    "granada": {"yellow": 2, "green": 4},
    "seville": {"yellow": 1, "blue": 1},
    "catalonia": {"blue": 1},
    "new_castile": {"green": 5, "blue": 2},  # the King's region
    "castillo": {"blue": 3},
}


def secret(card):
    return special(at_action(card, caballeros=SECRET_BOARD))


def test_secret_two_to_provinces_asks_players_with_a_choice_in_secret():
    state = secret("secret_two_to_provinces")
    # yellow: aragon or granada (2+); blue: seville or catalonia (1 each, none holds 2); green: only granada.
    assert to_act(state) == [1, 2]
    assert [move["region"] for move in legal_moves(state, 1)] == ["aragon", "granada"]
    assert [move["region"] for move in legal_moves(state, 2)] == ["catalonia", "seville"]


@pytest.mark.parametrize("region", ["seville", "new_castile", "castillo", "catalonia", "atlantis", None])
def test_secret_two_to_provinces_refuses_a_region_that_is_not_an_option(region):
    refused(secret("secret_two_to_provinces"), 1, {"type": "choose_region", "region": region})


def test_secret_two_to_provinces_sends_two_or_one():
    state = secret("secret_two_to_provinces")
    state = apply_move(state, 1, {"type": "choose_region", "region": "aragon"})
    state = apply_move(state, 2, {"type": "choose_region", "region": "seville"})
    assert state.phase == "action" and to_act(state) == [0]
    assert holdings(state, "yellow") == {"aragon": 1, "granada": 2, "seville": 1, "court": 7, "provinces": 19}
    assert holdings(state, "blue") == {"catalonia": 1, "new_castile": 2, "castillo": 3, "court": 7, "provinces": 17}
    assert holdings(state, "green") == {"granada": 2, "new_castile": 5, "court": 7, "provinces": 16}
    assert holdings(state, "red") == {"aragon": 2, "court": 7, "provinces": 21}


def test_secret_all_to_provinces_sends_all_of_one_region():
    state = secret("secret_all_to_provinces")
    # yellow: aragon, granada or seville; blue: seville or catalonia; green: only granada.
    assert to_act(state) == [1, 2]
    refused(state, 1, {"type": "choose_region", "region": "catalonia"})
    refused(state, 1, {"type": "choose_region", "region": "new_castile"})
    state = apply_move(state, 2, {"type": "choose_region", "region": "catalonia"})
    state = apply_move(state, 1, {"type": "choose_region", "region": "aragon"})
    assert holdings(state, "yellow") == {"granada": 2, "seville": 1, "court": 7, "provinces": 20}
    assert holdings(state, "blue") == {"seville": 1, "new_castile": 2, "castillo": 3, "court": 7, "provinces": 17}
    assert holdings(state, "green") == {"new_castile": 5, "court": 7, "provinces": 18}
    assert holdings(state, "red") == {"aragon": 2, "court": 7, "provinces": 21}


def test_secret_all_to_provinces_leaves_a_player_with_none_outside_alone():
    board = {"aragon": {"yellow": 3}, "new_castile": {"blue": 2, "green": 1}, "castillo": {"green": 2}}
    state = special(at_action("secret_all_to_provinces", caballeros=board))
    assert state.phase == "action"
    assert state.caballeros[5] == [0, 0, 2, 1] and state.caballeros[9] == [0, 0, 0, 2]
    assert holdings(state, "yellow") == {"court": 7, "provinces": 30 - 7}


def test_secret_two_to_provinces_leaves_a_player_with_none_outside_alone():
    # Blue and green have caballeros only in the King's region and the Castillo: not asked, nothing lost.
    # Yellow has one region only: not asked either, and loses two there.
    board = {"aragon": {"yellow": 3}, "new_castile": {"blue": 2, "green": 1}, "castillo": {"green": 2}}
    state = special(at_action("secret_two_to_provinces", caballeros=board))
    assert state.phase == "action" and to_act(state) == [0]
    assert state.caballeros[5] == [0, 0, 2, 1] and state.caballeros[9] == [0, 0, 0, 2]
    assert holdings(state, "yellow") == {"aragon": 1, "court": 7, "provinces": 30 - 7 - 1}
    assert holdings(state, "blue") == {"new_castile": 2, "court": 7, "provinces": 30 - 7 - 2}
    assert holdings(state, "green") == {"new_castile": 1, "castillo": 2, "court": 7, "provinces": 30 - 7 - 3}


def test_secret_two_to_provinces_with_only_single_caballeros_picks_one_region_and_loses_one():
    board = {"galicia": {"yellow": 1}, "valencia": {"yellow": 1}, "new_castile": {"yellow": 4},
             "castillo": {"yellow": 2}}
    state = special(at_action("secret_two_to_provinces", caballeros=board))
    assert to_act(state) == [1]
    assert [move["region"] for move in legal_moves(state, 1)] == ["galicia", "valencia"]
    state = apply_move(state, 1, {"type": "choose_region", "region": "valencia"})
    assert state.phase == "action" and to_act(state) == [0]
    assert holdings(state, "yellow") == {"galicia": 1, "new_castile": 4, "castillo": 2, "court": 7, "provinces": 16}


@pytest.mark.parametrize("card", ["secret_two_to_provinces", "secret_all_to_provinces"])
def test_secret_choices_are_hidden_from_other_seats_until_revealed(card):
    state = secret(card)
    aragon = apply_move(state, 1, {"type": "choose_region", "region": "aragon"})
    granada = apply_move(state, 1, {"type": "choose_region", "region": "granada"})
    for seat in (0, 2, 3, None):
        assert view_for(aragon, seat) == view_for(granada, seat)
    assert view_for(aragon, 1)["pending"]["own_choice"] == "aragon"
    assert view_for(granada, 1)["pending"]["own_choice"] == "granada"
    assert "own_choice" not in view_for(aragon, 2)["pending"]
    assert aragon.events == granada.events == [{"event": "chosen", "round": 1, "seat": 1}]
    done = apply_move(aragon, 2, {"type": "choose_region", "region": "seville"})
    reveal = of_kind(done.events, "reveal")
    assert len(reveal) == 1
    assert reveal[0]["choices"] == [{"seat": 1, "region": "aragon"}, {"seat": 2, "region": "seville"}]
    assert reveal[0] in visible_events(done.events, 3) and reveal[0] in visible_events(done.events, None)
    # The revealed disks are carried out: yellow from Aragon (3), blue from Seville (1), green from its
    # only region, Granada (4); 2 each (or the 1 there) or all of them.
    sent = {"secret_two_to_provinces": {"yellow": 2, "blue": 1, "green": 2},
            "secret_all_to_provinces": {"yellow": 3, "blue": 1, "green": 4}}[card]
    assert holdings(done, "yellow").get("aragon", 0) == 3 - sent["yellow"]
    assert holdings(done, "yellow")["granada"] == 2 and holdings(done, "yellow")["seville"] == 1
    assert holdings(done, "blue").get("seville", 0) == 0 and holdings(done, "blue")["catalonia"] == 1
    assert holdings(done, "green").get("granada", 0) == 4 - sent["green"]
    for colour, count in sent.items():
        assert holdings(done, colour)["provinces"] == holdings(state, colour)["provinces"] + count


def test_secret_to_provinces_order_must_name_the_other_players():
    refused(at_action("secret_two_to_provinces", caballeros=SECRET_BOARD), 0,
            {"type": "special", "order": ["red", "yellow", "blue", "green"]})
    state = special(at_action("secret_two_to_provinces", caballeros=SECRET_BOARD), order=["green", "blue", "yellow"])
    state = apply_move(state, 1, {"type": "choose_region", "region": "granada"})
    state = apply_move(state, 2, {"type": "choose_region", "region": "catalonia"})
    assert shift_seats(state.events) == [3, 2, 1]


# --- score_one_region ------------------------------------------------------------------------------


def test_score_one_region_scores_the_kings_region_with_kings_and_home_bonus():
    state = at_action("score_one_region", grandes={"red": "new_castile"},
                      caballeros={"new_castile": {"red": 3, "yellow": 2, "blue": 2, "green": 1}})
    state = special(state, region="new_castile")
    # 7/4/2: red 7 + King's bonus 2 + home bonus 2; yellow and blue tied 2nd take the 3rd value; green 0.
    assert state.scores == [11, 2, 2, 0]


def test_score_one_region_tied_leaders_get_no_bonus():
    state = at_action("score_one_region", grandes={"red": "new_castile"},
                      caballeros={"new_castile": {"red": 3, "yellow": 3, "blue": 1}})
    state = special(state, region="new_castile")
    # 7/4/2: the tied leaders take the 2nd value, blue the 3rd; neither bonus.
    assert state.scores == [4, 4, 2, 0]


def test_score_one_region_scores_the_castillo_without_bonuses_and_leaves_it_full():
    state = at_action("score_one_region", king="aragon", grandes={"green": "granada"},
                      caballeros={"castillo": {"red": 2, "blue": 3, "green": 1}, "granada": {"yellow": 1}})
    after = special(state, region="castillo")
    assert after.scores == [3, 0, 5, 1]
    assert after.caballeros == state.caballeros


def test_score_one_region_scores_only_the_chosen_region():
    state = at_action("score_one_region", caballeros={
        "seville": {"red": 1, "yellow": 2}, "granada": {"red": 5}})
    state = special(state, region="seville")
    # Seville 4/3/1; green's Grande stands there but green has nobody there.
    assert state.scores == [3, 4, 0, 0]


@pytest.mark.parametrize("region", ["atlantis", None, 3, ""])
def test_score_one_region_refuses_a_region_that_does_not_exist(region):
    refused(at_action("score_one_region"), 0, {"type": "special", "region": region})
