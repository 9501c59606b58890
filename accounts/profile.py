"""The reads a player's profile page needs, each in a fixed number of queries."""

from django.db.models import Prefetch, Q

from games.engine.board import COLOUR_LABELS
from games.models import Game, Seat

FINISHED_PER_PAGE = 25


def visible_games(player, viewer, status):
    """`player`'s games with `status` that `viewer` may see: public ones, and private ones the
    viewer sits in too. Newest first, seats and their users prefetched."""
    visible = Q(private=False)
    if viewer.is_authenticated:
        visible |= Q(pk__in=Seat.objects.filter(user=viewer).values("game"))
    order = "-finished_at" if status == Game.Status.FINISHED else "-started_at"
    return (
        Game.objects.defer("state")
        .filter(visible, status=status, pk__in=Seat.objects.filter(user=player).values("game"))
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
        .order_by(order, "-pk")
    )


def row(game, player):
    """One game as the profile shows it: the player's seat, place and score, and the others."""
    seats = list(game.seats.all())
    standings = {seat: (place, score) for place, seat, score in game.standings}
    people = []
    for seat in seats:
        colour = game.colours[seat.index] if seat.index is not None and game.colours else None
        place, score = standings.get(seat.index, (None, None))
        people.append({
            "seat": seat.index,
            "user": seat.user,
            "username": seat.display_name,
            "colour": colour,
            "label": COLOUR_LABELS.get(colour, ""),
            "place": place,
            "score": score,
            "is_player": seat.user_id == player.pk,
        })
    people.sort(key=lambda person: (person["place"] is None, person["place"] or 0, person["seat"] or 0))
    own = next(person for person in people if person["is_player"])
    return {"game": game, "players": people, "own": own}
