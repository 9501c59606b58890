"""Scoring (docs/rules.md "Scoring one region, or the Castillo", "A general scoring";
seed 002 "SCORING" with its examples):
rank values and the tie rule, the bonuses, adjacency, the general scoring with the secret disks,
and mobile scoreboards."""

import json

import pytest

from games.engine import IllegalMove, apply_move, new_game, to_act, view_for, visible_events
from games.engine.board import AREA_INDEX, AREAS, NEIGHBOURS, REGIONS
from games.engine.scoring import rank_points
from tests.support.engine_builders import at_action, game, lay_out, quiet
from tests.support.engine_positions import COLOURS4, SCENARIO, at_general_scoring

# --- rank_points -----------------------------------------------------------------------------------


def test_rules_check_5_3_1_with_three_tied_for_first():
    # docs/rules.md and seed 002 "Example 1": red, blue and yellow 4 each, green 3 in a 5/3/1 region
    counts = {"red": 4, "blue": 4, "yellow": 4, "green": 3}
    assert rank_points(counts, (5, 3, 1), 4) == {"red": 3, "blue": 3, "yellow": 3, "green": 1}


def test_rules_check_6_4_2_with_a_tie_for_third():
    # docs/rules.md and seed 002 "Example 2": red 4, blue 3, yellow and green 2 each in a 6/4/2 region
    counts = {"red": 4, "blue": 3, "yellow": 2, "green": 2}
    assert rank_points(counts, (6, 4, 2), 4) == {"red": 6, "blue": 4, "yellow": 0, "green": 0}


def test_rules_check_4_3_1_with_a_tie_for_second():
    counts = {"red": 4, "blue": 3, "yellow": 3, "green": 2}
    assert rank_points(counts, (4, 3, 1), 4) == {"red": 4, "blue": 1, "yellow": 1, "green": 0}


def test_english_example_5_3_1_plain_ranks():
    # seed 002: "5/3/1: whoever has the most moves 5, the second most 3, the third most 1"
    counts = {"red": 5, "blue": 3, "yellow": 2, "green": 1}
    assert rank_points(counts, (5, 3, 1), 4) == {"red": 5, "blue": 3, "yellow": 1, "green": 0}
    assert rank_points(counts, (5, 3, 1), 5) == {"red": 5, "blue": 3, "yellow": 1, "green": 0}


def test_two_players_score_only_the_first_value():
    assert rank_points({"red": 3, "blue": 2}, (5, 3, 1), 2) == {"red": 5, "blue": 0}
    assert rank_points({"red": 1, "blue": 6}, (7, 4, 2), 2) == {"red": 0, "blue": 7}
    # a tie for first takes the 2nd value, which does not count with 2 players
    assert rank_points({"red": 3, "blue": 3}, (5, 3, 1), 2) == {"red": 0, "blue": 0}
    assert rank_points({"red": 3}, (4, 2, 0), 2) == {"red": 4}


def test_three_players_score_the_first_two_values():
    assert rank_points({"red": 3, "blue": 2, "green": 1}, (5, 4, 1), 3) == {"red": 5, "blue": 4, "green": 0}
    assert rank_points({"red": 3, "blue": 3, "green": 1}, (5, 4, 1), 3) == {"red": 4, "blue": 4, "green": 0}
    assert rank_points({"red": 3, "blue": 1, "green": 1}, (6, 3, 1), 3) == {"red": 6, "blue": 0, "green": 0}
    assert rank_points({"red": 2, "blue": 2, "green": 2}, (6, 3, 1), 3) == {"red": 3, "blue": 3, "green": 3}


def test_four_and_five_players_score_all_three_values():
    counts = {"red": 5, "blue": 4, "green": 3, "yellow": 2, "brown": 1}
    assert rank_points(counts, (7, 4, 2), 5) == {"red": 7, "blue": 4, "green": 2, "yellow": 0, "brown": 0}
    counts = {"red": 5, "blue": 5, "green": 5, "yellow": 5, "brown": 1}
    # a tied group of any size takes the next value and advances the position by two
    assert rank_points(counts, (7, 4, 2), 5) == {"red": 4, "blue": 4, "green": 4, "yellow": 4, "brown": 2}
    counts = {"red": 2, "blue": 2, "green": 1, "yellow": 1}
    assert rank_points(counts, (5, 3, 2), 4) == {"red": 3, "blue": 3, "green": 0, "yellow": 0}


def test_colours_without_caballeros_are_not_ranked():
    assert rank_points({"red": 0, "blue": 2, "green": 1}, (5, 3, 1), 4) == {"blue": 5, "green": 3}
    assert rank_points({"red": 0, "blue": 0}, (5, 3, 1), 4) == {}


def test_mobile_scoreboard_values_rank_the_same_way():
    assert rank_points({"red": 3, "blue": 2, "green": 1}, (8, 4, 0), 4) == {"red": 8, "blue": 4, "green": 0}
    assert rank_points({"red": 3, "blue": 3, "green": 1}, (4, 0, 0), 4) == {"red": 0, "blue": 0, "green": 0}


# --- adjacency --------------------------------------------------------------------------------------


def place_areas(king):
    state = at_action("score_castillo", king=king)
    return set(view_for(state, 0)["decision"]["place_areas"])


def test_adjacency_example_king_in_galicia():
    # seed 002, Example 1: the King in Galicia -> Old Castile, Basque Country and/or the Castillo
    assert place_areas("galicia") == {"old_castile", "basque", "castillo"}


def test_adjacency_example_king_in_new_castile():
    # seed 002, Example 2: the King in New Castile -> Old Castile, Seville, Granada, Valencia, Aragon
    assert place_areas("new_castile") == {"old_castile", "seville", "granada", "valencia", "aragon", "castillo"}


def test_adjacency_is_symmetric_and_matches_the_rules_table():
    table = {
        "galicia": {"old_castile", "basque"},
        "basque": {"galicia", "old_castile", "aragon"},
        "aragon": {"basque", "old_castile", "new_castile", "catalonia", "valencia"},
        "catalonia": {"aragon", "valencia"},
        "old_castile": {"galicia", "basque", "aragon", "new_castile"},
        "new_castile": {"old_castile", "aragon", "valencia", "granada", "seville"},
        "seville": {"new_castile", "granada"},
        "granada": {"new_castile", "seville", "valencia"},
        "valencia": {"aragon", "catalonia", "new_castile", "granada"},
    }
    for region, neighbours in table.items():
        assert {AREAS[n] for n in NEIGHBOURS[region]} == neighbours
        for other in neighbours:
            assert region in table[other]
    view = view_for(new_game(3, seed=1), None)
    assert {r["id"]: set(r["neighbours"]) for r in view["regions"]} == table
    assert [r["id"] for r in view["regions"]] == list(table)  # scoring order, Galicia first


@pytest.mark.parametrize("king", REGIONS)
def test_placement_goes_only_next_to_the_king_or_into_the_castillo(king):
    state = at_action("score_castillo", king=king, court={"red": 7})
    allowed = {AREAS[n] for n in NEIGHBOURS[king]} | {"castillo"}
    assert set(view_for(state, 0)["decision"]["place_areas"]) == allowed
    for area in AREAS:
        if area in allowed:
            after = apply_move(state, 0, {"type": "place", "to": {area: 1}})
            assert after.caballeros[AREA_INDEX[area]][0] == 1
        else:
            with pytest.raises(IllegalMove):
                apply_move(state, 0, {"type": "place", "to": {area: 1}})


# --- one region scored by a card: bonuses --------------------------------------------------------------


def scored(card="score_one_region", num_players=4, region=None, **layout):
    state = at_action(card, num_players=num_players, **layout)
    move = {"type": "special"}
    if region is not None:
        move["region"] = region
    after = apply_move(state, 0, move)
    assert after.phase == "action" and after.special_done
    colours = after.colours
    return {colours[s]: after.scores[s] - state.scores[s] for s in range(num_players)}


def test_region_scoring_uses_its_scoreboard():
    # Old Castile 6/4/2; no Grande there, King elsewhere
    points = scored(region="old_castile", caballeros={"old_castile": {"red": 4, "yellow": 3, "blue": 2, "green": 1}})
    assert points == {"red": 6, "yellow": 4, "blue": 2, "green": 0}


def test_kings_bonus_goes_to_the_sole_leader_of_the_kings_region():
    points = scored(region="new_castile", king="new_castile", caballeros={"new_castile": {"blue": 3, "yellow": 2}})
    assert points == {"red": 0, "yellow": 4, "blue": 7 + 2, "green": 0}


def test_no_kings_bonus_on_a_tie_for_first():
    points = scored(
        region="new_castile", king="new_castile", caballeros={"new_castile": {"blue": 3, "yellow": 3, "red": 1}}
    )
    assert points == {"red": 2, "yellow": 4, "blue": 4, "green": 0}


def test_kings_bonus_only_in_the_kings_region():
    points = scored(region="granada", king="new_castile", caballeros={"granada": {"blue": 3, "yellow": 2}})
    assert points == {"red": 0, "yellow": 3, "blue": 6, "green": 0}


def test_home_bonus_goes_to_the_sole_leader_whose_grande_stands_there():
    # green's Grande stands in Seville (4/3/1)
    points = scored(region="seville", caballeros={"seville": {"green": 2, "red": 1}})
    assert points == {"red": 3, "yellow": 0, "blue": 0, "green": 4 + 2}


def test_no_home_bonus_for_a_leader_whose_grande_is_elsewhere():
    # green's Grande stands in Seville; red leads there
    points = scored(region="seville", caballeros={"seville": {"red": 3, "green": 2}})
    assert points == {"red": 4, "yellow": 0, "blue": 0, "green": 3}


def test_no_home_bonus_on_a_tie_for_first():
    points = scored(region="seville", caballeros={"seville": {"green": 2, "red": 2, "blue": 1}})
    assert points == {"red": 3, "yellow": 0, "blue": 1, "green": 3}


def test_kings_bonus_and_home_bonus_both_go_to_one_player():
    points = scored(
        region="new_castile",
        king="new_castile",
        grandes={"blue": "new_castile"},
        caballeros={"new_castile": {"blue": 3, "yellow": 2}},
    )
    assert points == {"red": 0, "yellow": 4, "blue": 7 + 2 + 2, "green": 0}


def test_home_bonus_for_several_grandes_only_to_the_leader():
    points = scored(
        region="aragon",
        grandes={"blue": "aragon", "yellow": "aragon"},
        caballeros={"aragon": {"blue": 1, "yellow": 2}},
    )
    assert points == {"red": 0, "yellow": 5 + 2, "blue": 4, "green": 0}


def test_no_bonus_in_the_castillo():
    points = scored(region="castillo", king="new_castile", caballeros={"castillo": {"blue": 3, "yellow": 2}})
    assert points == {"red": 0, "yellow": 3, "blue": 5, "green": 0}


def test_two_player_region_scoring_with_bonus():
    points = scored(
        num_players=2,
        region="galicia",
        king="galicia",
        caballeros={"galicia": {"red": 3, "yellow": 1}},
    )
    # red's Grande stands in Galicia (4/2/0): 4 + King's bonus + home bonus; yellow's 2nd value does not count
    assert points == {"red": 8, "yellow": 0}


def test_three_player_region_scoring():
    points = scored(num_players=3, region="valencia", caballeros={"valencia": {"red": 1, "yellow": 2, "blue": 3}})
    assert points == {"red": 0, "yellow": 3, "blue": 5}


# --- mobile scoreboards ---------------------------------------------------------------------------------


def test_mobile_scoreboard_replaces_the_values():
    layout = {"caballeros": {"aragon": {"red": 3, "yellow": 2, "blue": 1}}}
    assert scored(region="aragon", **layout) == {"red": 5, "yellow": 4, "blue": 1, "green": 0}
    assert scored(region="aragon", mobile={"8/4/0": "aragon"}, **layout) == {
        "red": 8,
        "yellow": 4,
        "blue": 0,
        "green": 0,
    }
    assert scored(region="aragon", mobile={"4/0/0": "aragon"}, **layout) == {
        "red": 4,
        "yellow": 0,
        "blue": 0,
        "green": 0,
    }


def test_mobile_scoreboard_on_the_castillo():
    layout = {"caballeros": {"castillo": {"red": 3, "yellow": 2, "blue": 1}}, "mobile": {"8/4/0": "castillo"}}
    assert scored(region="castillo", **layout) == {"red": 8, "yellow": 4, "blue": 0, "green": 0}


def test_view_shows_the_values_in_force():
    state = at_action("score_castillo", mobile={"8/4/0": "granada", "4/0/0": "castillo"})
    view = view_for(state, 1)
    regions = {r["id"]: r for r in view["regions"]}
    assert regions["granada"]["values"] == [8, 4, 0]
    assert regions["granada"]["mobile"] == "8/4/0"
    assert regions["granada"]["scoreboard"] == [6, 3, 1]
    assert regions["seville"]["values"] == [4, 3, 1]
    assert view["castillo"]["values"] == [4, 0, 0]
    assert view["mobile_scoreboards"] == {"8/4/0": "granada", "4/0/0": "castillo"}


def test_english_example_8_4_0_in_galicia_is_no_longer_a_four_region():
    # seed 002, "all 4 regions are scored": 8/4/0 in Galicia -> Galicia not scored
    layout = {
        "caballeros": {
            "galicia": {"blue": 2},
            "catalonia": {"yellow": 1},
            "seville": {"red": 1},
        },
        "grandes": {"red": "aragon", "yellow": "aragon", "blue": "aragon", "green": "aragon"},
    }
    assert scored(card="score_fours", **layout) == {"red": 4, "yellow": 4, "blue": 4, "green": 0}
    assert scored(card="score_fours", mobile={"8/4/0": "galicia"}, **layout) == {
        "red": 4,
        "yellow": 4,
        "blue": 0,
        "green": 0,
    }


def test_english_example_4_0_0_in_granada_makes_it_a_four_region():
    layout = {
        "caballeros": {"granada": {"green": 2, "blue": 1}},
        "grandes": {"red": "aragon", "yellow": "aragon", "blue": "aragon", "green": "aragon"},
    }
    assert scored(card="score_fours", **layout) == {"red": 0, "yellow": 0, "blue": 0, "green": 0}
    assert scored(card="score_fours", mobile={"4/0/0": "granada"}, **layout) == {
        "red": 0,
        "yellow": 0,
        "blue": 0,
        "green": 4,
    }


def test_italian_example_8_4_0_in_catalonia_and_4_0_0_in_seville():
    # seed 001 rule 8: Seville (4/0/0) is scored, Catalonia (8/4/0) is not
    layout = {
        "caballeros": {"catalonia": {"yellow": 2}, "seville": {"red": 1}},
        "grandes": {"red": "aragon", "yellow": "aragon", "blue": "aragon", "green": "aragon"},
        "mobile": {"8/4/0": "catalonia", "4/0/0": "seville"},
    }
    assert scored(card="score_fours", **layout) == {"red": 4, "yellow": 0, "blue": 0, "green": 0}


# --- general scoring ---------------------------------------------------------------------------------


SEAT = {colour: seat for seat, colour in enumerate(COLOURS4)}


def test_only_players_with_castillo_caballeros_choose():
    state = at_general_scoring(SCENARIO)
    assert state.phase == "castillo"
    assert state.round == 3
    assert to_act(state) == [SEAT["red"], SEAT["blue"]]
    view = view_for(state, SEAT["red"])
    assert view["pending"]["kind"] == "castillo"
    assert view["decision"]["count"] == 3
    assert view_for(state, SEAT["green"])["decision"] is None
    for colour in ("yellow", "green"):
        with pytest.raises(IllegalMove, match="not_your_turn"):
            apply_move(state, SEAT[colour], {"type": "choose_region", "region": "aragon"})


def test_general_scoring_castillo_first_then_the_regions_in_order():
    state = at_general_scoring(SCENARIO)
    state = apply_move(state, SEAT["red"], {"type": "choose_region", "region": "aragon"})
    assert state.phase == "castillo"
    assert to_act(state) == [SEAT["blue"]]
    state = apply_move(state, SEAT["blue"], {"type": "choose_region", "region": "galicia"})  # the King's region
    # Castillo 5/3/1: red 5, blue 3. Then red's 3 go to Aragon, blue's 2 to court (King's region).
    # Galicia (King, 4/2/0): blue 3 -> 4 + King's bonus 2, yellow 2.
    # Aragon (5/4/1): red 5 (+2 home), yellow 4. Seville (4/3/1): yellow and green tied -> 3 each.
    assert state.scores == [5 + 5 + 2, 2 + 4 + 3, 3 + 4 + 2, 3]
    events = [e for e in state.events if e["event"] == "points"]
    areas = [e["area"] for e in events]
    assert areas[:2] == ["castillo", "castillo"]
    regions = areas[2:]
    assert regions == sorted(regions, key=AREA_INDEX.get)
    assert set(regions) == {"galicia", "aragon", "seville"}
    castillo = AREA_INDEX["castillo"]
    assert state.caballeros[castillo] == [0, 0, 0, 0]
    assert state.caballeros[AREA_INDEX["aragon"]][SEAT["red"]] == 5
    assert state.caballeros[AREA_INDEX["galicia"]][SEAT["blue"]] == 3
    assert state.court[SEAT["blue"]] == 7 + 2
    assert state.round == 4 and state.phase == "bid"
    reveal = [e for e in state.events if e["event"] == "castillo_reveal"]
    assert {(e["seat"], e["region"], e["count"], e["to_court"]) for e in reveal} == {
        (0, "aragon", 3, False),
        (2, "galicia", 2, True),
    }


def test_castillo_caballeros_change_the_majority_after_the_castillo_is_scored():
    state = at_general_scoring(SCENARIO)
    state = apply_move(state, SEAT["blue"], {"type": "choose_region", "region": "seville"})
    state = apply_move(state, SEAT["red"], {"type": "choose_region", "region": "seville"})
    # Castillo: red 5, blue 3. Seville: red 3, blue 2, yellow 1, green 1 -> 4, 3, 0, 0 (green home: not leader)
    # Galicia: blue 4 + 2 (King), yellow 2. Aragon: red 2, yellow 2 tied -> 4 each (red home: tie, no bonus)
    assert state.scores == [5 + 4 + 4, 2 + 4 + 0, 3 + 6 + 3, 0]


def test_secret_castillo_choice_is_hidden_until_all_chose():
    state = at_general_scoring(SCENARIO)
    a = apply_move(state, SEAT["red"], {"type": "choose_region", "region": "aragon"})
    b = apply_move(state, SEAT["red"], {"type": "choose_region", "region": "valencia"})
    assert a != b
    for seat in (SEAT["yellow"], SEAT["blue"], SEAT["green"], None):
        assert json.dumps(view_for(a, seat), sort_keys=True) == json.dumps(view_for(b, seat), sort_keys=True)
    assert view_for(a, SEAT["red"])["pending"]["own_choice"] == "aragon"
    assert view_for(b, SEAT["red"])["pending"]["own_choice"] == "valencia"
    assert "own_choice" not in view_for(a, SEAT["blue"])["pending"]
    assert a.events == b.events == [{"event": "chosen", "round": 3, "seat": SEAT["red"]}]
    # once all chose, everybody sees it in the events
    done = apply_move(a, SEAT["blue"], {"type": "choose_region", "region": "granada"})
    for seat in (SEAT["yellow"], None):
        reveal = [e for e in visible_events(done.events, seat) if e["event"] == "castillo_reveal"]
        assert {e["region"] for e in reveal} == {"aragon", "granada"}


def test_castillo_cannot_be_chosen_for_the_castillo_caballeros():
    state = at_general_scoring(SCENARIO)
    with pytest.raises(IllegalMove):
        apply_move(state, SEAT["red"], {"type": "choose_region", "region": "castillo"})


def test_general_scoring_without_castillo_caballeros_needs_no_choice():
    state = at_general_scoring({"aragon": {"red": 2, "yellow": 1}, "galicia": {"green": 1}})
    assert state.round == 4 and state.phase == "bid"
    # Aragon: red 5 + 2 (home), yellow 4; Galicia (King): green 4 + 2
    assert state.scores == [7, 4, 0, 6]


def test_general_scoring_uses_mobile_scoreboards():
    state = at_general_scoring(
        {"castillo": {"red": 1, "blue": 2}, "valencia": {"yellow": 3, "green": 1}},
        mobile={"8/4/0": "castillo", "4/0/0": "valencia"},
    )
    state = apply_move(state, SEAT["red"], {"type": "choose_region", "region": "basque"})
    state = apply_move(state, SEAT["blue"], {"type": "choose_region", "region": "old_castile"})
    # Castillo 8/4/0: blue 8, red 4. Basque: red 5. Old Castile: blue 6. Valencia 4/0/0: yellow 4.
    assert state.scores == [4 + 5, 4, 8 + 6, 0]


def test_general_scoring_of_the_short_game_after_round_two():
    state = at_general_scoring({"castillo": {"green": 1}}, short_game=True)
    assert state.round == 2 and state.phase == "castillo"
    assert to_act(state) == [SEAT["green"]]
    state = apply_move(state, SEAT["green"], {"type": "choose_region", "region": "catalonia"})
    # Castillo: green 5; Catalonia (green's home, 4/2/1): 4 + 2
    assert state.scores == [0, 0, 0, 11]
    assert state.round == 3


def test_general_scoring_counts_three_player_values():
    state = game(3, seed=33, colours=["red", "yellow", "blue"])
    while state.round < 3:
        state = quiet(state)
    layout = {area: {} for area in AREAS}
    layout["new_castile"] = {"red": 3, "yellow": 2, "blue": 1}
    state = lay_out(
        state,
        caballeros=layout,
        king="galicia",
        grandes={"red": "aragon", "yellow": "aragon", "blue": "aragon"},
        scores={"red": 1, "yellow": 1, "blue": 1},
    )
    while state.round == 3:
        state = quiet(state)
    assert state.scores == [8, 5, 1]


def test_scores_are_logged_after_each_general_scoring():
    state = at_general_scoring({"aragon": {"red": 2}}, scores={"red": 10, "yellow": 0, "blue": 0, "green": 0})
    # The general scoring ran in the move that ended round 3 (no Castillo choice to wait for).
    kinds = [e["event"] for e in state.events]
    assert "general_scoring" in kinds and kinds.count("scores") == 1
    entry = [e for e in state.events if e["event"] == "scores"][-1]
    assert entry["scores"] == [17, 0, 0, 0]
    assert kinds.index("general_scoring") < kinds.index("scores") < kinds.index("round")
