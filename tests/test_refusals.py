"""Every refusal of the engine, provoked by a real illegal move, said in English, Italian and French.

The engine refuses with a code and data (games/engine/errors.py); games/words/refusals.py says it in the
reader's language. Each case below makes the engine refuse with one code, and the message is checked
in each language: a sentence, translated, naming the areas, colours, cards and numbers of the data
in that language. A last test reads the engine's source for every code it can raise.
"""

import pathlib
import re

import pytest
from django.utils import translation

from games.engine import IllegalMove, apply_move, to_act
from games.words.log_text import COLOUR_WORDS
from games.words.refusals import MESSAGES, refusal_message
from games.words.texts import area_name, card_title
from tests.support.engine_builders import at_action, game
from tests.support.engine_positions import (
    SCENARIO,
    at_general_scoring,
    king_returns_position,
    secret_position,
    shortfall_state,
)
from tests.support.veto_positions import FOUR_MOVES, intrigue_position

ENGINE = pathlib.Path(__file__).resolve().parent.parent / "games" / "engine"
LANGUAGES = ("en", "it", "fr")


def step(source, target, colour, count=1):
    return {"from": source, "to": target, "colour": colour, "count": count}


def bidding():
    state = game(3, seed=4, colours=["red", "yellow", "blue"])
    return state, to_act(state)[0]


def card_phase():
    state = shortfall_state()
    return apply_move(state, 0, {"type": "court", "count": 1})


def placed(card="royal_adviser"):
    return apply_move(at_action(card), 0, {"type": "place", "to": {}})


def declined():
    return apply_move(at_action("royal_adviser"), 0, {"type": "decline"})


def over():
    state, _ = bidding()
    state = state.clone()
    state.phase = "over"
    return state


def not_in_hand():
    state, bidder = bidding()
    state = state.clone()
    state.hands[bidder] = [card for card in state.hands[bidder] if card != 5]
    return state, bidder


def second_bidder():
    state, bidder = bidding()
    return apply_move(state, bidder, {"type": "bid", "card": 5})


def special(card, **layout):
    return at_action(card, **layout)


INTRIGUE_BOARD = {"aragon": {"red": 2, "yellow": 1, "blue": 2}, "granada": {"red": 1, "yellow": 2}}


def shares():
    return apply_move(king_returns_position(), 0, {"type": "special"})


def disks():
    return apply_move(secret_position("secret_two_to_provinces", ()), 0, {"type": "special"})


def veto_question():
    return apply_move(intrigue_position(), 0, FOUR_MOVES)


def disk_veto_question():
    return apply_move(secret_position("eviction", ("blue",)), 0, {"type": "special", "region": "aragon"})


# code: (position, seat, move, what the message must name) where a position is a state or a
# function giving one; names are ("area", id), ("colour", c), ("card", id) or ("number", n).
CASES = {
    "move_not_dict": (lambda: bidding()[0], None, "bid", []),
    "game_over": (over, 0, {"type": "bid", "card": 5}, []),
    "no_such_seat": (lambda: bidding()[0], 7, {"type": "bid", "card": 5}, []),
    "not_your_turn": (lambda: bidding()[0], "other", {"type": "bid", "card": 5}, []),
    "wrong_move": (lambda: bidding()[0], None, {"type": "court", "count": 1}, []),
    "no_such_power_card": (lambda: bidding()[0], None, {"type": "bid", "card": 14}, [("number", 13)]),
    "power_card_not_in_hand": (lambda: not_in_hand()[0], None, {"type": "bid", "card": 5}, [("number", 5)]),
    "power_card_already_played": (second_bidder, None, {"type": "bid", "card": 5}, [("number", 5)]),
    "court_too_many": (shortfall_state, 0, {"type": "court", "count": 5}, [("number", 4)]),
    "court_regions_exceed_count": (shortfall_state, 0, {"type": "court", "count": 3, "from_regions": {"seville": 4}},
                                   []),
    "provinces_hold_only": (shortfall_state, 0, {"type": "court", "count": 3}, [("number", 1)]),
    "court_regions_before_provinces_empty": (
        shortfall_state, 0, {"type": "court", "count": 4, "from_regions": {"seville": 2, "aragon": 2}}, []),
    "castillo_closed": (shortfall_state, 0, {"type": "court", "count": 2, "from_regions": {"castillo": 1}},
                        [("area", "castillo")]),
    "king_region_closed": (shortfall_state, 0, {"type": "court", "count": 2, "from_regions": {"galicia": 1}}, []),
    "region_holds_only": (shortfall_state, 0, {"type": "court", "count": 4, "from_regions": {"granada": 3}},
                          [("number", 0), ("area", "granada")]),
    "card_not_on_offer": (card_phase, 0, {"type": "take_card", "card": "no_such_card"}, [("offered", None)]),
    "already_placed": (placed, 0, {"type": "place", "to": {}}, []),
    "place_too_many": (lambda: at_action("royal_adviser"), 0, {"type": "place", "to": {"old_castile": 5}},
                       [("number", 4)]),
    "court_holds_only": (lambda: at_action("royal_adviser", court={"red": 1}), 0,
                         {"type": "place", "to": {"old_castile": 2}}, [("number", 1)]),
    "place_not_next_to_king": (lambda: at_action("royal_adviser"), 0, {"type": "place", "to": {"galicia": 1}},
                               [("area", "galicia")]),
    "special_already_done": (declined, 0, {"type": "special", "to": "aragon"}, []),
    "move_elsewhere": (lambda: special("intrigue_3_any", caballeros=INTRIGUE_BOARD), 0,
                       {"type": "special", "plan": [step("aragon", "aragon", "red")]}, [("area", "aragon")]),
    "caballeros_short": (lambda: special("intrigue_3_any", caballeros=INTRIGUE_BOARD), 0,
                         {"type": "special", "plan": [step("aragon", "galicia", "yellow", 2)]},
                         [("colour", "yellow"), ("number", 0), ("area", "aragon"), ("number", 1)]),
    "no_such_area": (lambda: special("intrigue_3_any", caballeros=INTRIGUE_BOARD), 0,
                     {"type": "special", "plan": [step("atlantis", "galicia", "red")]}, []),
    "castillo_not_allowed": (lambda: at_action("royal_adviser"), 0, {"type": "special", "to": "castillo"},
                             [("area", "castillo")]),
    "count_not_whole": (shortfall_state, 0, {"type": "court", "count": "two"}, []),
    "count_too_small": (lambda: special("intrigue_3_any", caballeros=INTRIGUE_BOARD), 0,
                        {"type": "special", "plan": [step("aragon", "galicia", "red", 0)]},
                        [("number", 0), ("number", 1)]),
    "no_such_colour": (lambda: special("intrigue_3_any", caballeros=INTRIGUE_BOARD), 0,
                       {"type": "special", "plan": [step("aragon", "galicia", "purple")]}, []),
    "counts_malformed": (lambda: at_action("royal_adviser"), 0, {"type": "place", "to": "aragon"}, []),
    "order_not_list": (lambda: at_action("decay_all"), 0, {"type": "special", "order": "yellow"}, []),
    "order_each_player": (lambda: at_action("decay_all"), 0, {"type": "special", "order": ["yellow"]},
                          [("colour", "yellow"), ("colour", "blue"), ("colour", "green")]),
    "plan_missing": (lambda: special("intrigue_3_any", caballeros=INTRIGUE_BOARD), 0, {"type": "special"}, []),
    "plan_entry_malformed": (lambda: special("intrigue_3_any", caballeros=INTRIGUE_BOARD), 0,
                             {"type": "special", "plan": ["aragon"]}, []),
    "moves_too_many": (lambda: special("intrigue_3_any", caballeros=INTRIGUE_BOARD), 0,
                       {"type": "special", "plan": [step("aragon", "galicia", "blue", 2),
                                                    step("granada", "galicia", "yellow", 2)]}, [("number", 3)]),
    "own_caballeros_only": (lambda: special("intrigue_4_own", caballeros=INTRIGUE_BOARD), 0,
                            {"type": "special", "plan": [step("aragon", "galicia", "yellow")]}, []),
    "foreign_caballeros_only": (lambda: special("intrigue_3_foreign", caballeros=INTRIGUE_BOARD), 0,
                                {"type": "special", "plan": [step("aragon", "galicia", "red")]}, []),
    "own_too_many": (lambda: special("intrigue_2_own_2_foreign", caballeros=INTRIGUE_BOARD), 0,
                     {"type": "special", "plan": [step("aragon", "galicia", "red", 2),
                                                  step("granada", "galicia", "red")]}, [("number", 2)]),
    "foreign_too_many": (lambda: special("intrigue_2_own_2_foreign", caballeros=INTRIGUE_BOARD), 0,
                         {"type": "special", "plan": [step("aragon", "galicia", "blue", 2),
                                                      step("granada", "galicia", "yellow")]}, [("number", 2)]),
    "in_full_own": (lambda: special("intrigue_2_own_2_foreign", caballeros=INTRIGUE_BOARD), 0,
                    {"type": "special", "plan": [step("aragon", "galicia", "red"),
                                                 step("aragon", "galicia", "blue", 2)]}, [("number", 2)]),
    "in_full_foreign": (lambda: special("intrigue_2_own_2_foreign", caballeros=INTRIGUE_BOARD), 0,
                        {"type": "special", "plan": [step("aragon", "galicia", "red", 2),
                                                     step("aragon", "galicia", "blue")]}, [("number", 2)]),
    "one_source_region": (lambda: special("intrigue_5_from_region", caballeros=INTRIGUE_BOARD), 0,
                          {"type": "special", "plan": [step("aragon", "galicia", "red"),
                                                       step("granada", "galicia", "yellow")]}, []),
    "no_own_caballero_in_region": (lambda: special("intrigue_own_region", caballeros=INTRIGUE_BOARD), 0,
                                   {"type": "special", "region": "seville", "to": {}}, [("area", "seville")]),
    "redistribute_all": (lambda: special("intrigue_own_region", caballeros=INTRIGUE_BOARD), 0,
                         {"type": "special", "region": "aragon", "to": {"galicia": 1}},
                         [("number", 2), ("area", "aragon"), ("number", 1)]),
    "court_card_too_many": (lambda: special("intrigue_court_2"), 0, {"type": "special", "to": {"aragon": 3}},
                            [("number", 2)]),
    "in_full_court": (lambda: special("intrigue_court_2", court={"red": 5}), 0,
                      {"type": "special", "to": {"aragon": 1}}, [("number", 2)]),
    "choose_option": (lambda: special("intrigue_court_2_or_own_region", caballeros=INTRIGUE_BOARD), 0,
                      {"type": "special", "option": "both"}, []),
    "region_not_a_choice": (disks, 1, {"type": "choose_region", "region": "galicia"}, [("area", "galicia")]),
    "castillo_choice_not_region": (lambda: at_general_scoring(SCENARIO), 0,
                                   {"type": "choose_region", "region": "castillo"}, []),
    "choose_mobile_scoreboard": (lambda: at_action("mobile_scoreboard"), 0,
                                 {"type": "special", "scoreboard": "9/9/9", "to": "aragon"},
                                 [("text", "8/4/0"), ("text", "4/0/0")]),
    "scoreboard_held_by_king": (lambda: at_action("mobile_scoreboard", mobile={"8/4/0": "new_castile"}), 0,
                                {"type": "special", "scoreboard": "8/4/0", "to": "aragon"}, []),
    "scoreboard_into_king_region": (lambda: at_action("mobile_scoreboard"), 0,
                                    {"type": "special", "scoreboard": "8/4/0", "to": "new_castile"}, []),
    "scoreboard_already_there": (lambda: at_action("mobile_scoreboard", mobile={"8/4/0": "aragon"}), 0,
                                 {"type": "special", "scoreboard": "8/4/0", "to": "aragon"},
                                 [("text", "8/4/0"), ("area", "aragon")]),
    "scoreboards_same_place": (lambda: at_action("mobile_scoreboard", mobile={"8/4/0": "aragon"}), 0,
                               {"type": "special", "scoreboard": "4/0/0", "to": "aragon"}, []),
    "king_to_neighbour_only": (lambda: at_action("royal_adviser"), 0, {"type": "special", "to": "galicia"},
                               [("area", "galicia")]),
    "king_to_other_region": (lambda: at_action("king_card"), 0, {"type": "special", "to": "new_castile"},
                             [("area", "new_castile")]),
    "grande_held_by_king": (lambda: at_action("move_grande", grandes={"red": "new_castile"}), 0,
                            {"type": "special", "to": "aragon"}, []),
    "grande_into_king_region": (lambda: at_action("move_grande"), 0, {"type": "special", "to": "new_castile"}, []),
    "grande_already_there": (lambda: at_action("move_grande"), 0, {"type": "special", "to": "galicia"},
                             [("area", "galicia")]),
    "retake_own_played_only": (lambda: at_action("retake_power_card"), 0, {"type": "special", "card": 1}, []),
    "share_malformed": (shares, 1, {"type": "share", "from": "court"}, []),
    "share_source_short": (shares, 1, {"type": "share", "from": {"court": 3}}, [("number", 3), ("place", "court")]),
    "share_exactly": (shares, 1, {"type": "share", "from": {"court": 2}}, [("number", 3)]),
    "picks_missing": (lambda: special("one_each_to_provinces", caballeros=INTRIGUE_BOARD), 0,
                      {"type": "special"}, []),
    "pick_malformed": (lambda: special("one_each_to_provinces", caballeros=INTRIGUE_BOARD), 0,
                       {"type": "special", "picks": ["red"]}, []),
    "pick_no_caballero": (lambda: special("one_each_to_provinces", caballeros=INTRIGUE_BOARD), 0,
                          {"type": "special", "picks": [{"colour": "yellow", "region": "seville"}]},
                          [("colour", "yellow"), ("area", "seville")]),
    "picks_each_player": (lambda: special("one_each_to_provinces", caballeros=INTRIGUE_BOARD), 0,
                          {"type": "special", "picks": []},
                          [("colour", "red"), ("colour", "yellow"), ("colour", "blue")]),
    "veto_cut_only_zero": (disk_veto_question, 2, {"type": "veto", "cut": 1}, []),
    "veto_cut_range": (veto_question, 2, {"type": "veto", "cut": 9}, [("number", 3)]),
}

# Guards no move through apply_move can reach (the handler of each kind of move only ever sees
# moves of that kind); they keep a sentence should the dispatch change.
UNREACHABLE = {
    "answer_veto": (IllegalMove("answer_veto"), []),
    "choose_region_expected": (IllegalMove("choose_region_expected"), []),
    "share_expected": (IllegalMove("share_expected"), []),
}


def provoke(code):
    position, seat, move, names = CASES[code]
    state = position() if callable(position) else position
    if seat is None:
        seat = to_act(state)[0]
    elif seat == "other":
        seat = next(s for s in range(state.num_players) if s not in to_act(state))
    before = state.to_json()
    with pytest.raises(IllegalMove) as info:
        apply_move(state, seat, move)
    assert state.to_json() == before
    return info.value, names


def expected_words(error, names):
    """What the message must name, in the active language."""
    words = []
    for kind, value in names:
        if kind == "area":
            words.append(area_name(value))
        elif kind == "colour":
            words.append(str(COLOUR_WORDS[value]))
        elif kind == "number":
            words.append(str(value))
        elif kind == "text":
            words.append(value)
        elif kind == "place":
            words.append({"en": "court", "it": "corte", "fr": "cour"}[translation.get_language()])
        elif kind == "offered":
            words.extend(card_title(card) for card in error.data["offered"])
    return words


def check_sentences(error, names):
    messages = {}
    for language in LANGUAGES:
        with translation.override(language):
            message = refusal_message(error)
            assert message.endswith("."), (language, message)
            assert len(message) > 15 and " " in message, (language, message)
            assert "%(" not in message and "{" not in message, (language, message)
            assert error.code not in message, (language, message)
            assert message != str(translation.gettext("This move is not allowed.")), (language, error.code)
            for word in expected_words(error, names):
                assert word.lower() in message.lower(), (language, word, message)
            messages[language] = message
    assert messages["it"] != messages["en"] and messages["fr"] != messages["en"], messages
    assert messages["it"] != messages["fr"], messages
    return messages


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_refusal_comes_from_a_real_illegal_move_and_is_said_in_three_languages(code):
    error, names = provoke(code)
    assert error.code == code, str(error)
    check_sentences(error, names)


@pytest.mark.parametrize("code", sorted(UNREACHABLE))
def test_each_guard_refusal_is_said_in_three_languages(code):
    error, names = UNREACHABLE[code]
    check_sentences(error, names)


def engine_codes():
    """Every refusal code in the engine's source: IllegalMove("code", ...) and the codes a
    refusal picks between (`code = "a" if ... else "b"`)."""
    codes = set()
    for path in ENGINE.rglob("*.py"):
        text = path.read_text()
        codes.update(re.findall(r'IllegalMove\(\s*"([a-z_]+)"', text))
        pairs = re.findall(r'code = "([a-z_]+)" if .* else "([a-z_]+)"', text)
        codes.update(code for pair in pairs for code in pair)
    return codes


def test_every_code_the_engine_raises_has_a_message_and_a_test():
    codes = engine_codes()
    assert len(codes) > 60
    assert codes == set(MESSAGES), (codes - set(MESSAGES), set(MESSAGES) - codes)
    assert codes == set(CASES) | set(UNREACHABLE), (codes - set(CASES) - set(UNREACHABLE))


def test_the_engine_says_no_sentence_and_imports_no_translation():
    for path in ENGINE.rglob("*.py"):
        text = path.read_text()
        assert "django" not in text and "gettext" not in text, path
        assert not re.search(r'IllegalMove\(\s*f?"[A-Z]', text), path


def test_an_unknown_code_still_gets_a_sentence():
    with translation.override("it"):
        assert refusal_message(IllegalMove("no_such_code")) == "Questa mossa non è consentita."
    with translation.override("fr"):
        assert refusal_message(ValueError("x")) == "Ce coup n'est pas autorisé."


def test_a_refusal_survives_pickling_for_the_task_queue():
    import pickle

    error = IllegalMove("region_holds_only", count=1, area="aragon")
    again = pickle.loads(pickle.dumps(error))
    assert (again.code, again.data) == ("region_holds_only", {"count": 1, "area": "aragon"})
    assert str(again) == "region_holds_only (count=1, area='aragon')"


def test_the_site_shows_the_refusal_in_the_players_language():
    from games.play import steps
    from games.play.errors import GameError

    state = shortfall_state()
    with translation.override("fr"):
        with pytest.raises(GameError) as info:
            steps._apply(state, 0, {"type": "court", "count": 4, "from_regions": {"granada": 3}})
    assert str(info.value) == "Vous n'avez que 0 Caballero dans cette région\u00a0: Grenade."
