"""The game's words on the web side: region names, card titles and card texts in the reader's
language. The engine knows areas and cards by id only (games/engine/README.md); everything a
player reads about them comes from here, through gettext (locale/<lang>/LC_MESSAGES/django.po).

The Italian and French catalogues use the words of the seed rulebooks of those languages (corte,
province, Intrigo, Castillo; cour, province, Intrigue, décompte…); docs/translations.md lists how
each card text was checked.
"""

from django.core.signals import setting_changed
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine.board import AREAS
from games.engine.cards import CARDS


def colon():
    """The colon after a label in the active language: French puts a no-break space before it
    ("Tournoi : ..."), as the catalogue's sentences do; for a label and its text put together in
    code, where no catalogue entry holds the colon (the `colon` template tag says the same)."""
    return "\u00a0:" if (translation.get_language() or "")[:2] == "fr" else ":"


# What a decision asks, by the `kind` of `view_for(...)["decision"]`: in the mails that say whose
# move it is (games/mail/composing.py), and in the refusal of fields that answer another decision
# (games/moves/moves_forms.py).
ASKED = {
    "bid": _("your bid"),
    "court": _("your court move"),
    "card": _("take a card"),
    "action": _("your placement and special action"),
    "region": _("choose a region"),
    "share": _("send your King's-return share"),
    "veto": _("answer a veto question"),
    "counter_veto": _("answer a veto question"),
    "castillo": _("your Castillo choice"),
}

# Each table of lazy words below, as plain text in one language: {(id(table), language): {key: text}}.
_SAID = {}


def said(table):
    """`table` ({key: lazy text}, one of this room's constant tables) with every value said in the
    active language, computed once per table and language and kept for the process: a render asks
    for an area's or a colour's name some 170 times, and each lazy string's `str` is a gettext
    (bench/README.md, "Speed (issue 22)": a tenth of a render's calls)."""
    language = translation.get_language()
    words = _SAID.get((id(table), language))
    if words is None:
        words = _SAID[id(table), language] = {key: str(value) for key, value in table.items()}
    return words


def _forget_said(setting, **kwargs):
    # Tests that change the languages or the catalogues' paths get their new words (as Django's
    # own translations are reloaded then).
    if setting in ("LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS"):
        _SAID.clear()


setting_changed.connect(_forget_said)

AREA_NAMES = {
    "galicia": _("Galicia"),
    "basque": _("Basque Country"),
    "aragon": _("Aragon"),
    "catalonia": _("Catalonia"),
    "old_castile": _("Old Castile"),
    "new_castile": _("New Castile"),
    "seville": _("Seville"),
    "granada": _("Granada"),
    "valencia": _("Valencia"),
    "castillo": pgettext_lazy("area", "Castillo"),
}
assert set(AREA_NAMES) == set(AREAS)

# Each card: a short title (where a card is named) and its text.
CARD_TEXTS = {
    "intrigue_own_region": (
        _("Intrigue: own region"),
        _("Take all your caballeros from one region and redistribute them freely (some may go back)."),
    ),
    "intrigue_court_2": (
        _("Intrigue: 2 from court"),
        _("Put 2 more caballeros from your court into any regions and/or the Castillo (all, if fewer)."),
    ),
    "intrigue_court_2_or_own_region": (
        _("Intrigue: court or own region"),
        _(
            "Either put 2 caballeros from court into any regions/Castillo, or redistribute all your caballeros "
            "of one region."
        ),
    ),
    "intrigue_5_from_region": (
        _("Intrigue: 5 from one region"),
        _("Move up to 5 caballeros of any colours from one region to other regions and/or the Castillo."),
    ),
    "intrigue_3_foreign": (
        _("Intrigue: 3 foreign"),
        _("Move up to 3 caballeros of other players to other regions and/or the Castillo."),
    ),
    "intrigue_3_any": (
        _("Intrigue: 3 of any colour"),
        _("Move up to 3 caballeros of any colours to other regions and/or the Castillo."),
    ),
    "intrigue_2_own_2_foreign": (
        _("Intrigue: 2 own, 2 foreign"),
        _(
            "Move 2 of your caballeros and 2 of other players to other regions and/or the Castillo (as many as "
            "there are, if fewer)."
        ),
    ),
    "intrigue_4_own": (
        _("Intrigue: 4 own"),
        _("Move up to 4 of your caballeros to other regions and/or the Castillo."),
    ),
    "intrigue_4_any": (
        _("Intrigue: 4 of any colour"),
        _("Move up to 4 caballeros of any colours to other regions and/or the Castillo."),
    ),
    "veto": (
        _("Veto"),
        _(
            "Keep this card: once, in this round or the next, stop all or the rest of a special action (a Veto "
            "included)."
        ),
    ),
    "decay_all": (
        _("Decay: whole court"),
        _("Every other player sends their whole court to the provinces."),
    ),
    "decay_3": (
        _("Decay: 3 from court"),
        _("Every other player sends 3 caballeros from court to the provinces (all, if fewer)."),
    ),
    "king_returns": (
        _("The King returns"),
        _(
            "Every other player in turn, clockwise from your left, sends 3 own caballeros from regions and/or "
            "court to the provinces (as many as they can, if fewer)."
        ),
    ),
    "one_each_to_provinces": (
        _("One of each to the provinces"),
        _("Send 1 caballero of every player, your own included, from any region to the provinces."),
    ),
    "secret_two_to_provinces": (
        _("Secret disk: 2 to the provinces"),
        _(
            "Every other player secretly picks a region holding at least 2 of their caballeros (one holding 1 "
            "if none holds 2) and sends 2 of them (or the 1) to the provinces."
        ),
    ),
    "secret_all_to_provinces": (
        _("Secret disk: all to the provinces"),
        _(
            "Every other player secretly picks a region of theirs and sends all their caballeros there to the "
            "provinces."
        ),
    ),
    "score_one_region": (
        _("Scoring: one region"),
        _("Score one region of your choice; the King's region and the Castillo may be chosen."),
    ),
    "score_fours": (
        _("Scoring: the 4s"),
        _("Score every region whose 1st value is 4 (not the Castillo)."),
    ),
    "score_fives": (
        _("Scoring: the 5s"),
        _("Score every region whose 1st value is 5 (not the Castillo)."),
    ),
    "score_six_sevens": (
        _("Scoring: the 6s and 7s"),
        _("Score every region whose 1st value is 6 or 7 (not the Castillo)."),
    ),
    "score_castillo": (
        _("Scoring: the Castillo"),
        _("Score the Castillo; the caballeros stay inside."),
    ),
    "score_first_only": (
        _("Scoring: leaders only"),
        _("Score all nine regions, but only the sole leader of each scores its 1st value (with bonuses)."),
    ),
    "score_most": (
        _("Scoring: the most caballeros"),
        _("Score the region(s) with the most caballeros in total (not the Castillo)."),
    ),
    "score_least": (
        _("Scoring: the fewest caballeros"),
        _(
            "Score the region(s) with the fewest caballeros in total (regions with none never count; not the "
            "Castillo)."
        ),
    ),
    "score_any_region": (
        _("Scoring: any region"),
        _("Score one region of your choice; the King's region and the Castillo may be chosen."),
    ),
    "mobile_scoreboard": (
        _("Mobile scoreboard"),
        _(
            "Put a mobile scoreboard onto a region or the Castillo, or move one already on the board to another "
            "(never into or out of the King's region, never onto the other scoreboard)."
        ),
    ),
    "royal_adviser": (
        _("Royal adviser"),
        _("Move the King to a neighbouring region."),
    ),
    "eviction": (
        _("Eviction"),
        _(
            "Name a region: every other player there secretly picks another region and all their caballeros go "
            "there (the King's region or the same region sends them to court)."
        ),
    ),
    "move_grande": (
        pgettext_lazy("card", "Grande"),
        _("Move your Grande to any region but the King's; it becomes your home region."),
    ),
    "retake_power_card": (
        _("Power card back"),
        _("Take one of your played power cards back into your hand."),
    ),
    "court_2": (
        _("Court: 2 from the provinces"),
        _("Move 2 of your caballeros from the provinces to your court."),
    ),
    "secret_unique_scoring": (
        _("Secret disk: unique scoring"),
        _(
            "Every player secretly picks a region (the King's region too, not the Castillo); each region picked "
            "by exactly one player is scored."
        ),
    ),
    "king_card": (
        _("The King"),
        _("Move the King to any region."),
    ),
}
assert set(CARD_TEXTS) == set(CARDS)
_CARD_TITLES = {card_id: texts[0] for card_id, texts in CARD_TEXTS.items()}
_CARD_BODIES = {card_id: texts[1] for card_id, texts in CARD_TEXTS.items()}

# Each colour's letter on the chips and pieces, in the reader's language (the engine's are English).
COLOUR_LETTERS = {
    "red": pgettext_lazy("colour letter: red", "R"),
    "yellow": pgettext_lazy("colour letter: yellow", "Y"),
    "blue": pgettext_lazy("colour letter: blue", "B"),
    "green": pgettext_lazy("colour letter: green", "G"),
    "brown": pgettext_lazy("colour letter: brown", "N"),
}


def colour_letter(colour):
    """A colour's letter in the active language ("?" for an unknown colour)."""
    return said(COLOUR_LETTERS).get(colour, "?")


# A computer player's name in the reader's words: its account is "Computer (greedy) 2" (games/computer.py).
COMPUTER_LEVELS = {
    "random": pgettext_lazy("computer player level", "random"),
    "greedy": pgettext_lazy("computer player level", "greedy"),
    "strong": pgettext_lazy("computer player level", "strong"),
}


def computer_name(username, level):
    """"Computer (greedy) 2" in the active language: "Ordinateur (glouton) 2"."""
    name = str(_("Computer (%(level)s)")) % {"level": COMPUTER_LEVELS.get(level, level)}
    number = username.rsplit(") ", 1)[1] if ") " in username else ""
    return f"{name} {number}" if number else name


def seat_name(seat):
    """The name shown beside a seat on pages and in mails: a computer player's in the reader's
    words, anyone else's as `Seat.display_name` (game records keep the account's own name)."""
    if seat.computer and seat.user_id is not None and not seat.user.deleted_at:
        return computer_name(seat.user.username, seat.computer)
    return seat.display_name


def area_name(area_id):
    """An area's name in the active language (the id itself for an unknown id)."""
    name = said(AREA_NAMES).get(area_id)
    return name if name is not None else str(area_id)


def card_title(card_id):
    title = said(_CARD_TITLES).get(card_id)
    return title if title is not None else str(card_id)


def card_text(card_id):
    return said(_CARD_BODIES).get(card_id, "")


def card_entry(card_id):
    """A card as the templates read it: id, stack, title, text, placement (in the active language)."""
    kind = CARDS[card_id]
    return {
        "id": kind.id,
        "stack": kind.stack,
        "title": card_title(card_id),
        "text": card_text(card_id),
        "placement": kind.placement,
    }


def _fill_card(card):
    if isinstance(card, dict) and "id" in card:
        card["title"] = card_title(card["id"])
        card["text"] = card_text(card["id"])


def fill_view(view):
    """Put the reader's words into an engine view (view_for / revealed_view), in place: each
    region's and the Castillo's `name`, each card's `title` and `text`, each player's colour `label`.
    Returns the view."""
    if view is None:
        return view
    for player in view.get("players") or ():
        player["label"] = colour_letter(player["colour"])
    for region in view.get("regions") or ():
        region["name"] = area_name(region["id"])
    castillo = view.get("castillo")
    if castillo:
        castillo["name"] = area_name(castillo["id"])
    for card in view.get("cards") or ():
        _fill_card(card)
    decision = view.get("decision")
    if decision:
        _fill_card(decision.get("card"))
    return view
