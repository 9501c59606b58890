"""The only code that changes a game: load and lock it, apply the change, save, then notify.

Views, tasks and tests call these functions; nothing else writes Game, Seat or Move rows.
Each function runs in one transaction with the game row locked (`select_for_update`), so two
requests for the same game are applied one after the other, never interleaved. After the commit
the channel group `game-<id>` is told only the new version number, and the lobby of every player
seated in the game only that something changed (games/broadcast.py).
"""

import logging
import random
import secrets
from collections import defaultdict
from datetime import timedelta

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import prefetch_related_objects
from django.utils import timezone

from accounts.emails import has_verified_email
from ratings.rating import rate_finished_game

from . import archive, broadcast, clocks, notifications, rows
from .engine import GameState, IllegalMove, apply_move, legal_moves, new_game, random_move, to_act
from .engine.rounds import final_ranking
from .models import DEFAULT_TIME_PER_MOVE, Game, Move, Seat

logger = logging.getLogger(__name__)


class GameError(Exception):
    """A request the game cannot accept. `message` is safe to show to the requester;
    `status` is the HTTP status a view should answer with."""

    status = 400

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class NotAllowed(GameError):
    status = 403


class Conflict(GameError):
    status = 409


class StaleVersion(Conflict):
    pass


def create_game(
    user,
    *,
    num_players,
    short_game=False,
    veto=True,
    show_castillo=False,
    time_per_move=DEFAULT_TIME_PER_MOVE,
    rated=False,
    private=False,
    vacations_allowed=True,
):
    """Open a new game with its creator in the first seat taken."""
    if not 2 <= num_players <= 5:
        raise GameError("A game has 2 to 5 players.")
    if rated:
        _check_may_play_rated(user)
    with transaction.atomic():
        game = Game.objects.create(
            creator=user,
            num_players=num_players,
            short_game=short_game,
            veto=veto,
            show_castillo=show_castillo,
            time_per_move=time_per_move,
            rated=rated,
            private=private,
            vacations_allowed=vacations_allowed,
            invite_token=secrets.token_urlsafe(24) if private else "",
            seed=secrets.randbelow(2**62),
        )
        Seat.objects.create(game=game, user=user)
    return game


def invitation_valid(game, token):
    # As bytes: compare_digest refuses str with non-ASCII characters (a forged link's token).
    return bool(game.invite_token) and secrets.compare_digest(game.invite_token.encode(), (token or "").encode())


def join_game(game, user, token=""):
    """Take a seat; the game starts when this was the last one."""
    with transaction.atomic():
        game = _lock(game)
        if game.status != Game.Status.OPEN:
            raise Conflict("This game is no longer open for players.")
        if game.private and not invitation_valid(game, token):
            raise NotAllowed("This game is private: you need its invitation link to join.")
        if game.rated:
            _check_may_play_rated(user)
        seats = list(game.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise Conflict("You already have a seat in this game.")
        if len(seats) >= game.num_players:
            raise Conflict("This game is full.")
        seats.append(Seat.objects.create(game=game, user=user))
        game.version += 1
        if len(seats) == game.num_players:
            _start(game, seats)
        else:
            _save(game)
    return game


def leave_game(game, user):
    """Give up a seat before the game starts. The creator cancels instead."""
    with transaction.atomic():
        game = _lock(game)
        if game.status != Game.Status.OPEN:
            raise Conflict("You can only leave a game before it starts.")
        if game.creator_id == user.pk:
            raise Conflict("You created this game: cancel it instead of leaving.")
        deleted, _ = game.seats.filter(user=user).delete()
        if not deleted:
            raise Conflict("You have no seat in this game.")
        game.version += 1
        _save(game, also_tell=[user.pk])
    return game


def check_may_cancel(game, user):
    """Raise the reason why `user` may not cancel `game`, if there is one."""
    if game.creator_id != user.pk:
        raise NotAllowed("Only the creator can cancel this game.")
    if game.status != Game.Status.OPEN:
        raise Conflict("Only a game that has not started can be cancelled.")


def cancel_game(game, user):
    with transaction.atomic():
        game = _lock(game)
        check_may_cancel(game, user)
        game.status = Game.Status.CANCELLED
        game.version += 1
        _save(game)
    return game


def submit_move(game, user, move, expected_version, seat_index=None):
    """Apply `user`'s move if it was made against the current version; else change nothing.

    `seat_index`, when the form names a seat, must be the user's own.
    """
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise GameError('A move is a JSON object with a "type", e.g. {"type": "bid", "card": 9}.')
    with transaction.atomic():
        game = _lock(game)
        if game.status == Game.Status.FINISHED:
            raise Conflict("This game is over: no more moves.")
        if game.status != Game.Status.ACTIVE:
            raise Conflict("This game has not started.")
        seats, vacations = _seats_and_vacations(game, timezone.now())
        seat = next((s for s in seats.values() if s.user_id == user.pk), None) if user.is_authenticated else None
        if seat is None:
            raise NotAllowed("You have no seat in this game.")
        if seat_index is not None and seat_index != seat.index:
            raise NotAllowed("You can only act for your own seat.")
        if game.version != expected_version:
            raise StaleVersion(
                f"The game has moved on (you saw version {expected_version}, it is now at "
                f"{game.version}). Nothing was changed; look at the new position and decide again."
            )
        state = GameState.from_json(game.state)
        if seat.index not in to_act(state):
            raise Conflict("It is not your turn.")
        state = _apply(state, seat.index, move)
        game.version += 1
        row = _move_row(game, seat, move, state)
        if seat.autopilot:
            row.events = [_site_event("autopilot_off", seat.index, state), *row.events]
        if seat.autopilot or seat.timeouts:
            seat.autopilot, seat.timeouts = False, 0
            seat.save(update_fields=["autopilot", "timeouts"])
        moves = [row]
        state = _play_autopilot(game, state, seats, moves)
        Move.objects.bulk_create(moves)
        # After autopilot moves the position is a new decision, with a deadline of its own.
        _save(
            game,
            state,
            previous_to_act=game.to_act if len(moves) == 1 else None,
            seats=seats,
            vacations=vacations,
        )
    return game


def take_back_seat(game, user):
    """The player of a seat on autopilot plays himself again: the site stops moving for him at
    once, and his next decisions get deadlines as before."""
    with transaction.atomic():
        game = _lock(game)
        seat = game.seats.filter(user=user).first() if user.is_authenticated else None
        if seat is None:
            raise NotAllowed("You have no seat in this game.")
        if game.status != Game.Status.ACTIVE or not seat.autopilot:
            raise Conflict("Your seat is not on autopilot.")
        seat.autopilot, seat.timeouts = False, 0
        seat.save(update_fields=["autopilot", "timeouts"])
        # The log says so after the last move made, the autopilot's own.
        last = game.moves.order_by("-version").first()
        last.events = [*last.events, {"event": "autopilot_off", "seat": seat.index, "round": game.round}]
        last.save(update_fields=["events"])
        game.version += 1
        _save(game)
    return game


def apply_default_moves(game_id, version):
    """On a deadline: make a default move for every seat still to act in `version`. A late player
    whose turn it is has the rest of that turn played out too (the court move, the card, the
    placement and special action), instead of waiting a whole deadline per step; any later
    decision gets a full deadline of its own.

    Does nothing when the game has moved on, its deadline has not passed, or another transaction
    holds it (a player moving right now: the sweep will look again), so running it twice, late,
    or from two sweeps at once is harmless. A veto window is answered with "allow"; any other
    decision with a random legal move. Returns whether it changed the game.

    A seat whose time ran out on two of its decisions in a row goes on autopilot. When a seat
    still to act went on vacation before the deadline passed (in a game whose clocks stop for
    vacations), nobody is played for: the deadline moves to the end of the vacation plus the
    time that was left when it began (games/clocks.py).
    """
    return expire([(game_id, version)]) == 1


def expire(pairs):
    """`apply_default_moves` for each (game id, version) of `pairs` in one transaction: the deadline
    sweep's batches. Returns how many games it changed.

    The games still running at their version with their deadline passed are locked in one query,
    skipping those another transaction holds, and their seats read in another; then, however many
    games and moves there are, one statement stores the seats' counts of timeouts (one per set of
    values), one the moves and one the games (executed once per game, sent to PostgreSQL in one
    round trip). A game whose moves fail (an engine bug) is logged and left as it was, for the
    next sweep; an error of the database rolls the whole transaction back and is raised (the
    sweep then tries the games one by one)."""
    if not pairs:
        return 0
    with transaction.atomic():
        now = timezone.now()
        games = _claim(pairs, now)
        if not games:
            return 0
        seats_of = defaultdict(dict)
        for seat in _seats_query(Seat.objects.filter(game_id__in=[game.pk for game in games]), now):
            seats_of[seat.game_id][seat.index] = seat
        expired, moves, timed_out = [], [], []
        for game in games:
            version = game.version
            try:
                state, made, late = _expire(game, seats_of[game.pk], now)
            except DatabaseError:
                raise
            except Exception:
                logger.exception("deadline of game %s at version %s failed", game.pk, version)
                continue
            expired.append((game, state))
            moves += made
            timed_out += late
        _save_counters(timed_out)
        rows.insert(moves)
        rows.update_each([game for game, _ in expired], _STATE_COLUMNS)
        for game, state in expired:
            if state is not None and state.is_over:
                archive.record_results(game, seats_of[game.pk])
        for game, state in expired:
            # No `previous_to_act`: every seat of the expired decision has been played for, so
            # whatever is pending now is a new decision with a full deadline of its own.
            _tell_after_commit(game, state, seats=seats_of[game.pk])
    return len(expired)


def _expire(game, seats, now):
    """The default moves of one game `_claim`ed, applied to `game` and `seats` ({index: Seat}) but
    not stored: (the new state, or None when a vacation moved the deadline instead; the Move rows;
    the seats that timed out)."""
    version = game.version
    state = GameState.from_json(game.state)
    late = to_act(state)
    # Who is on vacation, asked once for the passed deadline and for the next decision's.
    seats, vacations = _seats_and_vacations(game, now, seats)
    postponed = clocks.deadline_after_vacations(game, _away(seats, late, vacations))
    if postponed is not None:
        game.deadline = postponed
        game.version += 1
        return None, [], []
    rng = random.Random(f"{game.seed}-{version}")
    turn = (state.round, state.current_player)
    moves, timed_out = [], []
    for index in late:
        made = len(moves)
        while index in to_act(state):
            move = default_move(state, index, rng)
            state = apply_move(state, index, move)
            game.version += 1
            moves.append(_move_row(game, seats[index], move, state, automatic=True))
            if (state.round, state.current_player) != turn or index != state.current_player:
                break
        if len(moves) > made:
            _count_timeout(seats[index], moves[-1], state)
            timed_out.append(seats[index])
    state = _play_autopilot(game, state, seats, moves)
    _set_state(game, state, seats=seats, vacations=vacations)
    return state, moves, timed_out


# What _save writes of a game after a move, and what the sweep reads besides.
_STATE_COLUMNS = ("state", "version", "deadline", "to_act", "round", "colours", "standings", "status", "finished_at")
_SWEPT_FIELDS = ("seed", "time_per_move", "vacations_allowed", "rated", *_STATE_COLUMNS)


def _claim(pairs, now):
    """Lock, in one query, the games of `pairs` ((id, version)) still running at that version with
    their deadline at or before `now`, skipping those another transaction holds. Returns them in
    the order of `pairs`, with the fields the sweep uses.

    On PostgreSQL this transaction's commit also skips the wait for the disk: should the database
    lose it in a crash, the expired deadlines are still in the rows and the next sweep plays the
    very same moves again (their random choices are seeded by the game and its version)."""
    quote = connection.ops.quote_name
    meta = Game._meta
    lock = ""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
        lock = " FOR UPDATE SKIP LOCKED"
    columns = ", ".join(quote(meta.get_field(name).column) for name in ("id", *_SWEPT_FIELDS))
    keys = " OR ".join(["(id = %s AND version = %s)"] * len(pairs))
    deadline = meta.get_field("deadline").get_db_prep_value(now, connection)
    games = Game.objects.raw(
        f"SELECT {columns} FROM {quote(meta.db_table)} WHERE ({keys}) AND status = %s AND deadline <= %s{lock}",
        [*(value for pair in pairs for value in pair), Game.Status.ACTIVE.value, deadline],
    )
    order = {game_id: index for index, (game_id, _) in enumerate(pairs)}
    return sorted(games, key=lambda game: order[game.pk])


# Two timeouts in a row put a seat on autopilot.
TIMEOUTS_FOR_AUTOPILOT = 2
# The most moves the autopilot makes in one transaction. A whole game of five seats on autopilot
# takes a few hundred; the bound only guards against a rules bug that never ends a decision.
AUTOPILOT_MOVES_AT_MOST = 2000


def _seats_and_vacations(game, now, seats=None):
    """The game's seats by index (unless given), and `clocks.vacation_spans` at `now` of their
    players, asked only in a game whose clocks stop for vacations and only about the players with
    a vacation about now (their users are loaded then): most of the time no query beyond the
    seats'."""
    if seats is None:
        seats = {seat.index: seat for seat in _seats_query(game.seats.all(), now)}
    maybe_away = [seat for seat in seats.values() if seat.maybe_away]
    if not game.clocks_stop_for_vacations or not maybe_away:
        return seats, {}
    prefetch_related_objects(maybe_away, "user")
    return seats, clocks.vacation_spans([seat.user for seat in maybe_away], now)


def _seats_query(seats, now):
    # Only what the hot paths use: the seat's own columns, not its game's nor its user's.
    return clocks.with_vacation_hint(seats.only("game_id", "user_id", "index", "timeouts", "autopilot"), now)


def _away(seats, acting, vacations):
    """The vacation spans of the seats `acting` (indexes) out of `vacations` (by user id)."""
    return [vacations[seats[index].user_id] for index in acting if seats[index].user_id in vacations]


def _count_timeout(seat, last_move, state):
    seat.timeouts += 1
    if seat.timeouts >= TIMEOUTS_FOR_AUTOPILOT and not seat.autopilot:
        seat.autopilot = True
        last_move.events = [*last_move.events, _site_event("autopilot_on", seat.index, state)]


def _save_counters(seats):
    """Store the timeouts and autopilot of `seats`: one UPDATE for those that hold the same
    values (all of them, but in rare secret choices)."""
    by_values = defaultdict(list)
    for seat in seats:
        by_values[seat.timeouts, seat.autopilot].append(seat.pk)
    for (timeouts, autopilot), pks in by_values.items():
        rows.update(Seat, pks, {"timeouts": timeouts, "autopilot": autopilot})


def _play_autopilot(game, state, seats, moves):
    """Move at once, with the default moves, for every seat on autopilot that must act, until a
    player who moves himself must act, the game ends, or AUTOPILOT_MOVES_AT_MOST moves were made
    (the game is then left with a deadline, and the sweep goes on from there). Appends the Move
    rows to `moves`; returns the new state."""
    if not any(seat.autopilot for seat in seats.values()):
        return state
    rng = random.Random(f"{game.seed}-autopilot-{game.version}")
    for _ in range(AUTOPILOT_MOVES_AT_MOST):
        acting = [] if state.is_over else [index for index in to_act(state) if seats[index].autopilot]
        if not acting:
            break
        move = default_move(state, acting[0], rng)
        state = apply_move(state, acting[0], move)
        game.version += 1
        moves.append(_move_row(game, seats[acting[0]], move, state, automatic=True, autopilot=True))
    return state


def _site_event(kind, seat, state):
    """An event of the site's own about a seat (not the engine's), stored with a move's events."""
    return {"event": kind, "seat": seat, "round": state.round}


def default_move(state, seat, rng):
    allow = {"type": "allow"}
    if allow in legal_moves(state, seat):
        return allow
    return random_move(state, seat, rng)


def replay(game, upto=None):
    """Rebuild the position after the moves up to version `upto` (all moves when None)."""
    state = new_game(**game.engine_options())
    moves = game.moves.select_related("seat").order_by("version")
    if upto is not None:
        moves = moves.filter(version__lte=upto)
    for move in moves:
        state = apply_move(state, move.seat.index, move.move)
    return state


def store_imported_game(replayed):
    """Store a game record, read and replayed by games.game_records, as a finished game: seats
    named as in the record (its players need not be users here), every move with its time and
    events. Never rated, no deadline, no mail, nobody told: it was over before it came. A game
    (same options, seed and moves) already imported is refused."""
    earlier = Game.objects.filter(record_digest=replayed.digest).values_list("pk", flat=True).first()
    if earlier is not None:
        raise Conflict(f"This game was already imported, as game {earlier}.")
    try:
        return _store_imported(replayed)
    except IntegrityError:
        earlier = Game.objects.filter(record_digest=replayed.digest).values_list("pk", flat=True).first()
        if earlier is None:
            raise
        # The same record imported at the same moment by another process.
        raise Conflict(f"This game was imported meanwhile, as game {earlier}.") from None


def _store_imported(replayed):
    with transaction.atomic():
        state = replayed.state
        game = Game.objects.create(
            creator=None,
            imported=True,
            record_digest=replayed.digest,
            rated=False,
            private=False,
            time_per_move=replayed.time_per_move,
            seed=replayed.seed,
            **replayed.options,
            status=Game.Status.FINISHED,
            state=state.to_json(),
            first_events=replayed.first_events,
            version=replayed.moves[-1].version,
            to_act=[],
            deadline=None,
            round=state.round,
            colours=list(state.colours),
            standings=standings(state),
            started_at=replayed.started_at,
            finished_at=replayed.finished_at,
        )
        seats = Seat.objects.bulk_create(
            Seat(game=game, name=name, index=index) for index, name in enumerate(replayed.names)
        )
        made = Move.objects.bulk_create(
            Move(
                game=game,
                seat=seats[move.seat],
                version=move.version,
                move=move.move,
                automatic=move.automatic,
                events=move.events,
                round=move.round,
            )
            for move in replayed.moves
        )
        # created_at is set to now on insert (auto_now_add); the record's times replace it.
        for row, move in zip(made, replayed.moves):
            row.created_at = move.time
        Move.objects.bulk_update(made, ["created_at"], batch_size=500)
        archive.record_results(game, {seat.index: seat for seat in seats})
    return game


def notify(game_id, version):
    """Tell every open page of the game that `version` exists; they fetch their own view."""
    broadcast.send_version(game_id, version)


def notify_players(user_ids):
    """Tell the lobbies of these players that one of their games changed."""
    broadcast.send_lobby_changed(user_ids)


def _check_may_play_rated(user):
    if not has_verified_email(user):
        raise NotAllowed(
            "Rated games are for players with a verified email address: follow the link we mailed "
            "you, or send a new one from your settings."
        )


def _lock(game):
    return Game.objects.select_for_update().get(pk=game.pk)


def _apply(state, seat, move):
    try:
        return apply_move(state, seat, move)
    except IllegalMove as error:
        raise GameError(str(error)) from error
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        # The engine validates moves itself; a crash here is an engine bug met by a forged or
        # malformed move. The player gets a 4xx, the log gets the traceback.
        logger.exception("engine failed on move %r for seat %s", move, seat)
        raise GameError("This move is malformed.") from error


def _start(game, seats):
    # The seed decides the seating, so a game and its moves replay to the same table.
    random.Random(game.seed).shuffle(seats)
    for index, seat in enumerate(seats):
        seat.index = index
    Seat.objects.bulk_update(seats, ["index"])
    game.status = Game.Status.ACTIVE
    game.started_at = timezone.now()
    state = new_game(**game.engine_options())
    game.first_events = state.events
    _save(game, state)


def _move_row(game, seat, move, state, automatic=False, autopilot=False):
    """An accepted move (the game's version already raised) with the events it made, unsaved:
    the moves of one transaction go in one insert."""
    return Move(
        game=game,
        seat=seat,
        version=game.version,
        move=move,
        automatic=automatic,
        autopilot=autopilot,
        events=state.events,
        round=state.round,
    )


def _save(game, state=None, previous_to_act=None, seats=None, vacations=None, also_tell=()):
    """Store the game (its version already raised) with the deadline of what is now pending (the
    deadline sweep, games/deadlines.py, finds it there), then after commit notify the game's pages
    and the lobbies of its players (and of `also_tell`). `seats` ({index: Seat}) and
    `vacations` (clocks.vacation_spans of their users), when the caller has them."""
    if state is not None:
        _set_state(game, state, previous_to_act, seats, vacations)
    game.save()
    if state is not None and state.is_over:
        archive.record_results(game, seats)
    _tell_after_commit(game, state, previous_to_act, seats, also_tell)


def _set_state(game, state, previous_to_act=None, seats=None, vacations=None):
    """Set the fields of `game` that follow from its new `state`, the deadline of what is now
    pending among them; nothing is stored but the ratings of a rated game it finishes."""
    before = game.state
    game.state = state.to_json()
    acting = [] if state.is_over else to_act(state)
    game.deadline = _deadline(game, acting, previous_to_act, before, seats, vacations)
    game.to_act = acting
    game.round = state.round
    game.colours = list(state.colours)
    game.standings = standings(state)
    if state.is_over and game.status != Game.Status.FINISHED:
        game.status = Game.Status.FINISHED
        game.finished_at = timezone.now()
        # In the transaction that finishes the game, before its row is written: the rating
        # may move finished_at after the players' last rated game (ratings/rating.py).
        rate_finished_game(game, seats)


def _tell_after_commit(game, state=None, previous_to_act=None, seats=None, also_tell=()):
    """After the commit: the game's pages hear its new version, the lobbies of its players (and of
    `also_tell`) that something changed, and the mails a new `state` calls for are decided."""
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: notify(game_id, version), robust=True)
    players = [*game.seats.values_list("user_id", flat=True), *also_tell] if seats is None else [
        seat.user_id for seat in seats.values()
    ]
    transaction.on_commit(lambda: notify_players(players), robust=True)
    if state is not None:
        # Mail (your move, started, finished): decided after the commit, sent off the request.
        transaction.on_commit(lambda: notifications.game_saved(game, state, previous_to_act), robust=True)


def standings(state):
    """[place, seat, score] best first; equal scores share a place, as in the final ranking."""
    return [[place, seat, state.scores[seat]] for place, seat in final_ranking(state)]


def _deadline(game, acting, previous_to_act, before, seats=None, vacations=None):
    """Every new decision gets the game's full time per move, from the end of the vacation of a
    player to act who is on one (games/clocks.py). Only the seats still answering the same
    simultaneous choice after one of them answered (`previous_to_act` was pending in the position
    `before`) keep its running deadline."""
    if not acting:
        return None
    if (
        previous_to_act
        and game.deadline is not None
        and set(acting) < set(previous_to_act)
        and before is not None
        and _decision(before) == _decision(game.state)
    ):
        return game.deadline
    now = timezone.now()
    if not game.clocks_stop_for_vacations:
        return now + timedelta(seconds=game.time_per_move)
    if seats is None:
        seats, vacations = _seats_and_vacations(game, now)
    return clocks.new_deadline(game, _away(seats, acting, vacations), now)


def _decision(position):
    """What tells one decision from the next in a stored position: the round, the phase, whose
    turn, and for a special action its card, taker, stage (choices, share, veto, counter-veto),
    the veto window and the share it is about. Fewer seats to act is not enough: a choice of
    three can be followed by another one of two."""
    action = position.get("action") or {}
    return (
        position.get("round"),
        position.get("phase"),
        position.get("turn_index"),
        action.get("card"),
        action.get("taker"),
        action.get("stage"),
        action.get("window"),
        action.get("turn"),
    )
