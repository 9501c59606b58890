"""The turn report: what happened in a game since a player's last move, as play-by-email turn
reports told it. The "your move" mails carry it (text and HTML), and the game page shows it at the
top to a player coming back (docs/mail.md, "The turn report").

It is made of the same events and sentences as the game's log (games/words/log_text.py), read as a
spectator reads them: only what is public. A secret disk choice before its reveal, a hand, the
power card a player took back are private events or no events at all, so they never appear, not
even the reader's own. Each scoring is one table per region: who got how many points, and why.
"""

from dataclasses import dataclass, field
from html import unescape

from django.db.models import F, Subquery
from django.db.models.functions import Coalesce
from django.utils.html import strip_tags
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import Move
from games.words.log_text import Names, area, move_log, plain_cards, reason

# The most moves a report tells; older ones are left to the game's log.
MOST_MOVES = 150


def plain(html):
    """A sentence of the log as text, for the text part of a mail."""
    return unescape(strip_tags(html))


@dataclass
class Scoring:
    """One region's scoring: rows of {player, player_text, points, reason}."""

    round: int
    area_id: str
    rows: list = field(default_factory=list)
    kind: str = "scoring"

    @property
    def title(self):
        return _("Scoring %(area)s:") % {"area": area(self.area_id)}


@dataclass
class Line:
    round: int
    html: str
    kind: str = "line"

    @property
    def text(self):
        return plain(self.html)


@dataclass
class Report:
    """The report's items in order, grouped by round: [(round's title, [Line | Scoring])]."""

    rounds: list
    moves: int
    # More moves were made than the report tells (MOST_MOVES): the oldest are left out.
    cut: bool
    # The player has not moved yet: the report tells the game from its start.
    first: bool = False
    # The version of the latest move told.
    latest: int = 0

    @property
    def heading(self):
        if self.first:
            return ngettext(
                "Since the game began: %(count)d move by the others",
                "Since the game began: %(count)d moves by the others",
                self.moves,
            ) % {"count": self.moves}
        return ngettext(
            "Since your last move: %(count)d move by the others",
            "Since your last move: %(count)d moves by the others",
            self.moves,
        ) % {"count": self.moves}

    @property
    def cut_note(self):
        if self.cut:
            return _("(Only the latest %(count)d moves; the game's log has the rest.)") % {"count": MOST_MOVES}
        return ""

    def text(self):
        """The whole report as the lines of a mail's text part."""
        lines = [self.heading]
        if self.cut:
            lines.append(self.cut_note)
        for title, items in self.rounds:
            lines += ["", title]
            for item in items:
                if item.kind == "line":
                    lines.append(f"- {item.text}")
                    continue
                lines.append(f"- {item.title}")
                width = max(len(row["player_text"]) for row in item.rows)
                points_width = max(len(row["points_text"]) for row in item.rows)
                for row in item.rows:
                    lines.append(
                        f"    {row['player_text'].ljust(width)}  {row['points_text'].rjust(points_width)}"
                        f"  ({row['reason']})"
                    )
        return "\n".join(lines)


def round_title(number):
    return _("Setup") if number == 0 else _("Round %(round)s") % {"round": number}


def since_last_move(game, seat, seats):
    """The report for the player in `seat` of `game` (`seats`: the game's Seat rows with their
    users), or None when nothing happened since their last move. Their last move is the last one
    they made themselves: one the site made for them when their time ran out is told. One query."""
    own = Move.objects.filter(game=game, seat__index=seat, automatic=False).order_by("-version").values("version")
    last = Coalesce(Subquery(own[:1]), 0)
    # None newer than the game as read: the report is kept with the page's frame under its version.
    rows = list(
        game.moves.annotate(last=last)
        .filter(version__gt=F("last"), version__lte=game.version)
        .order_by("-version")
        .values_list("events", "automatic", "autopilot", "seat__index", "version", "last")[: MOST_MOVES + 1]
    )
    cut = len(rows) > MOST_MOVES
    rows = rows[:MOST_MOVES][::-1]
    if not rows:
        return None
    names = Names.for_game(game, seats)
    items = []
    for events, automatic, autopilot, mover, *_rest in rows:
        # The log's lines of the move as a spectator reads them; points join their region's table.
        for entry in move_log(events, names, None, mover=mover, automatic=automatic, autopilot=autopilot):
            event = entry["event"]
            if event is not None and event["event"] == "points":
                _add_points(items, event, names)
            else:
                items.append(Line(entry["round"], entry["html"]))
    rounds, current = [], None
    for item in items:
        if item.round != current:
            current = item.round
            rounds.append((round_title(current), []))
        rounds[-1][1].append(item)
    moves = sum(1 for row in rows if row[3] != seat)
    if not rounds:
        return None
    return Report(rounds=rounds, moves=moves, cut=cut, first=not rows[0][5], latest=rows[-1][4])


def _add_points(items, event, names):
    """Points scored in a region join the table of that region when it comes just before."""
    last = items[-1] if items else None
    if not (isinstance(last, Scoring) and last.area_id == event["area"] and last.round == event["round"]):
        last = Scoring(event["round"], event["area"])
        items.append(last)
    player = names.player(event["seat"])
    last.rows.append({
        "player": player,
        "player_text": plain(player),
        "points": event["points"],
        "points_text": ngettext("%(points)d point", "%(points)d points", event["points"]) % {"points": event["points"]},
        "reason": reason(event["reason"]),
    })


def mail_context(game, seat, seats):
    """The report's part of a "your move" mail's context (`seats`: {index: Seat}): cards by
    their titles, a mail having no disclosure to open."""
    with plain_cards():
        report = since_last_move(game, seat, seats.values())
        text = report.text() if report is not None else ""
    return {"report": report, "report_text": text}


def page_context(game, own, seats, seen_before):
    """The report at the top of the game page for its player (`own`: their Seat, `seen_before`:
    the version they had seen before this visit): {"report", "report_open"}. Open when it tells
    moves they have not seen yet, folded to its heading line otherwise; none for a spectator or
    a game not under way."""
    if own is None or game.status != game.Status.ACTIVE:
        return {"report": None, "report_open": False, "report_reader": False}
    report = since_last_move(game, own.index, seats)
    return {
        "report": report,
        "report_open": report is not None and report.latest > (seen_before or 0),
        # The page's script fetches the report again with each new version (static/game.js): for a
        # player only, a spectator's page asks for nothing but its socket's frames.
        "report_reader": True,
    }
