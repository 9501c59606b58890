"""The lobby's three lists, each a page long and read in a fixed number of queries from indexes,
however many games there are and however many a player is in.

- My games: the player's open and running games, those waiting for their move first, a page at a
  time. Which ones wait for the player is read from one light query over the player's seats (the
  index on Seat.user; a few numbers a game), ordered here, and only the page's games are loaded.
- Open games: public games still taking players, newest first, by keyset (games/keyset.py) on
  the partial index `game_open_idx`.
- Recently finished: the archive's first few games (games/archive.py), with a link to the rest.
"""

from dataclasses import dataclass

from django.core.paginator import Page as DjangoPage
from django.core.paginator import Paginator

from . import archive, keyset
from .listing import games_with_seats, row
from .models import Game, Seat

MY_GAMES_PER_PAGE = 20
OPEN_GAMES_PER_PAGE = 20
RECENTLY_FINISHED = 10


class NoSuchPage(ValueError):
    pass


@dataclass
class MyGames:
    rows: list
    page: DjangoPage | None = None
    # How many of the player's games, on any page, wait for their move.
    waiting: int = 0


def my_games(user, number=1):
    """The page `number` of the user's open and running games, those waiting for their move
    first, then the newest. A number past the last page (the list shrank since it was shown)
    gives the last page; one that is not a page number raises NoSuchPage."""
    if not user.is_authenticated:
        return MyGames(rows=[])
    try:
        number = int(number)
    except (TypeError, ValueError):
        number = 0
    if number < 1:
        raise NoSuchPage("That is not a page number of your games.")
    playing = Seat.objects.filter(user=user, game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE])
    seats = [
        (index is not None and index in to_act, created_at, game_id)
        for game_id, index, to_act, created_at in playing.values_list(
            "game_id", "index", "game__to_act", "game__created_at"
        )
    ]
    seats.sort(key=lambda seat: (not seat[0], -seat[1].timestamp(), -seat[2]))
    paginator = Paginator([game_id for *_, game_id in seats], MY_GAMES_PER_PAGE)
    page = paginator.page(min(number, paginator.num_pages))
    ids = list(page.object_list)
    by_id = {game.pk: game for game in games_with_seats().filter(pk__in=ids).order_by()} if ids else {}
    rows = [row(by_id[game_id], user) for game_id in ids if game_id in by_id]
    return MyGames(rows=rows, page=page, waiting=sum(1 for seat in seats if seat[0]))


def open_games(user, cursor=None):
    """A page of public games still taking players, other than the user's own (those are in My
    games), newest first."""
    games = Game.objects.filter(private=False, status=Game.Status.OPEN)
    if user.is_authenticated:
        games = games.exclude(seats__user=user)
    found = keyset.keys(games, cursor, OPEN_GAMES_PER_PAGE + 1, "created_at", "id")
    return keyset.page_of(found, cursor, OPEN_GAMES_PER_PAGE, user, "created_at")


def finished_games(user):
    return archive.page(user, size=RECENTLY_FINISHED).rows
