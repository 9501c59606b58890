"""The board's repeated parts written in Python (games/words/board_markup.py, and the decision
panel's buttons, games/words/decision_markup.py) write byte for byte what the template loops they
replaced wrote: each loop is kept in tests/support/board_loops/ as it stood in the templates, and
both are rendered as the play partial renders them (`{% localize off %}`), over positions of every
phase of games of 2 to 5 players up to their end, each seat's reader and the spectators', a
finished game's replay (everything revealed), in English, Italian and French, with players' names
that need escaping, computer players, seats on autopilot or vacation, and a clock."""

import datetime
import random
from pathlib import Path

import pytest
from django.template import engines
from django.utils import timezone, translation

from games.engine import apply_move, new_game, random_move, revealed_view, to_act, view_for
from games.words.texts import fill_view

PREFIX = "{% load i18n l10n game_page game_tags %}{% localize off %}"
SUFFIX = "{% endlocalize %}"

# The loops as they stood in the templates (main at 8ccb37a), one file each, and the tags that replace them.
LOOPS = Path(__file__).parent / "support" / "board_loops"
OLD = {path.stem: path.read_text().removesuffix("\n") for path in sorted(LOOPS.glob("*.html"))}
NEW = {
    "map_rounds": "{% round_track view as rounds %}{% map_rounds rounds %}",
    "map_markers": "{% score_track view as track %}{% map_markers view track.markers %}",
    "round_list": "{% round_track view as rounds %}{% round_list rounds %}",
    "score_list": "{% players_by_score view as ranked %}{% score_list ranked %}",
    "players_panel": "{% players_panel view %}",
    "offer_cards": "{% offer_cards view.cards %}",
    "board_words": "{% board_text view as text %}{% board_words text view %}",
    "stacks_line": "{% stacks_line view.stacks %}",
    "ranking_line": "{% if view.ranking %}{% ranking_line view %}{% endif %}",
    "hand_cards": "{% hand_cards view.hand %}",
    "played_cards": "{% played_cards view.played %}",
    "bid_buttons": "{% bid_buttons panel.decision.moves %}",
    "region_buttons": "{% region_buttons panel.choices %}",
}
OLD_SETUP = "{% round_track view as rounds %}{% score_track view as track %}{% players_by_score view as ranked %}"
NAMES = ["<script>alert(1)</script>", 'Zoë & "Rocco"', "l'Ami", "bob", "Ève"]


def _positions():
    """(state, label): positions of every phase, decision and pending action met in random games
    of 2 to 5 players, long and short, up to and including their end."""
    found = []
    for num_players in (2, 3, 4, 5):
        for short in (False, True):
            rng = random.Random(num_players * 10 + short)
            state = new_game(num_players=num_players, seed=num_players + 20 * short, short_game=short)
            seen = set()
            while not state.is_over:
                seat = to_act(state)[0]
                view = view_for(state, seat)
                kind = (state.phase, (view.get("decision") or {}).get("kind"), (view.get("pending") or {}).get("kind"))
                if kind not in seen or rng.random() < 0.01:
                    seen.add(kind)
                    found.append((state, f"{num_players} players {kind}"))
                state = apply_move(state, seat, random_move(state, seat, rng))
            found.append((state, f"{num_players} players, over"))
    return found


def _views(state):
    """Each reader's view as game_context fills it in: each seat's, the spectators', and once the
    game is over the replay's with everything revealed."""
    views = [fill_view(view_for(state, seat)) for seat in [*range(state.num_players), None]]
    if state.is_over:
        views.append(fill_view(revealed_view(state)))
    for view in views:
        for player in view["players"]:
            seat = player["seat"]
            player["name"] = NAMES[seat] if seat != 3 else ""  # a seat whose user is gone: its colour
            player["autopilot"] = seat == 1 and not view["is_over"]
            player["computer"] = "3" if seat == 2 else ""
            player["vacation_until"] = datetime.date(2026, 12, 3 + seat) if seat in (0, 4) else None
    return views


@pytest.fixture(scope="module")
def readers():
    return [(label, view) for state, label in _positions() for view in _views(state)]


def test_the_positions_cover_every_phase_and_the_end(readers):
    assert set(OLD) == set(NEW)
    labels = " ".join(label for label, _ in readers)
    for word in ("bid", "court", "card", "action", "special", "castillo", "veto", "share", "over"):
        assert word in labels, word
    assert {len(view["players"]) for _, view in readers} == {2, 3, 4, 5}
    assert any(view.get("revealed") for _, view in readers)
    kinds = {(view.get("decision") or {}).get("kind") for _, view in readers}
    assert {"bid", "region", "castillo"} <= kinds


@pytest.mark.parametrize("language", ["en", "it", "fr"])
def test_the_boards_parts_written_in_python_are_the_templates_byte_for_byte(readers, language):
    django = engines["django"]
    old = {part: django.from_string(PREFIX + OLD_SETUP + source + SUFFIX) for part, source in OLD.items()}
    new = {part: django.from_string(PREFIX + source + SUFFIX) for part, source in NEW.items()}
    deadline = datetime.datetime(2026, 12, 1, 18, 30, tzinfo=datetime.UTC)
    clocks = [None, {"deadline": deadline, "seconds": 3600, "left": "1 h left"}]
    compared = 0
    with translation.override(language), timezone.override("Europe/Rome"):
        # The catalogues are there: a word a loop wrote is the language's own.
        assert (translation.gettext("Court") == "Court") == (language == "en")
        for index, (label, view) in enumerate(readers):
            context = {"view": view, "clock": clocks[index % 2]}
            for part in OLD:
                expected = old[part].render(context)
                assert new[part].render(context) == expected, (part, label, view["seat"], language)
                compared += 1
    assert compared >= 7 * 300
    # The words are the reader's language's, and names are escaped.
    html = new["players_panel"].render({"view": readers[0][1], "clock": None})
    assert "<script>" not in html and "&lt;script&gt;" in html
