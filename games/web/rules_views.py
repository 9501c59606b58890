"""The rules page: how to play, for players, with every action card by its title and text (the
card catalogue, games/engine/cards/catalogue.py), each with an anchor `#card-<id>` that the cards'
explanations on the game pages link to."""

from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from games.engine.board import AREAS, MOBILE_SCOREBOARDS, NEIGHBOURS, POWER_CARD_CABALLEROS, SCOREBOARDS
from games.engine.cards import CARDS
from games.words.texts import area_name, card_entry

STACK_NAMES = {
    1: _("Stack 1: intrigue"),
    2: _("Stack 2"),
    3: _("Stack 3: scorings"),
    4: _("Stack 4"),
    5: _("The King card (on offer every round)"),
}


def card_stacks():
    """[{"number", "name", "cards": [{id, stack, title, text, placement, copies}]}] in the order of the
    catalogue, in the reader's language."""
    stacks = []
    for number, name in STACK_NAMES.items():
        cards = [{**card_entry(kind.id), "copies": kind.copies} for kind in CARDS.values() if kind.stack == number]
        stacks.append({"number": number, "name": str(name), "cards": cards})
    return stacks


def regions():
    """The nine regions in scoring order, then the Castillo, with their values and neighbours."""
    rows = []
    for order, area_id in enumerate(AREAS, start=1):
        neighbours = [AREAS[index] for index in sorted(NEIGHBOURS.get(area_id, ()))]
        rows.append(
            {
                "id": area_id,
                "order": order if area_id != "castillo" else None,
                "name": area_name(area_id),
                "values": "/".join(str(value) for value in SCOREBOARDS[area_id]),
                "neighbours": [area_name(n) for n in neighbours],
            }
        )
    return rows


@require_GET
def rules(request):
    return render(
        request,
        "games/rules.html",
        {
            "stacks": card_stacks(),
            "regions": regions(),
            "power_cards": sorted(POWER_CARD_CABALLEROS.items()),
            "mobile_scoreboards": MOBILE_SCOREBOARDS,
        },
    )
