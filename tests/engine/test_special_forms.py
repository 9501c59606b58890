"""What `options()` says a special action allows is what the rules accept: every single choice it
offers is accepted, the choices it leaves out are refused, the view shows the same options, and the
share a King's-return player is asked for matches the moves the engine lists."""

import random

import pytest

from games.engine import IllegalMove, apply_move, legal_moves, new_game, random_move, to_act, view_for
from games.engine.board import AREAS, MOBILE_SCOREBOARDS, POWER_CARDS, REGIONS
from games.engine.cards import CARDS
from tests.support.engine_builders import at_action, refused


def action_positions():
    """Action-phase positions from random games, each with the taker's card."""
    found = []
    for seed in range(12):
        state = new_game(2 + seed % 4, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            seat = to_act(state)[0]
            if state.phase == "action" and not state.special_done:
                found.append((state, seat))
            state = apply_move(state, seat, random_move(state, seat, rng))
    return found


POSITIONS = action_positions()


def step(source, target, colour):
    return {"from": source, "to": target, "colour": colour, "count": 1}


def whole_plan(state, seat, options, entries):
    """The entries, followed by as many moves as the card needs once begun (options' least own and
    foreign counts): one caballero of the missing side moved on between two regions."""
    work = [row[:] for row in state.caballeros]
    done = {"own": 0, "foreign": 0}
    for entry in entries:
        mover = state.colours.index(entry["colour"])
        work[AREAS.index(entry["from"])][mover] -= 1
        work[AREAS.index(entry["to"])][mover] += 1
        done["own" if mover == seat else "foreign"] += 1
    plan = list(entries)
    for side in ("own", "foreign"):
        while done[side] < options[side][0]:
            pieces = [
                (region, mover)
                for region in options["sources"]
                for mover in range(state.num_players)
                if (mover == seat) == (side == "own") and work[AREAS.index(region)][mover]
            ]
            region, mover = pieces[0]
            target = next(r for r in options["sources"] if r != region)
            plan.append(step(region, target, state.colours[mover]))
            work[AREAS.index(region)][mover] -= 1
            work[AREAS.index(target)][mover] += 1
            done[side] += 1
    return plan


def caballero_moves(state, seat, options):
    """One plan per source and colour there, and one per destination, each made whole if need be."""
    pieces = [
        (source, colour)
        for source in options["sources"]
        for colour in options["colours"]
        if state.caballeros[AREAS.index(source)][state.colours.index(colour)]
    ]
    entries = [
        step(source, next(d for d in options["destinations"] if d != source), colour) for source, colour in pieces
    ]
    for target in options["destinations"]:
        for source, colour in pieces:
            if source != target:
                entries.append(step(source, target, colour))
                break
    return [{"plan": whole_plan(state, seat, options, [entry])} for entry in entries]


def offered_moves(state, seat, options):
    """The special moves made of single choices the options offer: each must be accepted."""
    action = options["action"]
    if action in ("move_king", "move_grande"):
        return [{"to": target} for target in options["targets"]]
    if action == "score_area":
        return [{"region": area} for area in options["areas"]]
    if action == "retake_power_card":
        return [{"card": card} for card in options["cards"]]
    if action == "mobile_scoreboard":
        return [
            {"scoreboard": board["id"], "to": target} for board in options["scoreboards"] for target in board["targets"]
        ]
    if action == "evict":
        return [{"region": region, "order": options["order"]} for region in options["regions"]]
    if action == "order":
        return [{"order": options["order"]}, {"order": options["order"][::-1]}, {}]
    if action == "court_to_regions":
        if not options["count"]:
            return [{"to": {}}]
        return [{"to": {target: options["count"]}} for target in options["destinations"]]
    if action == "redistribute":
        return [
            {"region": region, "to": {target: state.caballeros[AREAS.index(region)][seat]}}
            for region in options["regions"]
            for target in options["destinations"] + [region]
        ]
    if action == "picks":
        picks = options["picks"]
        return [
            {
                "picks": [
                    {"colour": other["colour"], "region": region if other is pick else other["regions"][0]}
                    for other in picks
                ]
            }
            for pick in picks
            for region in pick["regions"]
        ] or [{"picks": []}]
    if action == "move_caballeros":
        return caballero_moves(state, seat, options) + [{"plan": []}]
    if action == "either":
        return [
            {"option": name, **fields}
            for name, inner in options["options"].items()
            for fields in offered_moves(state, seat, inner)
        ]
    assert action in ("keep_veto", "none"), action
    return [{}]


def left_out_moves(state, seat, options):
    """Special moves the options do not offer: each must be refused."""
    action = options["action"]
    regions_and_castillo = list(REGIONS) + ["castillo"]
    if action in ("move_king", "move_grande"):
        return [{"to": area} for area in regions_and_castillo if area not in options["targets"]]
    if action == "retake_power_card":
        return [{"card": card} for card in POWER_CARDS if card not in options["cards"]]
    if action == "mobile_scoreboard":
        offered = {board["id"]: board["targets"] for board in options["scoreboards"]}
        return [
            {"scoreboard": board, "to": area}
            for board in MOBILE_SCOREBOARDS
            for area in regions_and_castillo
            if area not in offered.get(board, [])
        ]
    if action == "evict":
        return [{"region": area} for area in regions_and_castillo if area not in options["regions"]]
    if action == "order":
        return [{"order": options["order"][:-1]}, {"order": options["order"] + [state.colours[seat]]}]
    if action == "court_to_regions":
        moves = [{"to": {options["destinations"][0]: options["count"] + 1}}]
        if options["count"] > 1:  # begun means whole
            moves.append({"to": {options["destinations"][0]: options["count"] - 1}})
        if options["count"]:
            moves.append({"to": {REGIONS[state.king]: options["count"]}})
        return moves
    if action == "redistribute":
        return [{"region": area, "to": {}} for area in regions_and_castillo if area not in options["regions"]]
    if action == "picks":
        return [{"picks": [{"colour": pick["colour"], "region": pick["regions"][0]} for pick in options["picks"][1:]]}]
    if action == "move_caballeros":
        return caballero_moves_left_out(state, seat, options)
    if action == "either":
        return [
            {"option": name, **fields}
            for name, inner in options["options"].items()
            for fields in left_out_moves(state, seat, inner)
        ]
    return []


def caballero_moves_left_out(state, seat, options):
    moves = []
    king = REGIONS[state.king]
    for colour in state.colours:
        mover = state.colours.index(colour)
        held = [s for s in options["sources"] if state.caballeros[AREAS.index(s)][mover]]
        if colour not in options["colours"] and held:
            moves.append({"plan": [step(held[0], "castillo", colour)]})
        if colour in options["colours"]:
            if state.caballeros[state.king][mover]:
                moves.append({"plan": [step(king, "castillo", colour)]})
            if held:
                moves.append({"plan": [step(held[0], king, colour)]})
    return moves


def test_every_single_choice_the_options_offer_is_accepted_and_the_others_refused():
    checked = refusals = 0
    actions = set()
    for state, seat in POSITIONS:
        card = CARDS[state.taken[seat]]
        options = card.options(state, seat)
        assert view_for(state, seat)["decision"]["special"] == options
        actions.add(options["action"])
        for fields in offered_moves(state, seat, options):
            try:
                apply_move(state, seat, {"type": "special", **fields})
            except IllegalMove as error:
                raise AssertionError((card.id, fields, str(error))) from error
            checked += 1
        for fields in left_out_moves(state, seat, options):
            with pytest.raises(IllegalMove):
                apply_move(state, seat, {"type": "special", **fields})
            refusals += 1
    assert checked > 1000 and refusals > 500
    assert actions >= {
        "move_caballeros",
        "redistribute",
        "court_to_regions",
        "either",
        "order",
        "evict",
        "picks",
        "score_area",
        "mobile_scoreboard",
        "move_king",
        "move_grande",
        "retake_power_card",
        "keep_veto",
        "none",
    }


def test_the_view_shows_the_options_of_the_card_taken():
    state = at_action("royal_adviser")
    assert view_for(state, 0)["decision"]["special"] == {
        "action": "move_king",
        "targets": ["aragon", "old_castile", "seville", "granada", "valencia"],
    }
    assert view_for(state, 1)["decision"] is None


@pytest.mark.parametrize(
    "card, most, own, foreign, colours",
    [
        ("intrigue_4_own", 4, [0, 4], [0, 0], ["red"]),
        ("intrigue_3_foreign", 3, [0, 0], [0, 3], ["yellow", "blue", "green"]),
        ("intrigue_4_any", 4, [0, 4], [0, 4], ["red", "yellow", "blue", "green"]),
        ("intrigue_3_any", 3, [0, 3], [0, 3], ["red", "yellow", "blue", "green"]),
        ("intrigue_5_from_region", 5, [0, 5], [0, 5], ["red", "yellow", "blue", "green"]),
        # begun means whole: 2 own (the board holds 2) and 2 foreign
        ("intrigue_2_own_2_foreign", 4, [2, 2], [2, 2], ["red", "yellow", "blue", "green"]),
    ],
)
def test_the_options_of_a_card_moving_caballeros(card, most, own, foreign, colours):
    state = at_action(
        card, caballeros={"aragon": {"red": 2, "yellow": 2}, "new_castile": {"blue": 3}, "castillo": {"green": 1}}
    )
    options = CARDS[card].options(state, 0)
    assert state.colours[0] == "red"
    regions = [r for r in REGIONS if r != "new_castile"]
    assert options == {
        "action": "move_caballeros",
        "most": most,
        "own": own,
        "foreign": foreign,
        "one_source": card == "intrigue_5_from_region",
        "sources": regions,
        "destinations": regions + ["castillo"],
        "colours": colours,
    }


def test_the_options_of_2_own_2_foreign_follow_what_the_board_allows():
    # One own caballero outside the King's region and the Castillo, no foreign one: 1 (or 2, the same
    # one twice) own, 0 foreign.
    state = at_action(
        "intrigue_2_own_2_foreign",
        caballeros={"aragon": {"red": 1}, "new_castile": {"red": 2, "yellow": 3}, "castillo": {"blue": 1}},
    )
    options = CARDS["intrigue_2_own_2_foreign"].options(state, 0)
    assert options["own"] == [1, 2] and options["foreign"] == [0, 2]


@pytest.mark.parametrize("court, count", [(7, 2), (1, 1), (0, 0)])
def test_the_court_options_give_the_exact_count(court, count):
    state = at_action("intrigue_court_2", court={"red": court})
    options = CARDS["intrigue_court_2"].options(state, 0)
    assert options == {
        "action": "court_to_regions",
        "count": count,
        "destinations": [r for r in REGIONS if r != "new_castile"] + ["castillo"],
    }
    either = CARDS["intrigue_court_2_or_own_region"].options(
        at_action("intrigue_court_2_or_own_region", court={"red": court}, caballeros={"aragon": {"red": 2}}), 0
    )
    assert either["action"] == "either" and either["options"]["court"] == options
    assert either["options"]["own_region"] == {
        "action": "redistribute",
        "regions": ["aragon"],
        "destinations": options["destinations"],
    }


def test_the_mobile_scoreboard_options_leave_out_the_kings_region_and_the_other_board():
    state = at_action("mobile_scoreboard", mobile={"8/4/0": "aragon", "4/0/0": "new_castile"})
    assert CARDS["mobile_scoreboard"].options(state, 0) == {
        "action": "mobile_scoreboard",
        "scoreboards": [
            {"id": "8/4/0", "where": "aragon", "targets": [a for a in AREAS if a not in ("aragon", "new_castile")]}
        ],
    }
    state = at_action("mobile_scoreboard", mobile={"8/4/0": "aragon"})
    boards = CARDS["mobile_scoreboard"].options(state, 0)["scoreboards"]
    assert [(board["id"], board["where"]) for board in boards] == [("8/4/0", "aragon"), ("4/0/0", None)]
    assert "aragon" not in boards[1]["targets"] and "new_castile" not in boards[1]["targets"]
    refused(state, 0, {"type": "special", "scoreboard": "4/0/0", "to": "aragon"}, match="scoreboards_same_place")


def test_the_share_a_player_is_asked_for_matches_the_legal_shares():
    state = at_action("king_returns", caballeros={"aragon": {"yellow": 2}, "granada": {"yellow": 1}})
    state = apply_move(state, 0, {"type": "special"})
    seat = state.colours.index("yellow")
    decision = view_for(state, seat)["decision"]
    assert decision["kind"] == "share" and decision["needed"] == 3
    assert {s["id"]: s["max"] for s in decision["sources"]} == {"court": 7, "aragon": 2, "granada": 1}
    for move in legal_moves(state, seat):
        assert sum(move["from"].values()) == 3
        assert all(count <= {"court": 7, "aragon": 2, "granada": 1}[source] for source, count in move["from"].items())
