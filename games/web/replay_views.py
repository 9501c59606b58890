"""The replay on the game page: any position of a game (`?at=57`, or `?back=3` for three moves
before the last), drawn with the game page's own templates, with controls to step through it.

Who sees what:
- a finished game opens as a replay, and shows everything to everyone who may see the game: each
  player's hand, the Castillo's counts, every secret choice and retaken card (engine
  `revealed_view`, and the log with every event);
- a running game's past position is shown as the reader's own seat saw it then (a spectator's view
  for anyone without a seat), with the events that seat could read: never anything it could not.
"""

import re

from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import revealed_view, view_for
from games.models import Game
from games.play import chat
from games.reading.replays import END, ROUND, SCORING, NotReplayable, position, replayable
from games.words.log_text import EVERYONE, Names, move_log
from games.words.score_chart import score_chart
from games.words.texts import fill_view, seat_name


class BadPosition(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message


POSITION_HELP = gettext_lazy(
    "A position is a whole number of moves: ?at=0 is the setup, ?at=57 the position after the 57th move "
    "(?back=3: three moves before the last)."
)
# Longer numbers are beyond any game: they are brought to its last position like any number too big.
_DIGITS = 9
_NUMBER = re.compile(r"(-?)([0-9]+)")


def wanted(game, query):
    """Whether the page shows a replay: a position was asked for, or the game is finished."""
    return "at" in query or "back" in query or (game.status == Game.Status.FINISHED and replayable(game))


def page(request, game):
    try:
        context = _context(request, game)
    except (BadPosition, NotReplayable) as error:
        status = 400 if isinstance(error, BadPosition) else 409
        return render(request, "games/replay_error.html", {"game": game, "error": error.message}, status=status)
    context["chat"] = chat.chat_context(request.user, game, context["seats"])
    return render(request, "games/game.html", context)


def partial(request, game):
    """The replay area alone, for the controls to swap in; the browser's address follows it."""
    try:
        context = _context(request, game)
    except (BadPosition, NotReplayable) as error:
        status = 400 if isinstance(error, BadPosition) else 409
        response = render(request, "games/partials/move_error.html", {"error": error.message}, status=status)
        response["HX-Retarget"] = "#move-error"
        response["HX-Reswap"] = "innerHTML"
        return response
    response = render(request, "games/partials/unlocalized.html", {**context, "partial": "games/partials/replay.html"})
    response["HX-Push-Url"] = context["replay"]["page_url"]
    response["X-Replay-Position"] = str(context["replay"]["at"])
    return response


def requested(query):
    """(at, back) as asked for by the query string, each None when not given. Out of range is
    brought in range later; what is not a whole number raises BadPosition."""
    at, back = _number(query, "at"), _number(query, "back")
    if at is not None and back is not None:
        raise BadPosition(_("Ask for one position: ?at= or ?back=, not both."))
    return at, back


def _number(query, name):
    if name not in query:
        return None
    raw = query.get(name, "")
    match = _NUMBER.fullmatch(raw)
    if match is None:
        # Unprintable characters as their escapes (a NUL byte reads \x00), quoted once: repr() of
        # the escaped text would double each backslash ('\\x00').
        shown = "'" + raw[:20].encode("unicode_escape").decode("ascii") + "'"
        raise BadPosition(_("%(shown)s is not a position.") % {"shown": shown} + " " + str(POSITION_HELP))
    sign, digits = match.groups()
    value = int(digits[-_DIGITS:]) if len(digits.lstrip("0")) <= _DIGITS else 10**_DIGITS
    return -value if sign else value


def _context(request, game):
    at, back = requested(request.GET)
    seats = list(game.seats.all())
    own = next((seat for seat in seats if seat.user_id is not None and seat.user_id == request.user.pk), None)
    finished = game.status == Game.Status.FINISHED
    found = position(game, at=at, back=max(back, 0) if back is not None else None)
    reader = EVERYONE if finished else (own.index if own is not None else None)
    view = fill_view(revealed_view(found.state) if finished else view_for(found.state, reader))
    # A past position is looked at, never decided again.
    view["decision"] = None
    by_index = {seat.index: seat for seat in seats}
    for player in view["players"]:
        seat = by_index.get(player["seat"])
        player["user"] = seat.user if seat else None
        player["name"] = seat_name(seat) if seat else ""
        player["autopilot"] = False
        player["vacation_until"] = None
        # The revealed view is everyone's; a player still finds himself in it.
        player["me"] = own is not None and player["seat"] == own.index
    names = Names.for_game(game, seats)
    return {
        "game": game,
        "seats": seats,
        "own_seat": own,
        "seat": own.index if own is not None else None,
        "view": view,
        "names": names,
        "clock": None,
        "your_move": own is not None and not finished and own.index in game.to_act,
        "log_entries": _log(game, found, names, reader),
        "log_complete": True,
        "replay": _controls(game, found, view, own, finished),
    }


def _log(game, found, names, reader):
    """The log of the position's round and the one before, up to the position, the entries of the
    move that made it (at 0, the setup's) marked."""
    entries = []
    if found.log_start.position == 0:
        entries += move_log(game.first_events, names, reader, mover=None)
    latest = 0
    for move in found.moves:
        latest = len(entries)
        entries += move_log(
            move.events,
            names,
            reader,
            mover=move.seat,
            automatic=move.automatic,
            autopilot=move.autopilot,
            move=move.move,
        )
    for entry in entries[latest:]:
        entry["latest"] = True
    return entries


def _controls(game, found, view, own, finished):
    page_url = reverse("game", args=[game.pk])
    partial_url = reverse("game_partial", args=[game.pk, "replay"])
    at, last = found.at, found.last
    rounds = found.landmarks(ROUND)
    starts = [mark.position for mark in rounds]
    earlier = [start for start in starts if start < at]
    later = [start for start in starts if start > at]
    steps = [
        ("first", "|◀", _("The setup (Home)"), 0 if at > 0 else None),
        ("previous-round", "«", _("The start of the previous round (Page Up)"), earlier[-1] if earlier else None),
        ("previous", "◀", _("The previous position (←)"), at - 1 if at > 0 else None),
        ("next", "▶", _("The next position (→)"), at + 1 if at < last else None),
        ("next-round", "»", _("The start of the next round (Page Down)"), later[0] if later else None),
        ("last", "▶|", _("The last position (End)"), last if at < last else None),
    ]
    players = [
        {
            "seat": player["seat"],
            "colour": player["colour"],
            "label": player["label"],
            "name": player["name"] or player["colour"],
        }
        for player in view["players"]
    ]
    chart = None
    if finished and found.complete:
        chart = score_chart(
            found.scores_by_round(), view["num_rounds"], view["scoring_rounds"], players, current_round=view["round"]
        )
    return {
        "at": at,
        "last": last,
        "page_url": f"{page_url}?at={at}",
        "live_url": page_url,
        "partial_url": partial_url,
        "revealed": finished,
        "steps": [
            {"name": name, "symbol": symbol, "title": title, "at": target} for name, symbol, title, target in steps
        ],
        "round_starts": starts,
        "rounds": [
            {"number": mark.round, "at": mark.position, "current": mark.round == view["round"]} for mark in rounds
        ],
        "scorings": [
            {"round": mark.round, "at": mark.position, "current": mark.position == at}
            for mark in found.landmarks(SCORING)
        ],
        "end": next((mark.position for mark in found.landmarks(END)), None),
        "chart": chart,
    }
