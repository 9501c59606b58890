"""The ladder pages: one per ladder, best first, paginated, the viewer's own row a click away."""

from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from . import selectors
from .models import PROVISIONAL_BELOW, Ladder
from .rating import SHOWN_BASE


@require_GET
def ladder(request, players=None):
    if players is None:
        chosen = Ladder.ALL
    elif players in Ladder.values and players != Ladder.ALL:
        chosen = Ladder(players)
    else:
        raise Http404(_("There is no such ladder: games have 2 to 5 players."))
    return render(
        request,
        "ratings/ladder.html",
        {
            "ladder": chosen,
            "ladders": list(Ladder),
            "page": selectors.ladder_page(chosen, request.GET.get("page"), request.user),
            "own": selectors.own_standing(chosen, request.user),
            "base": SHOWN_BASE,
            "provisional_below": PROVISIONAL_BELOW,
        },
    )
