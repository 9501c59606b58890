"""The reads that the game pages and the lobby need, each in a fixed, small number of queries.

The move's path (games/web/views.py `move`): `game_for_move` loads the game once, with its seats,
their users and what services.submit_move needs of them; games/moves/moves_forms.py builds the form of
the seat's decision from the engine's view; services.submit_move locks the row and, the game
being at the version loaded, applies the move to that very object and hands it back; the view
renders the play partial from it (`game_context`) without loading the game again.

The lobby's three lists are each a page long and read from indexes, however many games there are
and however many a player is in:

- My games: the player's open and running games, those waiting for their move first, a page at a
  time. Which ones wait for the player is read from one light query over the player's seats (the
  index on Seat.user; a few numbers a game), ordered here, and only the page's games are loaded.
- Open games: public games still taking players, newest first, by keyset (games/reading/keyset.py) on
  the partial index `game_open_idx`.
- Recently finished: the archive's first few games (games/reading/archive.py), with a link to the rest.
"""

import json
from dataclasses import dataclass

from django.core.paginator import Page as DjangoPage
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Exists, OuterRef, Q, Subquery, TextField
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import friends
from games import clocks
from games.access import game_or_404
from games.engine import GameState, view_for, visible_events
from games.models import Game, Seat
from games.moves.moves_forms import DecisionPanel
from games.play import chat
from games.reading import archive, keyset, list_cache, listing, log_lines, page_game, since_visit
from games.words.log_text import Names, event_html
from games.words.texts import fill_view, seat_name

# --- the game page ----------------------------------------------------------------------------------


def viewable_game(request, pk, defer=()):
    """The game with its seats and their users (each marked `muted` when the reader mutes its
    player in chat), if the requester may look at it; without the columns in `defer`."""
    games = Game.objects.defer(*defer).prefetch_related(chat.seats_with_mutes(request.user))
    return game_or_404(request, games, pk)


def game_for_move(request, pk, lock=False):
    """The one load of the move's path: the whole game, with its seats and their users as the play
    partial needs them and as services.submit_move wants them (`maybe_away`), so that neither the
    move nor the render after it reads the game or its seats again. 404 for a game the requester
    may not see, as the page. The play partial's one SELECT written out, the large columns with
    the rest (games/reading/page_game.py): the ORM's two querysets, built and compiled on each
    move, were 7 of a move POST's 24 ms of CPU under cProfile (bench/README.md, "The move's
    load"), and a second SELECT for the large columns a round trip more (bench/README.md, "A
    move on another seat's screen: where the time goes"). With `lock`, inside the move's
    transaction, the game's row is locked by this SELECT (moving.submit_move's `locked`)."""
    return page_game.play_game(request, pk, large=True, lock=lock)


def game_for_play(request, pk, large=False):
    """The game without its large columns (state, first events) for the play partial alone, its
    seats as `game_for_move` has them: the play partial's `vacation_spans` then asks about the
    players who may be away only, which most of the time is nobody and no query. One SELECT
    written out (games/reading/page_game.py); with `large`, the large columns in it too, for a
    caller that most likely renders."""
    return page_game.play_game(request, pk, large=large)


def own_seat(request, seats):
    # An imported game's seats have no user: no visitor, logged out or not, is one of them.
    # No request: the spectators' view sent over their sockets (games/reading/play_view.py spectators_play).
    if request is None:
        return None
    return next((s for s in seats if s.user_id is not None and s.user_id == request.user.pk), None)


def seat_view(game, seat):
    """The engine's view of the game for `seat` (None: spectators), None before it starts."""
    if game.state is None:
        return None
    return fill_view(view_for(GameState.from_json(game.state), seat))


def vacation_spans(game, seats):
    """The vacations under way that concern the page: its badges and its clock (one query). Seats
    loaded with `maybe_away` (clocks.with_vacation_hint: `game_for_move`, `game_for_play`) have
    only the players who may be away asked about, and none at all when nobody may be."""
    if game.status == Game.Status.ACTIVE and game.clocks_stop_for_vacations:
        users = [s.user for s in seats if getattr(s, "maybe_away", True)]
        return clocks.vacation_spans(users, timezone.now())
    return {}


def game_context(request, game, whole_log=False, shows_log=True, spans=None, seen_later=False):
    """What the game page and every partial need, in a fixed number of queries: the game and
    its seats (`viewable_game`), and the events of the recent moves. The stored state is rendered
    as is; history is never replayed here (the replay is games/web/replay_views.py). `spans`: the
    `vacation_spans` when the caller has them.

    The decision panel (games/moves/moves_forms.py) is built here from the seat's view, so the
    templates only draw it.

    The log marks as new what other seats did since the reader last looked (`Seat.seen_version`),
    which then becomes this version, when what is rendered `shows_log`; with `seen_later`, not
    here: the context's "seen_later" says what to write (`mark_seen`) once the reader has it."""
    seats = list(game.seats.all())
    own = own_seat(request, seats)
    seat = own.index if own is not None else None
    context = {
        "game": game,
        "seats": seats,
        "own_seat": own,
        "seat": seat,
        "view": None,
        "panel": None,
        "your_move": False,
        "invitation_url": None,
    }
    if game.private and own is not None:
        context["invitation_url"] = request.build_absolute_uri(
            reverse("invitation", args=[game.pk, game.invite_token])
        )
    view = seat_view(game, seat)
    if view is not None:
        by_index = {s.index: s for s in seats}
        if spans is None:
            spans = vacation_spans(game, seats)
        away = clocks.vacations_shown(spans, timezone.get_current_timezone())
        for player in view["players"]:
            seat_row = by_index.get(player["seat"])
            player["user"] = seat_row.user if seat_row else None
            player["name"] = seat_name(seat_row) if seat_row else ""
            player["autopilot"] = seat_row is not None and seat_row.autopilot and not view["is_over"]
            player["computer"] = seat_row.computer if seat_row else ""
            player["vacation_until"] = away.get(seat_row.user_id) if seat_row else None
        context["view"] = view
        context["panel"] = DecisionPanel.for_view(view)
        context["clock"] = _clock(game, view, seats, spans)
        context["your_move"] = seat is not None and seat in view["to_act"]
        names = Names.for_game(game, seats)
        context["names"] = names
        # The setup is round 0; it belongs with round 1 as long as round 1 is shown.
        since = 0 if whole_log or view["round"] <= 2 else view["round"] - 1
        context["log_entries"] = _log(game, seats, seat, names, since)
        context["log_complete"] = since == 0
        if own is not None and shows_log:
            # The map marks what changed since the last look, before that look moves on.
            context["changed_areas"] = since_visit.changed_areas(
                game, seats, own, view, context["log_entries"]
            )
            newest = _mark_new(context["log_entries"], own)
            if newest is not None:
                if seen_later:
                    context["seen_later"] = (own.pk, newest)
                else:
                    mark_seen(own.pk, newest)
    return context


def _clock(game, view, seats, spans):
    """The time left on the pending decision: the server's first word, which static/clocks.js
    then counts down, to the deadline `clocks.deadline_shown`."""
    if game.deadline is None or view["is_over"] or not view["to_act"]:
        return None
    return clocks.countdown(clocks.deadline_shown(game, seats, spans))


def _log(game, seats, seat, names, since):
    """The log from round `since` on, as `seat` may read it (None: a spectator), oldest first:
    [{"round", "html"}]. By default the page shows this round and the last, what a player coming
    back to a slow game needs; the whole log is one click away (the log partial with ?all=1).
    One query, bounded by the round stored with each move."""
    index_of = {s.pk: s.index for s in seats}
    entries = [event for event in visible_events(game.first_events, seat) if event["round"] >= since]
    rendered = [{"round": event["round"], "html": event_html(event, names), "version": 0} for event in entries]
    moves = [
        (events, automatic, autopilot, index_of[seat_id], version)
        for events, automatic, autopilot, seat_id, version in page_game.log_moves(game, since)
    ]
    # Each move's lines are said once per reader and language, and kept (games/reading/log_lines.py).
    return rendered + log_lines.moves_lines(game, moves, names, seat, since)


def _mark_new(entries, own):
    """Mark the lines of moves made since the seat's player last looked, but his own moves; the
    version he has now seen when there is something new (for `mark_seen`), else None."""
    seen = own.seen_version
    newest = seen
    for entry in entries:
        if entry["version"] > seen:
            newest = max(newest, entry["version"])
            entry["new"] = entry.get("mover") != own.index
    if newest > seen:
        own.seen_version = newest
        return newest
    return None


def mark_seen(seat_id, version):
    """Remember that the seat's player has seen the game's `version`: one UPDATE, which never
    moves the mark back (two pages of one player may write theirs in either order)."""
    with connection.cursor() as cursor:
        cursor.execute(_SEEN, [version, seat_id, version])


# `_mark_new`'s UPDATE written out: the ORM's `filter(...).update(...)`, built on every render of a
# seat's view, cost 0.3-0.6 ms of its CPU (bench/README.md, "The play partial's render halved").
_SEEN = (
    f'UPDATE "{Seat._meta.db_table}" SET "{Seat._meta.get_field("seen_version").column}" = %s'
    f' WHERE "{Seat._meta.pk.column}" = %s AND "{Seat._meta.get_field("seen_version").column}" < %s'
)


# --- the lobby ----------------------------------------------------------------------------------------

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


def my_games(user, number=1, prepare=None, generation=list_cache.READ):
    """The page `number` of the user's open and running games, those waiting for their move
    first, then the newest. A number past the last page (the list shrank since it was shown)
    gives the last page; one that is not a page number raises NoSuchPage. `prepare`, when given,
    is applied to the rows as they are read, before they are kept (list_cache.rows_by_version):
    what it adds is kept with them (games/web/rows.py `compose`: the options' and players' HTML).
    `generation`: the finished games' generation, when the caller has read it
    (list_cache.generation_of)."""
    if not user.is_authenticated:
        return MyGames(rows=[])
    try:
        number = int(number)
    except (TypeError, ValueError):
        number = 0
    if number < 1:
        raise NoSuchPage(_("That is not a page number of your games."))
    # Newest first, in the database; those waiting for the player's move are then put before the
    # others, each in that order. Not Seat's default order: it reads joined_at, in no index, so
    # PostgreSQL read every seat of the player's finished games from the table (bench/archive.py's
    # player0, 7,277 seats: 15 ms; 1.3 ms from seat_user_game_idx alone). The moves to act and the
    # deadline come as text, neither decoded nor parsed but for whose move it is (half the CPU of
    # reading the 280 rows: 2.8 ms against 1.2-1.4).
    playing = (_playing_from_games if connection.vendor == "sqlite" else _playing_from_seats)(user)
    # What a kept row was read at: the game's version, which every change of a game raises, and
    # the fields this query reads anyway that a row shows (a statement that changes them without
    # raising the version, as some maintenance and tests do, still makes a new row).
    stamps = {}
    waiting, others = [], []
    for game_id, index, to_act, version, status, deadline in playing:
        to_act = to_act or "[]"
        if index is not None and to_act != "[]" and index in json.loads(to_act):
            waiting.append(game_id)
        else:
            others.append(game_id)
        stamps[game_id] = f"{version}:{status}:{to_act.replace(' ', '')}:{(deadline or '').replace(' ', 'T')}"
    paginator = Paginator(waiting + others, MY_GAMES_PER_PAGE)
    page = paginator.page(min(number, paginator.num_pages))
    ids = list(page.object_list)
    by_id = _kept_rows(user, stamps, prepare, generation)(ids)
    rows = [by_id[game_id] for game_id in ids if game_id in by_id]
    _deadlines_after_vacations(rows)
    return MyGames(rows=rows, page=page, waiting=len(waiting))


# The player's open and running games, newest first (ties by id, newest first), as (game id, the
# player's seat index (None before the game starts), to_act as text, version, status, deadline as
# text): two forms of one query, which tests/test_lobby.py holds to the same rows on either database.
_PLAYING = [Game.Status.OPEN, Game.Status.ACTIVE]


def _playing_from_games(user):
    """SQLite's form. SQLite keeps no statistics to plan by: from the player's seats it went through
    every seat of every finished game of the player and looked up its game (player0: 17-21 ms).
    Here it reads the games in play, each asked whether the player sits in it (one_seat_per_user's
    index; at most one seat, so the seat's index is one value): 0.9-1.7 ms, growing with the games
    in play and not with the player's past; 0.35 ms against 0.11 for a player of a hundred games.
    PostgreSQL plans the join from its statistics, and this form cost it more (1.4 ms against 0.5
    for that player): bench/README.md, "The lobby on SQLite"."""
    own_seat = Seat.objects.filter(game=OuterRef("pk"), user=user).order_by()
    return (
        Game.objects.filter(Exists(own_seat), status__in=_PLAYING)
        .annotate(own_index=Subquery(own_seat.values("index")))
        .order_by("-created_at", "-id")
        .values_list("id", "own_index", Cast("to_act", TextField()), "version", "status", Cast("deadline", TextField()))
    )


def _playing_from_seats(user):
    """PostgreSQL's form: from the player's seats (seat_user_game_idx), joined to their games."""
    return (
        Seat.objects.filter(user=user, game__status__in=_PLAYING)
        .order_by("-game__created_at", "-game_id")
        .values_list(
            "game_id", "index", Cast("game__to_act", TextField()), "game__version", "game__status",
            Cast("game__deadline", TextField()),
        )
    )


def _deadlines_after_vacations(rows):
    """Each row's `deadline`: the one its game page counts down to (`clocks.deadline_shown`). One
    query for the page, and none when no game on it stops its clocks for vacations."""
    acting = {}
    for each in rows:
        game = each["game"]
        each["deadline"] = game.deadline
        if game.status == Game.Status.ACTIVE and game.clocks_stop_for_vacations and game.deadline is not None:
            acting[game.pk] = [seat.user for seat in game.seats if seat.index in game.to_act and seat.user]
    users = {user.pk: user for each in acting.values() for user in each}
    if not users:
        return
    spans = clocks.vacation_spans(users.values(), timezone.now())
    for each in rows:
        if each["game"].pk in acting:
            each["deadline"] = clocks.deadline_shown(each["game"], each["game"].seats, spans)


def open_games(user, cursor=None, prepare=None, generation=list_cache.READ):
    """A page of public games still taking players, other than the user's own (those are in My
    games), newest first; not those with a player who blocks the user, or whom the user blocks
    (accounts/friends.py): they could not sit together. `prepare`, when given, is applied to the
    rows as they are read, before they are kept: each row is kept per game version and reader
    (list_cache.rows_by_version), as "my games" rows are; `generation` as `my_games` takes it."""
    games = Game.objects.filter(private=False, status=Game.Status.OPEN)
    if user.is_authenticated:
        # One NOT EXISTS for the three exclusions: Django's exclude() across seats built a
        # subquery each, and building them was a third of the open games' CPU (cProfile of
        # bench/archive.py's lobby logged in).
        unwanted = Seat.objects.filter(
            Q(user=user) | Q(user__in=friends.blockers_of(user)) | Q(user__in=friends.blocked_by(user)),
            game=OuterRef("pk"),
        )
        games = games.filter(~Exists(unwanted))
    found = keyset.page_keys(games, cursor, OPEN_GAMES_PER_PAGE + 1, "created_at", "id", also=("version", "status"))
    # What a kept row was read at: the version (every join, leave, start and cancel raises it).
    stamps = {game_id: f"open:{version}:{status}" for _at, game_id, version, status in found}
    return keyset.page_of(
        found, cursor, OPEN_GAMES_PER_PAGE, user, "created_at", rows_of=_kept_rows(user, stamps, prepare, generation)
    )


def _kept_rows(user, stamps, prepare, generation):
    """ids -> {game id: row} of those games (`stamps`: {game id: what its row is read at, without
    spaces}): their rows as listing.rows_of makes them for `user`, `prepare`d when given, each kept
    per stamp and reader (list_cache.rows_by_version). The kept stamp names what prepared the row,
    so that a row kept by one caller never reaches another that prepares them otherwise."""
    prepared = getattr(prepare, "__name__", "")

    def read(missing):
        rows = listing.rows_of(missing, user)
        if prepare is not None:
            prepare(list(rows.values()))
        return rows

    return lambda ids: list_cache.rows_by_version(
        user, {game_id: f"{stamps[game_id]}:{prepared}" for game_id in ids}, read, generation
    )


def finished_games(user):
    return archive.page(user, size=RECENTLY_FINISHED).rows
