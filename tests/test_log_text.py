"""The log in words (games/words/log_text.py): every event kind and step of real games has a sentence
that names players by name and colour, areas and cards by their names, and escapes user names."""

import functools
import random
import re
from pathlib import Path

import pytest
from django.utils.html import strip_tags
from django.utils.safestring import SafeString

from games.engine import apply_move, new_game, random_move, to_act, visible_events
from games.engine.board import AREAS, COLOURS
from games.engine.cards import CARDS
from games.words.log_text import EVENT_KINDS, Names, automatic_html, event_html, move_log, step_html

# Random games that between them reach every event kind, the rare ones included (a veto vetoed, a
# veto that stands, a King's return share with nothing to send, a keep-veto step under a veto).
SEEDS = (147, 49, 3, 54, 183)
README = Path(__file__).resolve().parents[1] / "games" / "engine" / "README.md"
COLOUR_WORD = re.compile(r"\b(" + "|".join(COLOURS) + r")\b", re.I)
# Ids that would show through unrendered; card ids that are plain words ("veto") are left out.
IDS = re.compile(
    r"\b("
    + "|".join(
        sorted(set(AREAS) | {card for card in CARDS if "_" in card or card == "eviction"}, key=len, reverse=True)
    )
    + r")\b"
)


def documented_kinds():
    """The event kinds of the engine's contract: the first column of the README's Events table."""
    section = README.read_text().split("## Events", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(\w+)` \|", section, re.M))


def documented_steps():
    section = README.read_text().split("## Events", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r'\{"step": "(\w+)"', section))


@functools.cache
def played():
    """[(events, colours)] of whole random games, one entry per move (the setup's first)."""
    moves = []
    for seed in SEEDS:
        state = new_game(num_players=2 + seed % 4, seed=seed, veto=True)
        moves.append((state.events, state.colours))
        rng = random.Random(seed)
        while not state.is_over:
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
            moves.append((state.events, state.colours))
    return moves


def names_for(colours):
    return Names(colours, {seat: f"user{seat}" for seat in range(len(colours))})


def check_sentence(html, colours):
    assert isinstance(html, SafeString)
    text = strip_tags(html)
    assert text.strip(), "an empty sentence"
    assert not IDS.search(text), f"an id left in {text!r}"
    named = re.sub(r"user\d \((" + "|".join(COLOURS) + r")\)", "", text)
    assert not COLOUR_WORD.search(named), f"a colour without its player's name in {text!r}"
    assert "{" not in text and "%(" not in text, f"a placeholder left in {text!r}"


def test_every_documented_event_kind_has_a_sentence():
    assert documented_kinds() <= EVENT_KINDS, documented_kinds() - EVENT_KINDS
    assert EVENT_KINDS - documented_kinds() == {"legacy"}


def test_every_event_and_step_of_real_games_reads_with_names_and_no_ids():
    seen, steps_seen = set(), set()
    for events, colours in played():
        names = names_for(colours)
        for event in events:
            seen.add(event["event"])
            check_sentence(event_html(event, names), colours)
            for step in event.get("steps", []):
                steps_seen.add(step["step"])
                check_sentence(step_html(step, names), colours)
    assert seen == documented_kinds(), f"kinds no game reached: {documented_kinds() - seen}"
    assert steps_seen == documented_steps(), f"steps no game reached: {documented_steps() - steps_seen}"


def test_players_are_named_by_user_and_colour_areas_and_cards_by_name():
    names = Names(["green", "red"], {0: "alice", 1: "bob"})
    place = event_html({"event": "place", "round": 1, "seat": 0, "to": [["old_castile", 2], ["castillo", 1]]}, names)
    assert strip_tags(place) == "alice (green) places 2 in Old Castile, 1 in the Castillo."
    take = event_html({"event": "take_card", "round": 1, "seat": 1, "card": "intrigue_2_own_2_foreign"}, names)
    # The card's title, then its explanation (shown on hover or tap: tests/test_table_reading.py).
    assert strip_tags(take.split('<span class="card-explain"')[0]) == "bob (red) takes Intrigue: 2 own, 2 foreign"
    bid = event_html({"event": "bid", "round": 1, "seat": 1, "card": 13}, names)
    assert strip_tags(bid) == "bob (red) plays power card 13."


def test_a_user_name_is_escaped():
    names = Names(["green"], {0: '<script>alert("x")</script>'})
    html = event_html({"event": "bid", "round": 1, "seat": 0, "card": 9}, names)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_a_seat_without_a_user_is_named_by_its_colour():
    names = Names(["green", "red"], {1: "bob"})
    assert strip_tags(event_html({"event": "bid", "round": 1, "seat": 0, "card": 9}, names)) == (
        "Green plays power card 9."
    )


def test_a_legacy_entry_shows_its_stored_text_escaped_on_the_page():
    text = event_html({"event": "legacy", "round": 2, "text": "Green places <2> in Aragon."}, Names(["green"]))
    assert text == "Green places <2> in Aragon."
    assert not isinstance(text, SafeString), "a stored sentence must be escaped when drawn"


def test_a_move_made_on_timeout_is_announced_with_the_players_name():
    assert strip_tags(automatic_html(0, Names(["blue"], {0: "carol"}))) == (
        "Time ran out: the site chose for carol (blue)."
    )


def test_each_line_of_a_moves_log_names_the_event_it_tells_and_the_sites_own_line_none():
    state = new_game(num_players=3, seed=3, veto=True)
    seat = to_act(state)[0]
    after = apply_move(state, seat, random_move(state, seat, random.Random(1)))
    names = Names(["green", "red", "blue"], {0: "alice", 1: "bob", 2: "carol"})
    entries = move_log(after.events, names, None, mover=seat, automatic=True)
    assert entries[0]["event"] is None and strip_tags(entries[0]["html"]).startswith("Time ran out")
    assert [entry["event"] for entry in entries[1:]] == visible_events(after.events, None) != []
    shown = visible_events(after.events, None)
    assert [entry["html"] for entry in entries[1:]] == [event_html(event, names) for event in shown]


@pytest.mark.parametrize(
    "cut, text",
    [(0, "alice (green) vetoes the whole action."), (2, "alice (green) vetoes: only the first 2 steps happen.")],
)
def test_a_plan_veto_says_how_many_steps_still_happen(cut, text):
    names = Names(["green"], {0: "alice"})
    assert strip_tags(event_html({"event": "veto", "round": 1, "seat": 0, "window": "plan", "cut": cut}, names)) == text
