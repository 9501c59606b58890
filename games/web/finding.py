"""Finding people and games from the lobby (docs/friends.md): the friends list with who is online
and their open games, the creators' ratings beside the open games, and "quick game"."""

import functools
import zlib
from datetime import timedelta

from django import forms
from django.db import connection, transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy

from accounts import friends
from accounts.models import Follow
from games.infra import presence
from games.models import Game, Seat
from games.play import lifecycle
from games.play.errors import Conflict, NotAllowed
from games.web.forms import NewGameForm
from ratings.models import PROVISIONAL_BELOW, Ladder, Rating
from ratings.rating import shown

# The lobby lists at most this many of the players one follows, and this many open games of each.
FRIENDS_SHOWN = 50
GAMES_PER_FRIEND = 3


def friends_of(viewer):
    """The players `viewer` follows (people, not deleted), those online first: each with
    `online` and the open games of theirs the viewer may see (public ones, and private ones the
    viewer sits in). A player who blocks the viewer is shown away, without games. Four queries
    and one cache read, however many friends."""
    if not viewer.is_authenticated:
        return []
    followed = list(
        Follow.objects.filter(follower=viewer, followed__in=friends.people())
        .select_related("followed")
        .only("followed__username", "followed__id")
        .order_by("followed__username")[:FRIENDS_SHOWN]
    )
    people = [follow.followed for follow in followed]
    if not people:
        return []
    ids = [person.pk for person in people]
    hidden = set(friends.Block.objects.filter(blocked=viewer, blocker_id__in=ids).values_list("blocker_id", flat=True))
    shown_ids = [pk for pk in ids if pk not in hidden]
    online = presence.online(shown_ids)
    visible = Q(private=False) | Q(pk__in=Seat.objects.filter(user=viewer).values("game"))
    theirs = Seat.objects.filter(user__in=shown_ids).values("game")
    # Of a game only its number, its size and its seats' players: the list shows "Game 12 (2 / 4)".
    # Games and seats with their users were loaded whole, three games a friend at most.
    games = list(
        Game.objects.filter(visible, pk__in=theirs, status=Game.Status.OPEN)
        .order_by("created_at", "pk")
        .only("pk", "num_players")
    )
    players = {}
    for game_id, user_id in Seat.objects.filter(game__in=[game.pk for game in games]).values_list("game_id", "user_id"):
        players.setdefault(game_id, []).append(user_id)
    games_of = {pk: [] for pk in ids}
    for game in games:
        seated = players.get(game.pk, [])
        # What templates/games/partials/friends.html shows of it: how many seats are taken.
        game.taken = len(seated)
        for user_id in seated:
            if user_id in games_of and len(games_of[user_id]) < GAMES_PER_FRIEND:
                games_of[user_id].append(game)
    rows = [
        {"user": person, "online": person.pk in online, "games": games_of[person.pk]}
        for person in people
    ]
    rows.sort(key=lambda row: not row["online"])
    return rows


def with_creator_ratings(rows):
    """Mark each lobby row (games.reading.listing.rows_of) with its creator's rating on the "all games" ladder
    (`creator_rating`: the number shown, or None for a player not rated yet; and
    `creator_provisional`). One query for the page."""
    creators = {row["game"].creator_id for row in rows} - {None}
    ratings = {
        rating.user_id: rating
        for rating in Rating.objects.filter(ladder=Ladder.ALL, user_id__in=creators).only(
            "user_id", "mu", "sigma", "games"
        )
    }
    for row in rows:
        rating = ratings.get(row["game"].creator_id)
        creator = next((player for player in row["players"] if player["user"] and
                        player["user"].pk == row["game"].creator_id), None)
        row["creator"] = creator
        row["creator_rating"] = shown(rating.mu, rating.sigma) if rating else None
        row["creator_provisional"] = rating is None or rating.games < PROVISIONAL_BELOW
    return rows


class QuickGameForm(forms.Form):
    """The options a quick game matches: the new-game form's, but privacy, vacations and computer
    players (a quick game is public, between people, with the default vacations)."""

    num_players = NewGameForm.base_fields["num_players"]
    short_game = NewGameForm.base_fields["short_game"]
    veto = NewGameForm.base_fields["veto"]
    show_castillo = NewGameForm.base_fields["show_castillo"]
    time_per_move = NewGameForm.base_fields["time_per_move"]
    rated = forms.BooleanField(label=gettext_lazy("Rated"), required=False, initial=False)


def quick_fields():
    """The quick game form's fields (templates/games/partials/quick_game_fields.html) in the active
    language: the same for every player (an unbound form), and rendering their widgets was a fifth
    of the lobby's CPU, so they are rendered once per language in this process."""
    return _quick_fields(get_language())


@functools.cache
def _quick_fields(language):
    return render_to_string("games/partials/quick_game_fields.html", {"quick_form": QuickGameForm()})


def matching(user, options):
    """The open public games between people with exactly these options that `user` could join,
    oldest first: none they sit in, none with a player who blocks them or whom they block."""
    return (
        Game.objects.filter(status=Game.Status.OPEN, private=False, practice=False, imported=False, **options)
        .exclude(seats__user=user)
        .exclude(seats__user__in=friends.blockers_of(user))
        .exclude(seats__user__in=friends.blocked_by(user))
        .defer("state", "first_events")
        .order_by("created_at", "pk")
    )


def quick_game(user, options, tries=5):
    """Join the oldest open public game matching `options` (QuickGameForm's cleaned data), or open
    one with them: (the game, "joined", "created" or "waiting"). Each join is lifecycle.join_game,
    which locks the game and counts its seats, so players clicking at once never overfill one: the
    one who comes second to a game's last seat is refused there and tries the next. Quick games of
    the same options are looked for one at a time (`_one_at_a_time`), so two players who both find
    nothing do not each open a game: the second joins the first's. A player already waiting in
    such a game is sent back to it rather than given a second one, and so is one who took a seat
    in such a game a moment ago (`SENT_TWICE_SECONDS`), open or started since: "again", the
    button clicked twice (the first click took the last seat, and the game started)."""
    with transaction.atomic():
        _one_at_a_time(options)
        waiting = (
            Game.objects.filter(status=Game.Status.OPEN, private=False, practice=False, seats__user=user, **options)
            .defer("state", "first_events")
            .order_by("created_at", "pk")
            .first()
        )
        if waiting is not None:
            return waiting, "waiting"
        just_joined = (
            Game.objects.filter(
                status=Game.Status.ACTIVE, private=False, practice=False, seats__user=user,
                seats__joined_at__gte=timezone.now() - timedelta(seconds=SENT_TWICE_SECONDS), **options,
                # Not a tournament's table (by the tournaments app's relation's name): the site seated
                # the player there, no click of his.
                tournament_table__isnull=True,
            )
            .defer("state", "first_events")
            .order_by("-started_at", "-pk")
            .first()
        )
        if just_joined is not None:
            return just_joined, "again"
        for game in matching(user, options)[:tries]:
            try:
                return lifecycle.join_game(game, user=user), "joined"
            except NotAllowed:
                # Rated, and the player's address is not confirmed: so is every other rated game.
                raise
            except Conflict:
                continue
        return lifecycle.create_game(user, **options), "created"


# A quick game asked for again this many seconds after the player took a seat in one with the same
# options is the button clicked twice, not a second game wanted (as lifecycle.created_just_before).
SENT_TWICE_SECONDS = 30


# The first key of the advisory locks of quick games ("QG"); the second is the options' digest.
QUICK_GAME_LOCKS = 0x5147


def _one_at_a_time(options):
    """Within the caller's transaction, wait for any other quick game of the same options to end.
    On PostgreSQL a transaction-scoped advisory lock on the options; on SQLite every writing
    transaction is already one at a time (IMMEDIATE, elgrande_site/settings.py). Taken before
    any account or game lock, and only here, so it cannot join a cycle with them."""
    if connection.vendor != "postgresql":
        return
    digest = zlib.crc32(repr(sorted(options.items())).encode()) - 2**31
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [QUICK_GAME_LOCKS, digest])
