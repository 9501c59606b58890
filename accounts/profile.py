"""The reads a player's profile page needs, each a page long and in a fixed number of queries."""

from django.db.models import Q

from games.models import Game, Seat
from games.reading import archive, keyset

FINISHED_PER_PAGE = 25
IN_PLAY_PER_PAGE = 25


def in_play(player, viewer, cursor=None):
    """A page of `player`'s running games that `viewer` may see (public ones, and private ones
    the viewer sits in too), by keyset on the time they started (games/reading/keyset.py)."""
    visible = Q(private=False)
    if viewer.is_authenticated:
        visible |= Q(pk__in=Seat.objects.filter(user=viewer).values("game"))
    playing = Seat.objects.filter(user=player).values("game")
    games = Game.objects.filter(visible, status=Game.Status.ACTIVE, pk__in=playing)
    found = keyset.page_keys(games, cursor, IN_PLAY_PER_PAGE + 1, "started_at", "id")
    return keyset.page_of(found, cursor, IN_PLAY_PER_PAGE, viewer, "started_at")


def finished(player, viewer, cursor=None):
    """A page of `player`'s finished games that `viewer` may see: the archive of that player."""
    return archive.page(viewer, archive.Filters(players=(player,)), cursor, size=FINISHED_PER_PAGE)


def row(listed, player):
    """One game as the profile shows it, from its list's row (games.reading.listing.rows_of): the
    player's seat, place and score, and the others, best placed first."""
    game = listed["game"]
    standings = {seat: (place, score) for place, seat, score in game.standings}
    people = []
    for each in listed["players"]:
        place, score = standings.get(each["seat"], (None, None))
        people.append({
            "seat": each["seat"],
            "user": each["user"],
            "username": each["username"],
            "colour": each["colour"],
            "label": each["label"],
            "place": place,
            "score": score,
            "is_player": each["user"] is not None and each["user"].pk == player.pk,
        })
    people.sort(key=lambda person: (person["place"] is None, person["place"] or 0, person["seat"] or 0))
    own = next(person for person in people if person["is_player"])
    return {"game": game, "players": people, "own": own}
