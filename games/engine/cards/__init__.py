"""The action cards: the catalogue (catalogue.py) and the rules of each family of cards.

Cards are known by id; their titles and texts, in each language, are the web side's (games/words/texts.py).
"""

from .base import CardKind
from .catalogue import CATALOGUE
from .intrigue import EitherOf


def _build():
    cards = {}
    for row in CATALOGUE:
        fields = dict(row)
        kind = fields.pop("kind")
        cards[fields["id"]] = kind(**fields)
    for card in cards.values():
        if isinstance(card, EitherOf):
            card.resolve(cards)
    return cards


CARDS = _build()
STACKS = (1, 2, 3, 4)
KING_CARD = "king_card"


def _stack_ids(stack, veto):
    ids = []
    for kind in CARDS.values():
        if kind.stack == stack and (veto or kind.id != "veto"):
            ids.extend([kind.id] * kind.copies)
    return tuple(ids)


_STACK_IDS = {(stack, veto): _stack_ids(stack, veto) for stack in STACKS for veto in (True, False)}


def stack_cards(stack, veto=True):
    """The card ids of one stack, each repeated by its number of copies (a new list, to shuffle)."""
    return list(_STACK_IDS[stack, bool(veto)])


__all__ = ["CARDS", "KING_CARD", "STACKS", "CardKind", "stack_cards"]
