"""The map's controls outside the site (tests/browser/test_map_choices.py, test_map_confirm.py): a
page built from the game page's decision panel, styles and script for a special action's turn."""

import random
from pathlib import Path
from types import SimpleNamespace

from django.template.loader import render_to_string

from games.engine import apply_move, new_game, random_move, to_act, view_for
from games.moves.moves_forms import DecisionPanel
from games.words.log_text import Names

STATIC = Path(__file__).resolve().parents[2] / "static"


# The map's script, the page's last script, as the game page loads it (an ES module: the page is
# opened with tests.support.static_pages.open_page, whose /static/ serves the site's files).
MAP_SCRIPT = '<script type="module" src="/static/decision.js"></script>'

# Forms post nowhere here: each submission is kept in window.sent, as the fields it would post.
KEEP_SUBMISSIONS = """
window.sent = [];
document.addEventListener('submit', event => {
    event.preventDefault();
    window.sent.push(Object.fromEntries(new FormData(event.target, event.submitter)));
}, true);
"""


def special_turn(card):
    """A seat's action turn in a three-player game, its card replaced by `card`."""
    state = new_game(num_players=3, seed=5)
    rng = random.Random(5)
    while True:
        seat = to_act(state)[0]
        decision = view_for(state, seat).get("decision") or {}
        if decision.get("kind") == "action" and decision.get("can_special") and state.round >= 2:
            state.taken[seat] = card
            return view_for(state, seat)
        state = apply_move(state, seat, random_move(state, seat, rng))


def player_colours(view):
    return [player["colour"] for player in sorted(view["players"], key=lambda player: player["seat"])]


def page_for(view):
    game = SimpleNamespace(pk=1, version=7)
    styles = "".join((STATIC / name).read_text() for name in ("site.css", "board.css"))
    body = (
        '<div id="play"><div id="decision">'
        + render_to_string(
            "games/partials/decision.html",
            {"view": view, "game": game, "panel": DecisionPanel.for_view(view), "names": Names(player_colours(view))},
        )
        + '</div><div id="board">'
        + render_to_string("games/partials/board.html", {"view": view, "game": game})
        + "</div></div>"
        + render_to_string("games/partials/map_texts.html")
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<style>{styles}</style><script>{KEEP_SUBMISSIONS}</script></head><body><main>{body}</main>"
        f"{MAP_SCRIPT}</body></html>"
    )
