"""Stack 1, the intrigue cards: who may be moved, from where, to where, and how many."""

import pytest

from games.engine import apply_move, to_act, view_for
from games.engine.state import COURT
from tests.support.engine_builders import at_action, holdings, refused

# King in New Castile throughout (neighbours old_castile, aragon, valencia, granada, seville).
BOARD = {
    "aragon": {"red": 3, "yellow": 3, "blue": 1},
    "granada": {"red": 2, "yellow": 2, "green": 4},
    "new_castile": {"red": 2, "yellow": 2},
    "castillo": {"red": 1, "blue": 2},
}


def special(state, **fields):
    return apply_move(state, 0, {"type": "special", **fields})


def step(source, target, colour, count=1):
    return {"from": source, "to": target, "colour": colour, "count": count}


def board(card, **kwargs):
    return at_action(card, caballeros={**BOARD, **kwargs.pop("caballeros", {})}, **kwargs)


# --- intrigue_own_region ---------------------------------------------------------------------------


def test_intrigue_own_region_redistributes_all_own_caballeros_of_one_region():
    state = board("intrigue_own_region")
    state = special(state, region="aragon", to={"aragon": 1, "galicia": 1, "castillo": 1})
    assert holdings(state, "red") == {
        "galicia": 1, "aragon": 1, "new_castile": 2, "granada": 2, "castillo": 2, "court": 7, "provinces": 15
    }
    assert holdings(state, "yellow")["aragon"] == 3
    assert state.phase == "action" and to_act(state) == [0]


def test_the_key_order_of_a_redistribution_does_not_change_the_game():
    # A move stored as JSON may come back with its keys reordered (PostgreSQL's jsonb does):
    # the steps a veto may cut and the log must not depend on it.
    state = board("intrigue_own_region")
    one = special(state, region="aragon", to={"galicia": 1, "castillo": 1, "aragon": 1})
    other = special(state, region="aragon", to={"castillo": 1, "aragon": 1, "galicia": 1})
    assert one.to_json() == other.to_json()


def test_intrigue_own_region_may_put_them_all_back():
    state = board("intrigue_own_region")
    after = special(state, region="aragon", to={"aragon": 3})
    assert after.caballeros == state.caballeros
    assert after.special_done is True


@pytest.mark.parametrize(
    "fields",
    [
        {"region": "aragon", "to": {"galicia": 2}},  # too few
        {"region": "aragon", "to": {"galicia": 4}},  # too many
        {"region": "aragon", "to": {"galicia": 2, "new_castile": 1}},  # into the King's region
        {"region": "new_castile", "to": {"galicia": 2}},  # out of the King's region
        {"region": "castillo", "to": {"galicia": 1}},  # out of the Castillo
        {"region": "seville", "to": {}},  # no own caballero there
        {"region": "narnia", "to": {"galicia": 3}},
        {"region": "aragon", "to": {"galicia": 4, "basque": -1}},
        {"region": "aragon", "to": {"galicia": 3.0}},
        {"region": "aragon", "to": {"atlantis": 3}},
        {"region": "aragon", "to": "galicia"},
        {"region": "aragon"},
    ],
)
def test_intrigue_own_region_refuses(fields):
    refused(board("intrigue_own_region"), 0, {"type": "special", **fields})


# --- intrigue_court_2 ------------------------------------------------------------------------------


def test_intrigue_court_2_puts_two_from_court_anywhere_but_the_kings_region():
    state = board("intrigue_court_2")
    state = special(state, to={"galicia": 1, "castillo": 1})
    assert holdings(state, "red") == {
        "galicia": 1, "aragon": 3, "new_castile": 2, "granada": 2, "castillo": 2, "court": 5, "provinces": 15
    }


def test_intrigue_court_2_adds_to_the_placement():
    state = board("intrigue_court_2")
    state = special(state, to={"catalonia": 2})
    state = apply_move(state, 0, {"type": "place", "to": {"aragon": 1}})
    assert holdings(state, "red") == {
        "aragon": 4, "catalonia": 2, "new_castile": 2, "granada": 2, "castillo": 1, "court": 4, "provinces": 15
    }
    assert to_act(state) == [1]


@pytest.mark.parametrize(
    "to",
    [
        {"galicia": 3},
        {"galicia": 2, "castillo": 1},
        {"new_castile": 1},
        {"galicia": -1},
        {"galicia": 1.5},
        {"atlantis": 1},
        ["galicia"],
    ],
)
def test_intrigue_court_2_refuses(to):
    refused(board("intrigue_court_2"), 0, {"type": "special", "to": to})


def test_intrigue_court_2_refuses_more_than_the_court_holds():
    refused(board("intrigue_court_2", court={"red": 1}), 0, {"type": "special", "to": {"galicia": 2}})


def test_intrigue_court_2_once_begun_puts_both():
    # Begun means whole (docs/rules.md, seed 001 rule 4): the card says 2, not "up to 2".
    refused(board("intrigue_court_2"), 0, {"type": "special", "to": {"galicia": 1}},
            match="in_full_court .*count=2")


def test_intrigue_court_2_with_one_in_court_puts_that_one():
    state = board("intrigue_court_2", court={"red": 1})
    after = special(state, to={"galicia": 1})
    assert holdings(after, "red")["galicia"] == 1 and holdings(after, "red")["court"] == 0
    assert after.special_done is True


# --- intrigue_court_2_or_own_region ----------------------------------------------------------------


def test_intrigue_court_2_or_own_region_as_court():
    state = special(board("intrigue_court_2_or_own_region"), option="court", to={"seville": 2})
    assert holdings(state, "red")["seville"] == 2
    assert holdings(state, "red")["court"] == 5


def test_intrigue_court_2_or_own_region_as_own_region():
    state = special(board("intrigue_court_2_or_own_region"), option="own_region", region="granada",
                    to={"basque": 2})
    assert holdings(state, "red") == {
        "basque": 2, "aragon": 3, "new_castile": 2, "castillo": 1, "court": 7, "provinces": 15
    }


@pytest.mark.parametrize(
    "fields",
    [
        {"option": "both", "to": {"seville": 2}},
        {"to": {"seville": 2}},
        {"option": "court", "to": {"seville": 3}},
        {"option": "court", "to": {"new_castile": 1}},
        {"option": "court", "to": {"seville": 1}},  # begun means whole: 2 from court
        {"option": "own_region", "region": "granada", "to": {"basque": 1}},
        {"option": "own_region", "region": "seville", "to": {}},
        {"option": "own_region", "region": "new_castile", "to": {"basque": 2}},
    ],
)
def test_intrigue_court_2_or_own_region_refuses(fields):
    refused(board("intrigue_court_2_or_own_region"), 0, {"type": "special", **fields})


# --- intrigue_5_from_region ------------------------------------------------------------------------


def test_intrigue_5_from_region_moves_five_of_any_colours_from_one_region():
    state = board("intrigue_5_from_region")
    state = special(state, plan=[
        step("aragon", "castillo", "yellow", 2),
        step("aragon", "galicia", "red", 2),
        step("aragon", "seville", "blue"),
    ])
    assert holdings(state, "red")["aragon"] == 1 and holdings(state, "red")["galicia"] == 2
    assert holdings(state, "yellow") == {"aragon": 1, "new_castile": 2, "granada": 2, "castillo": 2,
                                         "court": 7, "provinces": 16}
    assert holdings(state, "blue") == {"seville": 1, "castillo": 2, "court": 7, "provinces": 20}


def test_intrigue_5_from_region_refuses_several_source_regions():
    refused(board("intrigue_5_from_region"), 0, {"type": "special", "plan": [
        step("aragon", "castillo", "yellow"), step("granada", "castillo", "green")]})


def test_intrigue_5_from_region_refuses_a_sixth_caballero():
    state = board("intrigue_5_from_region", caballeros={"aragon": {"red": 3, "yellow": 3, "blue": 1}})
    refused(state, 0, {"type": "special", "plan": [
        step("aragon", "castillo", "yellow", 3), step("aragon", "galicia", "red", 3)]})
    after = special(state, plan=[step("aragon", "castillo", "yellow", 3), step("aragon", "galicia", "red", 2)])
    assert after.caballeros[2] == [1, 0, 1, 0]


@pytest.mark.parametrize(
    "entry",
    [
        step("new_castile", "galicia", "red"),  # out of the King's region
        step("aragon", "new_castile", "yellow"),  # into the King's region
        step("castillo", "galicia", "blue"),  # out of the Castillo
        step("aragon", "galicia", "yellow", 4),  # yellow has only 3 there
        step("aragon", "galicia", "green"),  # green has none there
        step("aragon", "galicia", "brown"),  # nobody plays brown
        step("aragon", "galicia", "purple"),
        step("aragon", "atlantis", "yellow"),
        step("atlantis", "galicia", "yellow"),
        step("aragon", "galicia", "yellow", -1),
        step("aragon", "galicia", "yellow", 1.0),
        step("aragon", "galicia", "yellow", "1"),
    ],
)
def test_intrigue_5_from_region_refuses(entry):
    refused(board("intrigue_5_from_region"), 0, {"type": "special", "plan": [entry]})


# --- intrigue_3_foreign ----------------------------------------------------------------------------


def test_intrigue_3_foreign_moves_three_foreign_caballeros_from_several_regions():
    state = special(board("intrigue_3_foreign"), plan=[
        step("aragon", "granada", "yellow", 2), step("granada", "castillo", "green")])
    assert holdings(state, "yellow") == {"aragon": 1, "new_castile": 2, "granada": 4, "court": 7, "provinces": 16}
    assert holdings(state, "green") == {"granada": 3, "castillo": 1, "court": 7, "provinces": 19}
    assert holdings(state, "red")["aragon"] == 3


def test_intrigue_3_foreign_refuses_an_own_caballero():
    refused(board("intrigue_3_foreign"), 0, {"type": "special", "plan": [step("aragon", "galicia", "red")]})


def test_intrigue_3_foreign_refuses_a_fourth_caballero():
    refused(board("intrigue_3_foreign"), 0, {"type": "special", "plan": [
        step("aragon", "galicia", "yellow", 3), step("granada", "galicia", "green")]})


# --- intrigue_3_any --------------------------------------------------------------------------------


def test_intrigue_3_any_moves_own_and_foreign_caballeros():
    state = special(board("intrigue_3_any"), plan=[
        step("aragon", "catalonia", "red", 2), step("granada", "catalonia", "green")])
    assert state.caballeros[3] == [2, 0, 0, 1]
    assert state.caballeros[2] == [1, 3, 1, 0]
    assert state.caballeros[7] == [2, 2, 0, 3]


def test_intrigue_3_any_refuses_a_fourth_caballero():
    refused(board("intrigue_3_any"), 0, {"type": "special", "plan": [
        step("aragon", "galicia", "red", 2), step("aragon", "galicia", "yellow", 2)]})


def test_intrigue_3_any_refuses_the_kings_region():
    refused(board("intrigue_3_any"), 0, {"type": "special", "plan": [step("new_castile", "galicia", "yellow")]})
    refused(board("intrigue_3_any"), 0, {"type": "special", "plan": [step("granada", "new_castile", "green")]})


# --- intrigue_2_own_2_foreign ----------------------------------------------------------------------


def test_intrigue_2_own_2_foreign_moves_two_own_and_two_foreign():
    state = special(board("intrigue_2_own_2_foreign"), plan=[
        step("aragon", "basque", "red"), step("basque", "aragon", "red"),
        step("granada", "castillo", "green", 2)])
    assert holdings(state, "red")["aragon"] == 3 and "basque" not in holdings(state, "red")
    assert holdings(state, "green") == {"granada": 2, "castillo": 2, "court": 7, "provinces": 19}


@pytest.mark.parametrize(
    "plan",
    [
        [step("aragon", "galicia", "red", 3)],
        [step("aragon", "galicia", "yellow", 2), step("granada", "galicia", "green")],
        [step("aragon", "galicia", "red", 2), step("aragon", "galicia", "yellow", 2),
         step("aragon", "galicia", "blue")],
        [step("aragon", "new_castile", "red")],
    ],
)
def test_intrigue_2_own_2_foreign_refuses(plan):
    refused(board("intrigue_2_own_2_foreign"), 0, {"type": "special", "plan": plan})


@pytest.mark.parametrize(
    "plan, match",
    [
        ([step("aragon", "galicia", "red"), step("granada", "castillo", "green", 2)], "in_full_own .*count=2"),
        ([step("granada", "castillo", "green", 2)], "in_full_own .*count=2"),
        ([step("aragon", "galicia", "red", 2)], "in_full_foreign .*count=2"),
        ([step("aragon", "galicia", "red", 2), step("aragon", "galicia", "yellow")], "in_full_foreign .*count=2"),
    ],
)
def test_intrigue_2_own_2_foreign_once_begun_is_carried_out_in_full(plan, match):
    # Begun means whole (docs/rules.md, seed 001 rule 4): the card does not say "up to".
    refused(board("intrigue_2_own_2_foreign"), 0, {"type": "special", "plan": plan},
            match=match)


def test_intrigue_2_own_2_foreign_an_empty_plan_begins_nothing():
    state = board("intrigue_2_own_2_foreign")
    after = special(state, plan=[])
    assert after.caballeros == state.caballeros and after.special_done is True


def test_intrigue_2_own_2_foreign_moves_as_many_as_the_board_allows():
    # Red's only movable caballero is the one in Aragon (the King's region and the Castillo do not
    # count): one own move is whole, and the same caballero may also be moved twice.
    state = at_action("intrigue_2_own_2_foreign", caballeros={
        "aragon": {"red": 1, "yellow": 3}, "new_castile": {"red": 2}, "castillo": {"red": 1}})
    foreign = [step("aragon", "seville", "yellow", 2)]
    once = special(state, plan=[step("aragon", "galicia", "red")] + foreign)
    assert holdings(once, "red") == {"galicia": 1, "new_castile": 2, "castillo": 1, "court": 7, "provinces": 19}
    twice = special(state, plan=[step("aragon", "galicia", "red"), step("galicia", "basque", "red")] + foreign)
    assert holdings(twice, "red") == {"basque": 1, "new_castile": 2, "castillo": 1, "court": 7, "provinces": 19}
    assert holdings(twice, "yellow")["seville"] == 2
    refused(state, 0, {"type": "special", "plan": foreign},
            match="in_full_own .*count=1")
    # No foreign caballero outside the King's region and the Castillo: the own ones alone are whole.
    alone = at_action("intrigue_2_own_2_foreign", caballeros={
        "aragon": {"red": 2}, "new_castile": {"yellow": 2}, "castillo": {"blue": 1}})
    after = special(alone, plan=[step("aragon", "galicia", "red", 2)])
    assert holdings(after, "red")["galicia"] == 2


# --- intrigue_4_own --------------------------------------------------------------------------------


def test_intrigue_4_own_moves_four_own_caballeros():
    state = special(board("intrigue_4_own"), plan=[
        step("aragon", "castillo", "red", 3), step("granada", "catalonia", "red")])
    assert holdings(state, "red") == {
        "catalonia": 1, "new_castile": 2, "granada": 1, "castillo": 4, "court": 7, "provinces": 15
    }


def test_intrigue_4_own_refuses_a_foreign_caballero():
    refused(board("intrigue_4_own"), 0, {"type": "special", "plan": [step("aragon", "galicia", "yellow")]})


def test_intrigue_4_own_refuses_a_fifth_caballero():
    refused(board("intrigue_4_own"), 0, {"type": "special", "plan": [
        step("aragon", "galicia", "red", 3), step("granada", "galicia", "red", 2)]})


def test_intrigue_4_own_refuses_the_castillo_as_a_source():
    refused(board("intrigue_4_own"), 0, {"type": "special", "plan": [step("castillo", "galicia", "red")]})


# --- intrigue_4_any --------------------------------------------------------------------------------


def test_intrigue_4_any_moves_four_of_any_colours_in_order():
    # A caballero moved in by an earlier step may move on in a later one.
    state = special(board("intrigue_4_any"), plan=[
        step("granada", "galicia", "green", 2), step("galicia", "castillo", "green"),
        step("aragon", "seville", "blue")])
    assert holdings(state, "green") == {"galicia": 1, "granada": 2, "castillo": 1, "court": 7, "provinces": 19}
    assert holdings(state, "blue") == {"seville": 1, "castillo": 2, "court": 7, "provinces": 20}


def test_intrigue_4_any_refuses_a_fifth_caballero():
    refused(board("intrigue_4_any"), 0, {"type": "special", "plan": [
        step("granada", "galicia", "green", 4), step("aragon", "galicia", "red")]})


@pytest.mark.parametrize("plan", [None, "aragon", [["aragon", "galicia", "red", 1]], [{"from": "aragon"}]])
def test_intrigue_4_any_refuses_a_malformed_plan(plan):
    refused(board("intrigue_4_any"), 0, {"type": "special", "plan": plan})


def test_intrigue_an_empty_plan_moves_nobody_and_spends_the_special_action():
    state = special(board("intrigue_4_any"), plan=[])
    assert state.caballeros == board("intrigue_4_any").caballeros
    refused(state, 0, {"type": "special", "plan": []})


@pytest.mark.parametrize("card", ["intrigue_3_foreign", "intrigue_4_own", "intrigue_4_any", "intrigue_2_own_2_foreign",
                                  "intrigue_3_any", "intrigue_5_from_region"])
@pytest.mark.parametrize("colour", ["red", "yellow"])
def test_intrigue_cards_refuse_the_kings_region_as_source_or_target(card, colour):
    state = board(card)
    refused(state, 0, {"type": "special", "plan": [step("new_castile", "galicia", colour)]})
    refused(state, 0, {"type": "special", "plan": [step("aragon", "new_castile", colour)]})
    refused(state, 0, {"type": "special", "plan": [step("castillo", "galicia", "red" if colour == "red" else "blue")]})


@pytest.mark.parametrize("card", ["intrigue_4_any", "intrigue_5_from_region", "intrigue_3_foreign"])
def test_intrigue_refuses_an_absurdly_large_count_as_an_illegal_move(card):
    refused(board(card), 0, {"type": "special", "plan": [step("aragon", "galicia", "yellow", 10**12)]})


MOVE_CARD_COLOURS = {
    "intrigue_5_from_region": "yellow",
    "intrigue_3_foreign": "yellow",
    "intrigue_3_any": "red",
    "intrigue_2_own_2_foreign": "red",
    "intrigue_4_own": "red",
    "intrigue_4_any": "yellow",
}


def whole(card, entries):
    """The entries, made whole for intrigue_2_own_2_foreign (begun means whole: 2 own and 2 foreign
    once begun) with moves out of Granada (red 2, yellow 2 there); other cards' plans as given."""
    if card != "intrigue_2_own_2_foreign":
        return entries
    own = sum(entry["count"] for entry in entries if entry["colour"] == "red")
    foreign = sum(entry["count"] for entry in entries if entry["colour"] != "red")
    rest = []
    if own < 2:
        rest.append(step("granada", "basque", "red", 2 - own))
    if foreign < 2:
        rest.append(step("granada", "seville", "yellow", 2 - foreign))
    return entries + rest


@pytest.mark.parametrize("card", sorted(MOVE_CARD_COLOURS))
def test_intrigue_cards_refuse_a_move_from_a_region_to_itself(card):
    colour = MOVE_CARD_COLOURS[card]
    state = board(card)
    refused(state, 0, {"type": "special", "plan": whole(card, [step("aragon", "aragon", colour)])},
            match="move_elsewhere")
    # Also after a legal entry: the whole plan is refused and nothing moves.
    refused(state, 0, {"type": "special", "plan": whole(card, [
        step("aragon", "galicia", colour), step("aragon", "aragon", colour)])}, match="move_elsewhere")
    # The same entry with another target is legal.
    after = special(state, plan=whole(card, [step("aragon", "galicia", colour)]))
    assert after.caballeros[0][state.colours.index(colour)] == 1


def test_the_taker_fixes_the_order_of_a_redistribution_with_a_list_of_pairs():
    # Rule 9.1: the taker decides the order of the moves, which decides where a veto may cut.
    state = board("intrigue_own_region")
    state.vetoes = [[1, state.round]]
    announced = special(state, region="aragon", to=[["castillo", 1], ["galicia", 1], ["aragon", 1]])
    assert announced.action["stage"] == "veto"
    assert [step[1][0][2] for step in announced.action["steps"]] == [9, 0]  # Castillo, then Galicia
    cut = apply_move(announced, 1, {"type": "veto", "cut": 1})
    assert holdings(cut, "red")["castillo"] == 2 and holdings(cut, "red")["aragon"] == 2
    assert "galicia" not in holdings(cut, "red")


def test_a_redistribution_list_of_pairs_is_refused_when_malformed():
    refused(board("intrigue_own_region"), 0, {"type": "special", "region": "aragon", "to": [["castillo", 1, 2]]})
    refused(board("intrigue_own_region"), 0, {"type": "special", "region": "aragon", "to": [["castillo", -1]]})


def test_intrigue_own_region_list_of_pairs_runs_in_the_given_order_without_a_veto():
    state = board("intrigue_own_region")
    listed = special(state, region="aragon", to=[["castillo", 1], ["galicia", 1], ["aragon", 1]])
    mapped = special(state, region="aragon", to={"castillo": 1, "galicia": 1, "aragon": 1})
    assert listed.caballeros == mapped.caballeros
    shifts = [entry["shifts"] for entry in listed.events if entry["event"] == "shift"]
    assert [shift[0]["to"] for shift in shifts] == ["castillo", "galicia"]  # as listed
    shifts = [entry["shifts"] for entry in mapped.events if entry["event"] == "shift"]
    assert [shift[0]["to"] for shift in shifts] == ["galicia", "castillo"]  # a map is read in scoring order
    assert shifts == [
        [{"seat": 0, "from": "aragon", "to": "galicia", "count": 1}],
        [{"seat": 0, "from": "aragon", "to": "castillo", "count": 1}],
    ]


def test_intrigue_court_2_list_of_pairs_fixes_the_order_a_veto_may_cut():
    # Rule 9.1: the taker decides the order of the moves, which decides where a veto may cut.
    state = board("intrigue_court_2")
    state.vetoes = [[1, state.round]]
    announced = special(state, to=[["castillo", 1], ["galicia", 1]])
    assert announced.action["stage"] == "veto" and to_act(announced) == [1]
    assert announced.action["steps"] == [["shift", [[0, COURT, 9, 1]]], ["shift", [[0, COURT, 0, 1]]]]
    assert view_for(announced, 2)["pending"]["steps"] == [
        {"step": "shift", "shifts": [{"seat": 0, "from": "court", "to": "castillo", "count": 1}]},
        {"step": "shift", "shifts": [{"seat": 0, "from": "court", "to": "galicia", "count": 1}]},
    ]
    mapped = special(state, to={"castillo": 1, "galicia": 1})
    assert mapped.action["steps"] == [["shift", [[0, COURT, 0, 1]]], ["shift", [[0, COURT, 9, 1]]]]
    cut = apply_move(announced, 1, {"type": "veto", "cut": 1})
    assert holdings(cut, "red") == {
        "aragon": 3, "new_castile": 2, "granada": 2, "castillo": 2, "court": 6, "provinces": 15
    }
    assert cut.special_done is True and cut.phase == "action" and to_act(cut) == [0]


def test_a_list_of_pairs_naming_an_area_twice_keeps_the_takers_order_of_the_steps():
    # Rule 9.1: the taker fixes the order of his moves, so where a veto may cut. Castillo, Galicia,
    # Castillo again was announced (and run) as Castillo, Castillo, Galicia: a cut after two steps
    # then left no caballero in Galicia where the taker had announced one.
    state = board("intrigue_own_region")
    state.vetoes = [[1, state.round]]
    announced = special(state, region="aragon", to=[["castillo", 1], ["galicia", 1], ["castillo", 1]])
    assert [step[1][0][2] for step in announced.action["steps"]] == [9, 0, 9]
    cut = apply_move(announced, 1, {"type": "veto", "cut": 2})
    assert holdings(cut, "red")["galicia"] == 1 and holdings(cut, "red")["castillo"] == 2
    assert holdings(cut, "red")["aragon"] == 1
    court = board("intrigue_court_2", court={"red": 5})
    court.vetoes = [[1, court.round]]
    announced = special(court, to=[["galicia", 1], ["castillo", 0], ["galicia", 1]])
    assert [step[1][0][2] for step in announced.action["steps"]] == [0, 0]
    # Without a veto the same list runs whole, as its totals say.
    state.vetoes = []
    done = special(state, region="aragon", to=[["castillo", 1], ["galicia", 1], ["castillo", 1]])
    assert [e["shifts"][0]["to"] for e in done.events if e["event"] == "shift"] == ["castillo", "galicia", "castillo"]
    refused(state, 0, {"type": "special", "region": "aragon", "to": [["castillo", 2], ["castillo", 2]]},
            match="redistribute_all")
