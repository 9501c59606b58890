"""The engine's refusals in the player's language.

The engine refuses a move with `IllegalMove(code, **data)` (games/engine/errors.py): a code and
plain data (area ids, colours, card ids, counts), never a sentence. `refusal_message(error)` says it
in the active language, naming areas, colours and cards in that language too. Every code the
engine can raise has its message here (tests/test_refusals.py checks both ways).
"""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.words.log_text import COLOUR_WORDS
from games.words.texts import area_name, card_title

# What a seat must do now, by the `expected` of a `wrong_move` refusal.
EXPECTED = {
    "bid": gettext_lazy("play a power card"),
    "court": gettext_lazy("move caballeros from the provinces to court"),
    "card": gettext_lazy("take one of the face-up action cards"),
    "action": gettext_lazy("place caballeros, use the special action or decline it"),
    "castillo": gettext_lazy("choose a region for your caballeros in the Castillo"),
    "veto": gettext_lazy("answer the veto question (allow or veto)"),
    "share": gettext_lazy("send your caballeros to the provinces"),
    "choose_region": gettext_lazy("choose a region"),
}

OPTIONS = {
    "court": gettext_lazy("2 caballeros from court"),
    "own_region": gettext_lazy("all your caballeros of one region"),
}


def _colour(colour):
    return str(COLOUR_WORDS.get(colour, colour))


def _colours(colours):
    return ", ".join(_colour(colour) for colour in colours) or _("nobody")


def _place(location):
    if location == "court":
        return _("court")
    if location == "provinces":
        return _("the provinces")
    return area_name(location)


def _caballeros(count):
    return ngettext("%(count)d caballero", "%(count)d caballeros", count) % {"count": count}


def _msg_wrong_move(data):
    what = EXPECTED.get(data.get("expected"))
    if what is None:
        return _("That move is not possible now.")
    return _("That move is not possible now: you must %(what)s.") % {"what": what}


# Each code: a function of the refusal's data giving the sentence in the active language.
MESSAGES = {
    # the move itself, turn and phase
    "move_not_dict": lambda d: _("This move cannot be read."),
    "game_over": lambda d: _("The game is over."),
    "no_such_seat": lambda d: _("You have no seat in this game."),
    "not_your_turn": lambda d: _("It is not your turn to act."),
    "wrong_move": _msg_wrong_move,
    # bidding
    "no_such_power_card": lambda d: _("There is no such power card; they go from 1 to 13."),
    "power_card_not_in_hand": lambda d: _("Power card %(card)s is not in your hand.") % {"card": d["card"]},
    "power_card_already_played": lambda d: _("Power card %(card)s has already been played this round.")
    % {"card": d["card"]},
    # court
    "court_too_many": lambda d: ngettext(
        "Your power card lets you move at most %(count)d caballero to court.",
        "Your power card lets you move at most %(count)d caballeros to court.",
        d["most"],
    )
    % {"count": d["most"]},
    "court_regions_exceed_count": lambda d: _("You take more caballeros from regions than you move to court."),
    "provinces_hold_only": lambda d: ngettext(
        "Your provinces hold only %(count)d caballero; say which regions make up the rest.",
        "Your provinces hold only %(count)d caballeros; say which regions make up the rest.",
        d["count"],
    )
    % {"count": d["count"]},
    "court_regions_before_provinces_empty": lambda d: _(
        "Caballeros may come from regions only once the provinces are empty."
    ),
    "region_holds_only": lambda d: ngettext(
        "You have only %(count)d caballero in %(area)s.",
        "You have only %(count)d caballeros in %(area)s.",
        d["count"],
    )
    % {"count": d["count"], "area": area_name(d["area"])},
    # the cards on offer, placement, the special action
    "card_not_on_offer": lambda d: _("That card is not among the cards on offer: %(offered)s.")
    % {"offered": ", ".join(card_title(card) for card in d["offered"])},
    "already_placed": lambda d: _("You have already placed caballeros this turn."),
    "place_too_many": lambda d: ngettext(
        "This card lets you place at most %(count)d caballero.",
        "This card lets you place at most %(count)d caballeros.",
        d["most"],
    )
    % {"count": d["most"]},
    "court_holds_only": lambda d: ngettext(
        "Your court holds only %(count)d caballero.", "Your court holds only %(count)d caballeros.", d["count"]
    )
    % {"count": d["count"]},
    "place_not_next_to_king": lambda d: _(
        "%(area)s is not next to the King: place in the King's neighbours or the Castillo."
    )
    % {"area": area_name(d["area"])},
    "special_already_done": lambda d: _("You have already used or declined the special action this turn."),
    # the board's standing rules
    "castillo_closed": lambda d: _("Nothing leaves the Castillo before the general scoring."),
    "king_region_closed": lambda d: _("Nothing enters or leaves the King's region."),
    "move_elsewhere": lambda d: _("A caballero moved from %(area)s must go to another area.")
    % {"area": area_name(d["area"])},
    "caballeros_short": lambda d: ngettext(
        "%(colour)s has only %(count)d caballero in %(place)s, not %(asked)d.",
        "%(colour)s has only %(count)d caballeros in %(place)s, not %(asked)d.",
        d["count"],
    )
    % {"colour": _colour(d["colour"]).capitalize(), "count": d["count"], "place": _place(d["place"]),
       "asked": d["asked"]},
    # fields of a move
    "no_such_area": lambda d: _("There is no such region."),
    "castillo_not_allowed": lambda d: _("The Castillo cannot be chosen here."),
    "count_not_whole": lambda d: _("A number of caballeros must be a whole number."),
    "count_too_small": lambda d: _("A number of caballeros cannot be %(value)s here; it must be at least %(least)s.")
    % {"value": d["value"], "least": d["least"]},
    "no_such_colour": lambda d: _("No player in this game plays that colour."),
    "counts_malformed": lambda d: _("Say how many caballeros go to each area."),
    "order_not_list": lambda d: _("The order must be a list of players' colours."),
    "order_each_player": lambda d: _("The order must name each of these players once: %(colours)s.")
    % {"colours": _colours(d["colours"])},
    # moving caballeros (intrigue)
    "plan_missing": lambda d: _("Say which caballeros to move."),
    "plan_entry_malformed": lambda d: _("Each caballero moved needs a colour, an area to leave and an area to enter."),
    "moves_too_many": lambda d: ngettext(
        "This card moves at most %(count)d caballero.", "This card moves at most %(count)d caballeros.", d["most"]
    )
    % {"count": d["most"]},
    "own_caballeros_only": lambda d: _("This card moves only your own caballeros."),
    "foreign_caballeros_only": lambda d: _("This card moves only other players' caballeros."),
    "own_too_many": lambda d: ngettext(
        "This card moves at most %(count)d caballero of your own.",
        "This card moves at most %(count)d caballeros of your own.",
        d["most"],
    )
    % {"count": d["most"]},
    "foreign_too_many": lambda d: ngettext(
        "This card moves at most %(count)d caballero of other players.",
        "This card moves at most %(count)d caballeros of other players.",
        d["most"],
    )
    % {"count": d["most"]},
    "in_full_own": lambda d: ngettext(
        "Once begun, this action is carried out in full: move %(count)d caballero of your own.",
        "Once begun, this action is carried out in full: move %(count)d caballeros of your own.",
        d["count"],
    )
    % {"count": d["count"]},
    "in_full_foreign": lambda d: ngettext(
        "Once begun, this action is carried out in full: move %(count)d caballero of other players.",
        "Once begun, this action is carried out in full: move %(count)d caballeros of other players.",
        d["count"],
    )
    % {"count": d["count"]},
    "one_source_region": lambda d: _("All the caballeros must come from one region."),
    "no_own_caballero_in_region": lambda d: _("You have no caballero in %(area)s.") % {"area": area_name(d["area"])},
    "redistribute_all": lambda d: ngettext(
        "All %(count)d caballero you have in %(area)s must be redistributed, not %(given)d.",
        "All %(count)d caballeros you have in %(area)s must be redistributed, not %(given)d.",
        d["count"],
    )
    % {"count": d["count"], "area": area_name(d["area"]), "given": d["given"]},
    "court_card_too_many": lambda d: ngettext(
        "This card puts %(count)d caballero from court, no more.",
        "This card puts %(count)d caballeros from court, no more.",
        d["most"],
    )
    % {"count": d["most"]},
    "in_full_court": lambda d: ngettext(
        "Once begun, this action is carried out in full: put %(count)d caballero from court.",
        "Once begun, this action is carried out in full: put %(count)d caballeros from court.",
        d["count"],
    )
    % {"count": d["count"]},
    "choose_option": lambda d: _("Choose one option of this card: %(options)s.")
    % {"options": _(" or ").join(str(OPTIONS.get(option, option)) for option in d["options"])},
    # regions chosen, secret disks
    "choose_region_expected": lambda d: _("Choose a region for this action."),
    "region_not_a_choice": lambda d: _("%(area)s is not a choice you can make here.") % {"area": area_name(d["area"])},
    "castillo_choice_not_region": lambda d: _("Choose one of the nine regions on your secret disk."),
    # scoreboards, the King, the Grande, power cards
    "choose_mobile_scoreboard": lambda d: _("Choose a mobile scoreboard: %(scoreboards)s.")
    % {"scoreboards": _(" or ").join(d["scoreboards"])},
    "scoreboard_held_by_king": lambda d: _("A scoreboard in the King's region cannot leave it."),
    "scoreboard_into_king_region": lambda d: _("A scoreboard cannot go into the King's region."),
    "scoreboard_already_there": lambda d: _("The %(scoreboard)s scoreboard already lies in %(area)s.")
    % {"scoreboard": d["scoreboard"], "area": area_name(d["area"])},
    "scoreboards_same_place": lambda d: _("The two mobile scoreboards cannot lie on the same area."),
    "king_to_neighbour_only": lambda d: _("The King can only move to a region next to his own, not to %(area)s.")
    % {"area": area_name(d["area"])},
    "king_to_other_region": lambda d: _("The King can only move to another region, not to %(area)s.")
    % {"area": area_name(d["area"])},
    "grande_held_by_king": lambda d: _("Your Grande stands in the King's region and cannot leave it."),
    "grande_into_king_region": lambda d: _("Your Grande cannot enter the King's region."),
    "grande_already_there": lambda d: _("Your Grande already stands in %(area)s.") % {"area": area_name(d["area"])},
    "retake_own_played_only": lambda d: _("You can take back only one of your own played power cards."),
    # the King's return and the provinces
    "share_expected": lambda d: _("Say where the caballeros you send to the provinces come from."),
    "share_malformed": lambda d: _("Say how many caballeros come from your court and from each region."),
    "share_source_short": lambda d: ngettext(
        "You do not have %(count)d caballero in %(place)s.",
        "You do not have %(count)d caballeros in %(place)s.",
        d["count"],
    )
    % {"count": d["count"], "place": _place(d["place"])},
    "share_exactly": lambda d: ngettext(
        "You must send exactly %(count)d caballero to the provinces.",
        "You must send exactly %(count)d caballeros to the provinces.",
        d["count"],
    )
    % {"count": d["count"]},
    "picks_missing": lambda d: _("Pick one caballero of each player to send to the provinces."),
    "pick_malformed": lambda d: _("Each pick must name a colour and a region."),
    "pick_no_caballero": lambda d: _("%(colour)s has no caballero in %(area)s.")
    % {"colour": _colour(d["colour"]).capitalize(), "area": area_name(d["area"])},
    "picks_each_player": lambda d: _("Pick exactly one caballero of each of these players: %(colours)s.")
    % {"colours": _colours(d["colours"])},
    # the veto
    "answer_veto": lambda d: _("Answer the veto question: allow, or veto."),
    "veto_cut_only_zero": lambda d: _("This veto stops the rest of the action: nothing more of it happens."),
    "veto_cut_range": lambda d: _(
        "A veto's cut is how many announced steps still happen: from 0 (the whole action stopped) to %(last)d."
    )
    % {"last": d["last"]},
}


def refusal_message(error):
    """An IllegalMove said in the active language. A code without a message (a bug: the test of
    every code catches it) still gets a sentence rather than an id."""
    message = MESSAGES.get(getattr(error, "code", None))
    if message is None:
        return _("This move is not allowed.")
    try:
        return str(message(getattr(error, "data", {})))
    except (KeyError, TypeError, ValueError):
        return _("This move is not allowed.")
