"""The rules page: how to play, for players, with every action card by its title and text (the
card catalogue, games/engine/cards/catalogue.py), each with an anchor `#card-<id>` that the cards'
explanations on the game pages link to."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from .engine.board import AREAS, MOBILE_SCOREBOARDS, NEIGHBOURS, POWER_CARD_CABALLEROS, REGION_NAMES, SCOREBOARDS
from .engine.cards import CARDS

STACK_NAMES = {
    1: "Stack 1: intrigue",
    2: "Stack 2",
    3: "Stack 3: scorings",
    4: "Stack 4",
    5: "The King card (on offer every round)",
}


def card_stacks():
    """[{"number", "name", "cards": [card kinds]}] in the order of the catalogue."""
    stacks = []
    for number, name in STACK_NAMES.items():
        cards = [kind for kind in CARDS.values() if kind.stack == number]
        stacks.append({"number": number, "name": name, "cards": cards})
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
                "name": REGION_NAMES[area_id],
                "values": "/".join(str(value) for value in SCOREBOARDS[area_id]),
                "neighbours": [REGION_NAMES[n] for n in neighbours],
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
