"""Tags for the game page: the board drawing, the round track, names in words. The decision panel is
built with the page's context (games/moves/moves_forms.py), not here."""

import functools

from django import template
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import conditional_escape, escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from games.engine.board import POWER_CARD_CABALLEROS
from games.words import board_map as drawing
from games.words import board_markup, decision_markup, log_text, texts
from games.words.board_text import board_text as board_words
from games.words.log_text import step_html

register = template.Library()


@register.simple_tag
def board_map(view):
    decision = view.get("decision") or {}
    placeable = decision.get("place_areas", []) if decision.get("can_place") else []
    return drawing.board_map(
        view, seat_colour=view.get("colour"), placeable=placeable, placing=bool(decision.get("can_place"))
    )


@register.simple_tag
def board_text(view):
    """The board in words for screen readers (games/words/board_text.py)."""
    return board_words(view)


@register.simple_tag
def map_fixed():
    """The parts of the map that no position changes, drawn once per process (a hundred spaces of
    the scoring track would otherwise double the time the board takes to render)."""
    return _fixed_markup(get_language())


@functools.cache
def _fixed_markup(language):
    """Once per language: the names of lands and seas are in the reader's."""
    return render_to_string("games/partials/map_fixed.html", {"fixed": drawing.fixed_parts()})


@register.simple_tag
def players_by_score(view):
    return sorted(view["players"], key=lambda player: -player["score"])


@register.filter
def player_at(view, seat):
    """The player dict of a seat (for pending.taker, pending.awaiting…)."""
    if seat is None:
        return None
    return view["players"][seat]


@register.filter
def colour_player(view, colour):
    """The player of a colour in words, as the log names them (games/words/board_map.py)."""
    return drawing.colour_player(view, colour)


@register.simple_tag
def map_areas(view, areas, changed_areas=None):
    """The map's areas drawn (games/words/board_map.py `areas_markup`)."""
    return drawing.areas_markup(view, areas, changed_areas or ())


@register.simple_tag(takes_context=True)
def players_panel(context, view):
    """The players' panel; beside each seat to act, the clock's countdown when there is a clock,
    rendered here once from templates/games/partials/countdown.html with the page's context."""
    countdown = ""
    if context.get("clock") and view.get("to_act"):
        countdown = context.template.engine.get_template("games/partials/countdown.html").render(context)
    return board_markup.players_panel(view, countdown)


@register.simple_tag
def offer_cards(cards):
    return board_markup.offer(cards, reverse("rules"))


@register.simple_tag
def log_items(entries):
    """The log's lines, newest first, each an <li> of its round, marked `latest` (the last move's)
    and `new` (others' moves since the reader's last look). Written here, not by a loop of the
    template: some 60 lines of six nodes each were a tenth of the play partial's render."""
    items = []
    for entry in reversed(entries):
        marks = ("latest" if entry.get("latest") else "") + (" new" if entry.get("new") else "")
        marked = f' class="{marks}"' if entry.get("latest") or entry.get("new") else ""
        items.append(f'<li data-round="{escape(entry["round"])}"{marked}>{conditional_escape(entry["html"])}</li>')
    return mark_safe("".join(items))


@register.filter
def card_title(card_id):
    """An action card's title, which explains the card on hover or tap (games/words/log_text.py)."""
    return log_text.card(card_id)


@register.filter
def power_caballeros(card):
    """How many caballeros a power card brings to court."""
    return POWER_CARD_CABALLEROS.get(card, "")


@register.filter
def area_name(area_id):
    return texts.area_name(area_id)


@register.simple_tag(takes_context=True)
def step_sentence(context, step):
    """An announced step of a special action in words (games/words/log_text.py)."""
    return step_html(step, context["names"])


@register.simple_tag(takes_context=True)
def player_name(context, seat):
    """A seat's player in words: "alice (green)"."""
    return context["names"].player(seat)


# The board's parts and the decision panel's buttons written in Python (games/words/board_markup.py,
# decision_markup.py: byte for byte the loops they replaced, tests/test_board_markup.py), each a tag
# of the same name taking the same arguments.
for _function in (
    drawing.round_track,
    drawing.score_track,
    board_markup.map_rounds,
    board_markup.map_markers,
    board_markup.round_list,
    board_markup.score_list,
    board_markup.stacks_line,
    board_markup.ranking_line,
    board_markup.hand_cards,
    board_markup.played_cards,
    decision_markup.bid_buttons,
    decision_markup.barred_bids,
    decision_markup.region_buttons,
):
    register.simple_tag(_function)
register.simple_tag(board_markup.board_text, name="board_words")
