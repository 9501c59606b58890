"""The decision panel's repeated buttons written in Python: the power cards to bid and the regions
to choose. Byte for byte what the loops of templates/games/partials/decision.html wrote (the play
partial renders with `{% localize off %}`), the same words and escaping; a bid is the decision met
most (every seat, every round) and its 13 buttons were some 50 template nodes.
tests/test_board_markup.py renders the old loops beside these."""

import json

from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from games.engine.board import POWER_CARD_CABALLEROS
from games.words.escaping import esc


def move_json(move):
    """A move as compact JSON for a form field, as the `json_attr` filter writes it (escaped here)."""
    return json.dumps(move, separators=(",", ":"), sort_keys=True)


def bid_buttons(moves):
    """A button per power card the seat may bid, with the caballeros it brings to court."""
    brings = gettext("%(count)s cab.")
    return mark_safe(
        "".join(
            f'<button type="submit" name="move" value="{esc(move_json(move))}" class="power-card-button" '
            f'data-bid="{esc(move["card"])}">{esc(move["card"])}'
            f"<small>{brings % {'count': esc(POWER_CARD_CABALLEROS.get(move['card'], ''))}}</small></button>"
            for move in moves
        )
    )


def barred_bids(hand, moves):
    """The cards of the hand missing from the bid's buttons, each already played this round by
    another seat (a value played this round cannot be played again): said in the panel, where a
    card of the hand left out without a word looked lost. In the words a bid of it is refused with."""
    allowed = {move.get("card") for move in moves}
    barred = [card for card in hand or () if card not in allowed]
    if not barred:
        return ""
    said = " ".join(
        gettext("Power card %(card)s has already been played this round.") % {"card": card} for card in barred
    )
    return mark_safe(f'<p class="hint barred-bids">{esc(said)}</p>')


def region_buttons(choices):
    """A button per region the seat may choose (in secret), saying which send back to court."""
    back = gettext("back to your court")
    return mark_safe(
        "".join(
            f'<button type="submit" name="move" value="{esc(move_json(choice["move"]))}" '
            f'data-area-button="{esc(choice["region"])}">{esc(choice["name"])}'
            f"{f' <small>({back})</small>' if choice.get('to_court') else ''}</button>"
            for choice in choices
        )
    )
