"""Stack 3 and the scoring cards: which areas they score, with what values, bonuses and player counts."""

import pytest

from games.engine import apply_move
from tests.support.engine_builders import at_action, refused

# Grandes (CARD_TEST_HOMES): red galicia, yellow basque, blue catalonia, green seville.


def special(state, **fields):
    return apply_move(state, 0, {"type": "special", **fields})


def scored_areas(events):
    """The areas scored by the events of a move, in the order they were scored."""
    areas = []
    for entry in events:
        if entry["event"] == "points" and entry["area"] not in areas:
            areas.append(entry["area"])
    return areas


def score(card, since_log=False, **kwargs):
    state = at_action(card, **kwargs)
    after = special(state)
    assert after.caballeros == state.caballeros
    if since_log:
        return after, scored_areas(after.events)
    return after


# --- score_fours / score_fives / score_six_sevens --------------------------------------------------

FOURS = {
    "galicia": {"red": 2, "yellow": 1},  # 4/2/0: red 4 + home 2, yellow 2
    "catalonia": {"blue": 1},  # 4/2/1: blue 4 + home 2
    "seville": {"green": 1, "yellow": 1},  # 4/3/1: tied, 3 each, no home bonus
    "aragon": {"red": 5},  # 5/4/1
    "castillo": {"red": 3},
}


def test_score_fours_scores_galicia_catalonia_and_seville_in_order():
    state, areas = score("score_fours", since_log=True, caballeros=FOURS)
    assert areas == ["galicia", "catalonia", "seville"]
    assert state.scores == [6, 5, 6, 3]


def test_score_fours_honours_mobile_scoreboards_and_never_scores_the_castillo():
    # 8/4/0 on Galicia: no longer a four. 4/0/0 on Aragon: now a four. The Castillo is never scored.
    state, areas = score("score_fours", since_log=True, caballeros=FOURS,
                         mobile={"8/4/0": "galicia", "4/0/0": "aragon"})
    assert areas == ["aragon", "catalonia", "seville"]
    assert state.scores == [4, 3, 6, 3]


def test_score_fours_ignores_a_four_scoreboard_on_the_castillo():
    state, areas = score("score_fours", since_log=True, caballeros=FOURS, mobile={"4/0/0": "castillo"})
    assert areas == ["galicia", "catalonia", "seville"]
    assert state.scores == [6, 5, 6, 3]


def test_score_fives_scores_the_kings_region_with_its_bonus_but_never_the_castillo():
    state, areas = score("score_fives", since_log=True, king="aragon", caballeros={
        "aragon": {"red": 2, "yellow": 1, "blue": 1},  # 5/4/1: red 5 + King's 2; tied 2nd: 1 each
        "basque": {"yellow": 3},  # 5/3/1: yellow 5 + home 2
        "valencia": {"green": 1, "blue": 2},  # 5/3/2: blue 5, green 3
        "castillo": {"red": 3},  # 5/3/1 but never scored here
        "galicia": {"red": 4},
    })
    assert areas == ["basque", "aragon", "valencia"]
    assert state.scores == [7, 8, 6, 3]
    points = [(e["area"], e["seat"], e["points"], e["reason"]) for e in state.events if e["event"] == "points"]
    assert points[:4] == [
        ("basque", 1, 5, "first"), ("basque", 1, 2, "home_bonus"),
        ("aragon", 0, 5, "first"), ("aragon", 0, 2, "king_bonus"),
    ]
    assert sorted(points[4:6]) == [("aragon", 1, 1, "tied_third"), ("aragon", 2, 1, "tied_third")]
    assert points[6:] == [("valencia", 2, 5, "first"), ("valencia", 3, 3, "second")]


def test_score_fives_leaves_out_a_five_region_under_the_eight_scoreboard():
    state, areas = score("score_fives", since_log=True, mobile={"8/4/0": "basque"}, caballeros={
        "basque": {"yellow": 3}, "aragon": {"blue": 1}, "galicia": {"red": 1},
    })
    assert areas == ["aragon"]
    assert state.scores == [0, 0, 5, 0]


def test_score_six_sevens_scores_old_castile_new_castile_and_granada():
    state, areas = score("score_six_sevens", since_log=True, caballeros={
        "new_castile": {"red": 1, "yellow": 1, "blue": 1, "green": 1},  # 7/4/2, four tied: 4 each, no bonus
        "granada": {"green": 2, "red": 1},  # 6/3/1
        "old_castile": {"yellow": 3},  # 6/4/2
        "aragon": {"blue": 4},
    })
    assert areas == ["old_castile", "new_castile", "granada"]
    assert state.scores == [7, 10, 4, 10]


def test_score_six_sevens_drops_a_region_under_the_eight_scoreboard():
    state, areas = score("score_six_sevens", since_log=True, mobile={"8/4/0": "old_castile"}, caballeros={
        "granada": {"green": 2, "red": 1}, "old_castile": {"yellow": 3}})
    assert areas == ["granada"]
    assert state.scores == [3, 0, 0, 6]


# --- score_castillo --------------------------------------------------------------------------------


def test_score_castillo_scores_the_castillo_and_the_caballeros_stay_inside():
    state, areas = score("score_castillo", since_log=True, grandes={"red": "aragon"},
                         caballeros={"castillo": {"red": 2, "yellow": 2, "blue": 1}, "aragon": {"green": 6}})
    assert areas == ["castillo"]
    assert state.scores == [3, 3, 1, 0]


def test_score_castillo_uses_a_mobile_scoreboard_lying_on_it():
    state = score("score_castillo", mobile={"8/4/0": "castillo"},
                  caballeros={"castillo": {"red": 1, "yellow": 3, "blue": 2}})
    assert state.scores == [0, 8, 4, 0]


# --- score_first_only ------------------------------------------------------------------------------


def test_score_first_only_gives_the_sole_leader_of_each_region_its_first_value_and_bonuses():
    state, areas = score("score_first_only", since_log=True, mobile={"8/4/0": "granada"}, caballeros={
        "galicia": {"red": 2, "yellow": 1},  # red 4 + home 2
        "basque": {"yellow": 1, "blue": 1},  # tied: nothing, no home bonus
        "aragon": {"blue": 3},  # blue 5
        "new_castile": {"green": 2, "red": 1},  # the King's: green 7 + 2
        "granada": {"yellow": 1},  # 8/4/0: yellow 8
        "castillo": {"red": 5},  # never scored
    })
    assert areas == ["galicia", "aragon", "new_castile", "granada"]
    assert state.scores == [6, 8, 5, 9]


# --- score_most / score_least ----------------------------------------------------------------------


def test_score_most_scores_all_regions_tied_for_the_most_and_ignores_the_castillo():
    state, areas = score("score_most", since_log=True, king="granada", caballeros={
        "aragon": {"red": 3, "yellow": 2},  # 5: red 5, yellow 4
        "granada": {"blue": 4, "green": 1},  # 5, the King's: blue 6 + 2, green 3
        "seville": {"green": 2},
        "galicia": {"yellow": 1},
        "castillo": {"red": 9},
    })
    assert areas == ["aragon", "granada"]
    assert state.scores == [5, 4, 8, 3]


def test_score_most_scores_a_single_region_alone():
    state, areas = score("score_most", since_log=True, caballeros={
        "aragon": {"red": 3, "yellow": 3}, "seville": {"green": 2}, "castillo": {"blue": 9}})
    assert areas == ["aragon"]
    assert state.scores == [4, 4, 0, 0]


def test_score_least_scores_all_regions_tied_for_the_fewest_and_never_empty_ones():
    state, areas = score("score_least", since_log=True, caballeros={
        "galicia": {"yellow": 1},  # 4/2/0: yellow 4
        "catalonia": {"blue": 1},  # 4/2/1: blue 4 + home 2
        "aragon": {"red": 3, "yellow": 2},
        "seville": {"green": 2},
        "castillo": {"red": 1},  # one caballero, but never counted
    })
    assert areas == ["galicia", "catalonia"]
    assert state.scores == [0, 4, 6, 0]


def test_score_least_and_most_score_nothing_on_an_empty_board():
    for card in ("score_least", "score_most"):
        state = score(card, caballeros={"castillo": {"red": 2}})
        assert state.scores == [0, 0, 0, 0]
        assert state.special_done is True


# --- score_any_region ------------------------------------------------------------------------------


def test_score_any_region_scores_the_kings_region_with_the_kings_bonus():
    state = at_action("score_any_region", caballeros={"new_castile": {"blue": 2, "green": 1}})
    state = special(state, region="new_castile")
    assert state.scores == [0, 0, 9, 4]


def test_score_any_region_scores_the_castillo_and_leaves_it_full():
    state = at_action("score_any_region", caballeros={"castillo": {"blue": 2, "green": 1}})
    after = special(state, region="castillo")
    assert after.scores == [0, 0, 5, 3]
    assert after.caballeros == state.caballeros


@pytest.mark.parametrize("region", ["atlantis", None, 9, "Castillo"])
def test_score_any_region_refuses_an_area_that_does_not_exist(region):
    refused(at_action("score_any_region"), 0, {"type": "special", "region": region})


# --- 2 and 3 players -------------------------------------------------------------------------------


def test_two_players_score_only_the_first_value():
    state = at_action("score_one_region", num_players=2, caballeros={"aragon": {"red": 3, "yellow": 2}})
    assert special(state, region="aragon").scores == [5, 0]


def test_two_players_tied_for_first_score_nothing():
    state = at_action("score_one_region", num_players=2, caballeros={"aragon": {"red": 3, "yellow": 3}})
    assert special(state, region="aragon").scores == [0, 0]


def test_two_players_tied_in_the_kings_region_get_no_bonus():
    state = at_action("score_any_region", num_players=2, caballeros={"new_castile": {"red": 1, "yellow": 1}})
    assert special(state, region="new_castile").scores == [0, 0]


def test_three_players_score_the_first_and_second_values():
    state = at_action("score_one_region", num_players=3,
                      caballeros={"aragon": {"red": 3, "yellow": 2, "blue": 1}})
    assert special(state, region="aragon").scores == [5, 4, 0]


def test_three_players_tied_for_first_take_the_second_value_and_the_third_nothing():
    state = at_action("score_one_region", num_players=3,
                      caballeros={"aragon": {"red": 2, "yellow": 2, "blue": 1}})
    assert special(state, region="aragon").scores == [4, 4, 0]


def test_three_players_castillo_scoring():
    state = score("score_castillo", num_players=3, caballeros={"castillo": {"red": 3, "yellow": 2, "blue": 1}})
    assert state.scores == [5, 3, 0]


def test_two_players_card_scoring_of_several_regions():
    state = score("score_fours", num_players=2, caballeros={
        "galicia": {"red": 2, "yellow": 1},  # red 4 + home 2
        "catalonia": {"yellow": 1},  # yellow 4
        "seville": {"red": 1, "yellow": 1},  # tied: 0
    })
    assert state.scores == [6, 4]


def test_three_players_first_only_scoring():
    state = score("score_first_only", num_players=3, caballeros={
        "aragon": {"red": 2, "yellow": 1, "blue": 1},  # red 5
        "new_castile": {"blue": 1},  # blue 7 + King's 2
        "basque": {"yellow": 2, "red": 2},  # tied: nothing
    })
    assert state.scores == [5, 0, 9]


def test_five_players_score_all_three_values():
    state = at_action("score_one_region", num_players=5,
                      caballeros={"valencia": {"red": 4, "yellow": 4, "blue": 4, "green": 3, "brown": 5}})
    # 5/3/2: brown 5 + home 2 (valencia); three tied take the 3rd value, green after them 0.
    assert special(state, region="valencia").scores == [2, 2, 2, 0, 7]
