"""The game log in words: the one place where the engine's events (games/engine/README.md, Events)
and the steps of a veto question become sentences.

Players are named by their user name with their colour ("alice (green)"), areas by their names,
action cards by their titles, power cards by number. Every string is marked for translation, and
every sentence is built with `format_html`, so a user name is always escaped.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from django.urls import reverse
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine import visible_events
from games.engine.board import AREAS
from games.engine.cards import CARDS
from games.words.texts import card_text, card_title, seat_name

COLOUR_WORDS = {
    "red": gettext_lazy("red"),
    "yellow": gettext_lazy("yellow"),
    "blue": gettext_lazy("blue"),
    "green": gettext_lazy("green"),
    "brown": gettext_lazy("brown"),
}

AREA_NAMES = {
    "galicia": gettext_lazy("Galicia"),
    "basque": gettext_lazy("Basque Country"),
    "aragon": gettext_lazy("Aragon"),
    "catalonia": gettext_lazy("Catalonia"),
    "old_castile": gettext_lazy("Old Castile"),
    "new_castile": gettext_lazy("New Castile"),
    "seville": gettext_lazy("Seville"),
    "granada": gettext_lazy("Granada"),
    "valencia": gettext_lazy("Valencia"),
    "castillo": gettext_lazy("the Castillo"),
}
assert set(AREA_NAMES) == set(AREAS)

PLACES = {
    1: gettext_lazy("1st"),
    2: gettext_lazy("2nd"),
    3: gettext_lazy("3rd"),
    4: gettext_lazy("4th"),
    5: gettext_lazy("5th"),
    6: gettext_lazy("6th"),
}
RANKS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}


class Names:
    """How one game names its players: the user in each seat and the seat's colour."""

    def __init__(self, colours, users=None):
        self.colours = list(colours)
        self.users = dict(users or {})

    @classmethod
    def for_game(cls, game, seats):
        """From a Game and its Seat rows (users selected with them, or None for a deleted user)."""
        return cls(game.colours, {seat.index: seat_name(seat) for seat in seats})

    def player(self, seat):
        colour = self.colours[seat] if 0 <= seat < len(self.colours) else None
        word = COLOUR_WORDS.get(colour, colour)
        name = self.users.get(seat)
        if not name:
            # A user since deleted: the colour alone, which is all the table knew.
            return format_html('<span class="who colour-{}">{}</span>', colour, str(word).capitalize())
        return format_html('<span class="who colour-{}">{} ({})</span>', colour, name, word)

    def players(self, seats):
        return mark_safe(", ".join(self.player(seat) for seat in seats))


def area(area_id):
    return AREA_NAMES.get(area_id, area_id)


def place(location):
    """A location of a shift: an area, the court or the provinces."""
    if location == "court":
        return _("court")
    if location == "provinces":
        return _("the provinces")
    return area(location)


# Inside `plain_cards()` a card is its title alone: for mails, where a disclosure does not open.
_plain_cards = ContextVar("plain_cards", default=False)


@contextmanager
def plain_cards():
    token = _plain_cards.set(True)
    try:
        yield
    finally:
        _plain_cards.reset(token)


def card(card_id):
    """An action card by its title, which explains itself: the card's text shows on hover (the
    title attribute) and on a tap or Enter (a <details> disclosure, which needs no script), with a
    link to the card on the rules page."""
    kind = CARDS.get(card_id)
    if kind is None:
        return escape(card_id)
    if _plain_cards.get():
        return format_html("<em>{}</em>", card_title(kind.id))
    return card_ref(kind)


def card_ref(kind):
    return format_html(
        '<details class="card-ref" data-card-ref="{id}"><summary title="{text}">{title}</summary>'
        '<span class="card-explain" role="note"><span class="card-explain-title">{title}</span>: {text} '
        '<a href="{rules}#card-{id}">{more}</a></span></details>',
        id=kind.id,
        title=card_title(kind.id),
        text=card_text(kind.id),
        rules=reverse("rules"),
        more=_("Rules"),
    )


def caballeros(count):
    return ngettext("%(count)d caballero", "%(count)d caballeros", count) % {"count": count}


def reason(text):
    if text == "king_bonus":
        return _("the King's bonus")
    if text == "home_bonus":
        return _("home bonus")
    if text.startswith("tied_"):
        return _("tied, %(place)s place's points") % {"place": PLACES[RANKS[text[5:]]]}
    return _("%(place)s place") % {"place": PLACES[RANKS[text]]}


def _shifts(shifts, names):
    """Caballeros moved, grouped by player where one player's come in a row."""
    groups = []
    for shift in shifts:
        if groups and groups[-1][0] == shift["seat"]:
            groups[-1][1].append(shift)
        else:
            groups.append((shift["seat"], [shift]))
    # Translated for its colon: French puts a non-breaking space before it.
    said = _("{player}: {moves}")
    return format_html_join(
        "; ",
        "{}",
        (
            (
                format_html(
                    said,
                    player=names.player(seat),
                    moves=format_html_join(
                        ", ",
                        _("{} from {} to {}"),
                        ((caballeros(s["count"]), place(s["from"]), place(s["to"])) for s in moved),
                    ),
                ),
            )
            for seat, moved in groups
        ),
    )


def _awards(awards, names):
    return format_html_join(
        "; ",
        "{} {} ({})",
        (
            (
                names.player(a["seat"]),
                ngettext("scores %(points)d point", "scores %(points)d points", a["points"]) % {"points": a["points"]},
                reason(a["reason"]),
            )
            for a in awards
        ),
    )


# --- steps of a special action (pending.steps, veto_question.steps) ------------------------------


def step_html(step, names):
    """One announced step of a special action as a sentence."""
    kind = step["step"]
    if kind == "shift":
        return format_html("{}.", _shifts(step["shifts"], names))
    if kind == "points":
        return format_html(
            _("Scoring {area}: {awards}."), area=area(step["area"]), awards=_awards(step["awards"], names)
        )
    if kind == "king":
        return format_html(_("The King moves to {region}."), region=area(step["region"]))
    if kind == "mobile":
        return format_html(
            _("The {scoreboard} scoreboard goes to {area}."), scoreboard=step["scoreboard"], area=area(step["area"])
        )
    if kind == "grande":
        return format_html(
            _("{player} moves their Grande to {region}."),
            player=names.player(step["seat"]),
            region=area(step["region"]),
        )
    if kind == "retake":
        if "card" in step:
            return format_html(
                _("{player} takes back power card {card}."), player=names.player(step["seat"]), card=step["card"]
            )
        return format_html(_("{player} takes back a played power card."), player=names.player(step["seat"]))
    if kind == "keep_veto":
        return format_html(_("{player} keeps the Veto card."), player=names.player(step["seat"]))
    raise ValueError(f"no sentence for the step {kind!r}")


def steps_html(steps, names):
    return format_html_join(" ", "{}. {}", ((number, step_html(step, names)) for number, step in enumerate(steps, 1)))


# --- events ---------------------------------------------------------------------------------------


def event_html(event, names):
    """One event of the log as a sentence (safe HTML)."""
    kind = event["event"]
    render = _EVENTS.get(kind) or _SITE_EVENTS.get(kind)
    if render is None:
        raise ValueError(f"no sentence for the event {kind!r}")
    return render(event, names)


def _setup(event, names):
    seats = format_html_join(
        "; ",
        _("{} at seat {}, home region {}"),
        ((names.player(seat), seat + 1, area(home)) for seat, home in enumerate(event["homes"])),
    )
    return format_html(
        _("The game is set up: {seats}. The King stands in {king}. {first} bids first."),
        seats=seats,
        king=area(event["king"]),
        first=names.player(event["first_bidder"]),
    )


def _round(event, names):
    return format_html(
        _("Round {round} begins; {first} bids first. Cards on offer: {cards}."),
        round=event["round"],
        first=names.player(event["first_bidder"]),
        cards=mark_safe("; ".join(card(c) for c in event["cards"])),
    )


def _bid(event, names):
    return format_html(_("{player} plays power card {card}."), player=names.player(event["seat"]), card=event["card"])


def _order(event, names):
    return format_html(_("Turn order: {players}."), players=names.players(event["order"]))


def _court(event, names):
    player = names.player(event["seat"])
    if "power_card" in event:
        return format_html(
            _("{player} moves no caballero to court (power card {card})."), player=player, card=event["power_card"]
        )
    if event.get("from_regions"):
        taken = format_html_join(
            ", ", _("{} from {}"), ((n, area(region)) for region, n in event["from_regions"].items())
        )
        return format_html(
            _("{player} moves {count} to court ({taken})."),
            player=player,
            count=caballeros(event["count"]),
            taken=taken,
        )
    if not event["count"]:
        # A player who chose to send none: "moves 0 caballeros to court" read as a slip.
        return format_html(_("{player} moves no caballero to court."), player=player)
    return format_html(_("{player} moves {count} to court."), player=player, count=caballeros(event["count"]))


def _take_card(event, names):
    return format_html(_("{player} takes {card}."), player=names.player(event["seat"]), card=card(event["card"]))


def _place(event, names):
    player = names.player(event["seat"])
    if not event["to"]:
        return format_html(_("{player} places no caballero."), player=player)
    spread = format_html_join(", ", _("{} in {}"), ((n, area(where)) for where, n in event["to"]))
    return format_html(_("{player} places {spread}."), player=player, spread=spread)


def _decline(event, names):
    return format_html(
        _("{player} does not use the special action of {card}."),
        player=names.player(event["seat"]),
        card=card(event["card"]),
    )


def _special(event, names):
    text = format_html(_("{player} carries out {card}"), player=names.player(event["seat"]), card=card(event["card"]))
    if "region" in event:
        text = format_html(_("{text} on {region}"), text=text, region=area(event["region"]))
    if "order" in event:
        text = format_html(_("{text}, in the order {players}"), text=text, players=names.players(event["order"]))
    return format_html("{}.", text)


def _veto_question(event, names):
    holders = names.players(event["holders"])
    window = event["window"]
    if window == "disks":
        return format_html(_("{holders} may stop the whole action before anyone sets a disk."), holders=holders)
    if window == "share":
        return format_html(
            _("{holders} may stop the action before the share of {player}."),
            holders=holders,
            player=names.player(event["before"]),
        )
    return format_html(
        _("{holders} may veto the announced steps: {steps}"), holders=holders, steps=steps_html(event["steps"], names)
    )


def _allowed(event, names):
    return escape(_("Nobody vetoes."))


def _veto(event, names):
    player = names.player(event["seat"])
    window = event["window"]
    if window == "disks":
        return format_html(_("{player} vetoes: no disk is set, the action stops."), player=player)
    if window == "share":
        return format_html(
            _("{player} vetoes before the share of {other}: the action stops."),
            player=player,
            other=names.player(event["before"]),
        )
    if event["cut"] == 0:
        return format_html(_("{player} vetoes the whole action."), player=player)
    return format_html(
        ngettext(
            "{player} vetoes: only the first step happens.",
            "{player} vetoes: only the first {cut} steps happen.",
            event["cut"],
        ),
        player=player,
        cut=event["cut"],
    )


def _counter_veto(event, names):
    return format_html(
        _("{player} vetoes the veto of {vetoer}: the action goes on."),
        player=names.player(event["seat"]),
        vetoer=names.player(event["vetoer"]),
    )


def _veto_stands(event, names):
    return format_html(_("The veto of {player} stands."), player=names.player(event["seat"]))


def _awaiting_choices(event, names):
    return format_html(_("Waiting for {players} to choose in secret."), players=names.players(event["seats"]))


def _chosen(event, names):
    return format_html(_("{player} has chosen."), player=names.player(event["seat"]))


def _reveal(event, names):
    choices = format_html_join(
        ", ", _("{} chose {}"), ((names.player(c["seat"]), area(c["region"])) for c in event["choices"])
    )
    return format_html(_("The disks are revealed: {choices}."), choices=choices)


def _share_none(event, names):
    return format_html(_("{player} has no caballero to send to the provinces."), player=names.player(event["seat"]))


def _shift(event, names):
    return format_html("{}.", _shifts(event["shifts"], names))


def _points(event, names):
    return format_html(
        ngettext(
            "{player} scores {points} point in {area} ({reason}).",
            "{player} scores {points} points in {area} ({reason}).",
            event["points"],
        ),
        player=names.player(event["seat"]),
        points=event["points"],
        area=area(event["area"]),
        reason=reason(event["reason"]),
    )


def _king(event, names):
    return format_html(_("The King moves to {region}."), region=area(event["region"]))


def _mobile(event, names):
    return format_html(
        _("The {scoreboard} scoreboard goes to {area}."), scoreboard=event["scoreboard"], area=area(event["area"])
    )


def _grande(event, names):
    return format_html(
        _("{player} moves their Grande to {region}, their new home region."),
        player=names.player(event["seat"]),
        region=area(event["region"]),
    )


def _retake(event, names):
    if "card" in event:
        return format_html(
            _("{player} takes back power card {card}."), player=names.player(event["seat"]), card=event["card"]
        )
    return format_html(_("{player} takes back a played power card."), player=names.player(event["seat"]))


def _retake_private(event, names):
    return format_html(_("(Only you see this: the power card you took back is {card}.)"), card=event["card"])


def _keep_veto(event, names):
    return format_html(
        _("{player} keeps the Veto card, usable until the end of round {round}."),
        player=names.player(event["seat"]),
        round=event["until_round"],
    )


def _discard(event, names):
    return format_html(_("Discarded unused: {cards}."), cards=mark_safe("; ".join(card(c) for c in event["cards"])))


def _veto_expired(event, names):
    return format_html(_("The unused Veto card of {player} is discarded."), player=names.player(event["seat"]))


def _general_scoring(event, names):
    return format_html(_("General scoring after round {round}."), round=event["round"])


def _castillo_reveal(event, names):
    player, region, count = names.player(event["seat"]), area(event["region"]), caballeros(event["count"])
    if event.get("to_court"):
        return format_html(
            _("{player} chose {region}, the King's region: {count} from the Castillo go to court."),
            player=player,
            region=region,
            count=count,
        )
    return format_html(
        _("{player} chose {region}: {count} from the Castillo go there."), player=player, region=region, count=count
    )


def _scores(event, names):
    totals = format_html_join(", ", "{} {}", ((names.player(s), score) for s, score in enumerate(event["scores"])))
    return format_html(_("Scores: {totals}."), totals=totals)


def _game_over(event, names):
    ranking = format_html_join(", ", "{}. {}", ((place, names.player(seat)) for place, seat in event["ranking"]))
    return format_html(_("The game is over. {ranking}."), ranking=ranking)


def _legacy(event, names):
    # A sentence stored by the site before the log was made of events: shown as it was written.
    return event["text"]


_EVENTS = {
    "setup": _setup,
    "round": _round,
    "bid": _bid,
    "order": _order,
    "court": _court,
    "take_card": _take_card,
    "place": _place,
    "decline": _decline,
    "special": _special,
    "veto_question": _veto_question,
    "allowed": _allowed,
    "veto": _veto,
    "counter_veto": _counter_veto,
    "veto_stands": _veto_stands,
    "awaiting_choices": _awaiting_choices,
    "chosen": _chosen,
    "reveal": _reveal,
    "share_none": _share_none,
    "shift": _shift,
    "points": _points,
    "king": _king,
    "mobile": _mobile,
    "grande": _grande,
    "retake": _retake,
    "retake_private": _retake_private,
    "keep_veto": _keep_veto,
    "discard": _discard,
    "veto_expired": _veto_expired,
    "general_scoring": _general_scoring,
    "castillo_reveal": _castillo_reveal,
    "scores": _scores,
    "game_over": _game_over,
    "legacy": _legacy,
}
EVENT_KINDS = frozenset(_EVENTS)


# The site's own events about a seat, stored after the engine's events of a move (services).
def _autopilot_on(event, names):
    return format_html(
        _("{player} let the time run out twice in a row and is on autopilot: the site moves for them at once "
          "until they play again."),
        player=names.player(event["seat"]),
    )


def _autopilot_off(event, names):
    return format_html(_("{player} is back from autopilot and plays again."), player=names.player(event["seat"]))


def _answered_ahead(event, names):
    # A private event: read by the seat itself, and by everyone in the finished game's replay.
    return format_html(_("{player} allows (answered ahead)."), player=names.player(event["seat"]))


def _autopilot_chosen(event, names):
    return format_html(
        _("{player} lets the computer play their seat: the site moves for them at once until they take it back."),
        player=names.player(event["seat"]),
    )


_SITE_EVENTS = {
    "autopilot_on": _autopilot_on,
    "autopilot_chosen": _autopilot_chosen,
    "autopilot_off": _autopilot_off,
    "answered_ahead": _answered_ahead,
}
SITE_EVENT_KINDS = frozenset(_SITE_EVENTS)


# The reader of a finished game's replay, who sees every event: no seat's secrets are kept.
EVERYONE = "everyone"


def revealed_event_html(event, names):
    """An event as the replay of a finished game says it to everyone: a private event names whose
    secret it was."""
    if event["event"] == "retake_private":
        return format_html(
            _("(Secret then: the power card {player} took back is {card}.)"),
            player=names.player(event["seat"]),
            card=event["card"],
        )
    return event_html(event, names)


def secret_choice_html(seat, region, names):
    """A secret disk or Castillo choice, as a finished game's replay reveals it."""
    return format_html(_("(Secret then: {player} chose {region}.)"), player=names.player(seat), region=area(region))


def move_log(events, names, reader, *, mover, automatic=False, autopilot=False, move=None, since=0):
    """The log entries of one stored move as `reader` may read them: [{"round", "html", "event"}],
    `event` the event an entry tells (None for the lines the site adds: a move it made for the
    seat, a secret choice revealed).

    `reader`: a seat, None (a spectator), or EVERYONE for a finished game's replay, which also
    reveals the choice of a secret move (`move`: the move as stored). `mover`: the seat that moved.
    Only events of round `since` on are kept."""
    if reader == EVERYONE:
        shown = [event for event in events if event["round"] >= since]
        say = revealed_event_html
    else:
        shown = [event for event in visible_events(events, reader) if event["round"] >= since]
        say = event_html
    entries = []
    if automatic and shown:
        entries.append({"round": shown[0]["round"], "html": automatic_html(mover, names, autopilot), "event": None})
    for event in shown:
        entries.append({"round": event["round"], "html": say(event, names), "event": event})
        if reader == EVERYONE and event["event"] == "chosen" and (move or {}).get("type") == "choose_region":
            entries.append(
                {"round": event["round"], "html": secret_choice_html(mover, move["region"], names), "event": None}
            )
    return entries


def automatic_html(seat, names, autopilot=False):
    """Said before the events of a move the site made for the seat: its time ran out, or it is on
    autopilot."""
    if autopilot:
        return format_html(_("On autopilot: the site chose for {player}."), player=names.player(seat))
    return format_html(_("Time ran out: the site chose for {player}."), player=names.player(seat))
