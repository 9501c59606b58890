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

from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.db.models import prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from accounts import friends
from accounts.emails import has_verified_email
from accounts.models import User
from games import broadcast, clocks
from games.bots import LEVELS
from games.computer import players as computer
from games.engine import GameState, IllegalMove, apply_move, legal_moves, new_game, random_move, to_act
from games.engine.rounds import final_ranking
from games.infra import rows
from games.mail import decisions
from games.models import DEFAULT_TIME_PER_MOVE, Game, Move, Seat
from games.moves import move_shapes
from games.play import results
from games.play.errors import Conflict, GameError, NotAllowed, StaleVersion
from games.words.refusals import refusal_message
from ratings.rating import rate_finished_game

logger = logging.getLogger(__name__)


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
    computers=(),
):
    """Open a new game with its creator in the first seat taken, and a computer player of each
    level of `computers` in a seat of its own (a practice game); it starts when they fill it."""
    if not 2 <= num_players <= 5:
        raise GameError(_("A game has 2 to 5 players."))
    _check_computers(computers, num_players, rated)
    if rated:
        _check_may_play_rated(user)
    with transaction.atomic():
        _lock_player(user)
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
            practice=bool(computers),
        )
        seats = [Seat.objects.create(game=game, user=user)]
        if computers:
            seats += computer.take_seats(game, computers)
            if len(seats) == num_players:
                game.version += 1
                _start(game, seats)
    return game


def _check_computers(computers, num_players, rated):
    if any(level not in LEVELS for level in computers):
        raise GameError(gettext("A computer player plays at one of these levels: %s.") % ", ".join(LEVELS))
    if len(computers) >= num_players:
        raise GameError(gettext("Computer players can take at most every seat but yours."))
    if computers and rated:
        raise GameError(gettext("A game with computer players is a practice game: it cannot be rated."))


def invitation_valid(game, *, token):
    # As bytes: compare_digest refuses str with non-ASCII characters (a forged link's token).
    return bool(game.invite_token) and secrets.compare_digest(game.invite_token.encode(), (token or "").encode())


def join_game(game, *, user, token=""):
    """Take a seat; the game starts when this was the last one."""
    with transaction.atomic():
        _lock_player(user)
        game = _lock(game)
        if game.status != Game.Status.OPEN:
            raise Conflict(_("This game is no longer open for players."))
        if game.private and not invitation_valid(game, token=token):
            raise NotAllowed(_("This game is private: you need its invitation link to join."))
        if game.rated:
            _check_may_play_rated(user)
        seats = list(game.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise Conflict(_("You already have a seat in this game."))
        if len(seats) >= game.num_players:
            raise Conflict(_("This game is full."))
        if friends.any_blocks(user, [seat.user_id for seat in seats if seat.user_id]):
            # A player seated here blocks the joiner, who is not told so (docs/friends.md).
            raise Conflict(_("This game is no longer open for players."))
        seats.append(Seat.objects.create(game=game, user=user))
        game.version += 1
        if len(seats) == game.num_players:
            _start(game, seats)
        else:
            _save(game)
    return game


def leave_game(game, *, user):
    """Give up a seat before the game starts. The creator cancels instead."""
    with transaction.atomic():
        game = _lock(game)
        if game.status != Game.Status.OPEN:
            raise Conflict(_("You can only leave a game before it starts."))
        if game.creator_id == user.pk:
            raise Conflict(_("You created this game: cancel it instead of leaving."))
        deleted, _by_model = game.seats.filter(user=user).delete()
        if not deleted:
            raise Conflict(_("You have no seat in this game."))
        game.version += 1
        _save(game, also_tell=[user.pk])
    return game


def check_may_cancel(game, *, user):
    """Raise the reason why `user` may not cancel `game`, if there is one."""
    if game.creator_id != user.pk:
        raise NotAllowed(_("Only the creator can cancel this game."))
    if game.status != Game.Status.OPEN:
        raise Conflict(_("Only a game that has not started can be cancelled."))


def cancel_game(game, *, user):
    with transaction.atomic():
        game = _lock(game)
        check_may_cancel(game, user=user)
        game.status = Game.Status.CANCELLED
        game.version += 1
        _save(game)
    return game


def submit_move(game, *, user, move, expected_version, seat_index=None, seats=None):
    """Apply `user`'s move if it was made against the current version; else change nothing.
    Returns the saved game.

    `seat_index`, when the form names a seat, must be the user's own. With `seats` (the game's
    seats, loaded with `clocks.with_vacation_hint` as games/reading/selectors.py `game_for_move` does),
    the caller's `game` and `seats` are used and changed in place when the row locked here is
    still at the version loaded (each change of a game raises it: `_save`): the move's path then
    reads the game once. Without, the game is read again under the lock and the caller's object
    is left as it was. A `move` that is not a JSON object with a "type" is refused, after the
    checks that do not depend on it (a move from a seat with no decision to make is None).
    """
    with transaction.atomic():
        game, current = _lock_loaded(game) if seats is not None else (_lock(game), False)
        _check_running(game)
        loaded = {seat.index: seat for seat in seats} if seats is not None and current else None
        seats, vacations = _seats_and_vacations(game, timezone.now(), loaded)
        seat = _own_seat(seats, user)
        if seat_index is not None and seat_index != seat.index:
            raise NotAllowed(_("You can only act for your own seat."))
        _check_version(game, expected_version)
        state = GameState.from_json(game.state)
        if seat.index not in to_act(state):
            raise Conflict(_("It is not your turn."))
        # Stored as cleaned: the engine ignores fields it does not read, which could hold what no
        # export can write (a number beyond 64 bits, a list nested hundreds deep).
        try:
            special = isinstance(move, dict) and move.get("type") == "special"
            move = move_shapes.clean(move, move_shapes.special_action(state, seat.index) if special else None)
        except move_shapes.BadShape as error:
            raise GameError(str(error)) from None
        state = _apply(state, seat.index, move)
        game.version += 1
        row = _move_row(game, seat, move, state)
        if seat.autopilot:
            row.events = [_site_event("autopilot_off", seat.index, state), *row.events]
        if seat.autopilot or seat.timeouts:
            seat.autopilot, seat.timeouts = False, 0
            seat.save(update_fields=["autopilot", "timeouts"])
        moves = [row]
        _play_autopilot_and_save(game, state, moves, seats=seats, vacations=vacations, previous_to_act=game.to_act)
    return game


def hand_seat_to_computer(game, *, user, expected_version):
    """The player of a seat lets the computer play it, at once and until he takes it back: his
    seat goes on autopilot as after two timeouts, and when it must act the autopilot moves for it
    in this transaction, through the path a move takes (`_play_autopilot`). A post made against an
    older version is refused, as a move is, and changes nothing."""
    with transaction.atomic():
        game = _lock(game)
        _check_running(game)
        seats, vacations = _seats_and_vacations(game, timezone.now())
        seat = _own_seat(seats, user)
        _check_version(game, expected_version)
        if seat.autopilot:
            raise Conflict(_("The computer plays your seat already."))
        state = GameState.from_json(game.state)
        seat.autopilot, seat.timeouts = True, 0
        seat.save(update_fields=["autopilot", "timeouts"])
        # The log says so after the last move made (after the game's setup before any move).
        event = _site_event("autopilot_chosen", seat.index, state)
        _log_after_last_move(game, event)
        moves, to_act_before = [], game.to_act
        if not _play_autopilot_and_save(
            game, state, moves, seats=seats, vacations=vacations, previous_to_act=to_act_before
        ):
            # Not its turn: the autopilot moves for it when it is (a move's or the sweep's path).
            game.version += 1
            _save(game)
    return game


def _check_running(game):
    if game.status == Game.Status.FINISHED:
        raise Conflict(_("This game is over: no more moves."))
    if game.status != Game.Status.ACTIVE:
        raise Conflict(_("This game has not started."))


def _own_seat(seats, user):
    """`user`'s seat among `seats` ({index: Seat}); NotAllowed for anyone without one."""
    seat = next((s for s in seats.values() if s.user_id == user.pk), None) if user.is_authenticated else None
    if seat is None:
        raise NotAllowed(_("You have no seat in this game."))
    return seat


def _check_version(game, expected_version):
    """A change asked against an older version than the game's is refused and changes nothing."""
    if game.version != expected_version:
        raise StaleVersion(
            _(
                "The game has moved on (you saw version %(seen)s, it is now at %(now)s). Nothing "
                "was changed; look at the new position and decide again."
            )
            % {"seen": expected_version, "now": game.version}
        )


def _log_after_last_move(game, event):
    """A site event in the log after the last move made (after the game's setup before any)."""
    last = game.moves.order_by("-version").first()
    if last is None:
        game.first_events = [*game.first_events, event]
    else:
        last.events = [*last.events, event]
        last.save(update_fields=["events"])


def take_back_seat(game, *, user):
    """The player of a seat on autopilot plays himself again: the site stops moving for him at
    once, and his next decisions get deadlines as before. No version is asked for: whatever the
    autopilot played meanwhile, the player wants his seat back (a second post finds it back and is
    refused)."""
    with transaction.atomic():
        game = _lock(game)
        seat = game.seats.filter(user=user).first() if user.is_authenticated else None
        if seat is None:
            raise NotAllowed(_("You have no seat in this game."))
        if game.status != Game.Status.ACTIVE or not seat.autopilot:
            raise Conflict(_("Your seat is not on autopilot."))
        seat.autopilot, seat.timeouts = False, 0
        seat.save(update_fields=["autopilot", "timeouts"])
        # The log says so after the last move made, the autopilot's own (after the game's setup
        # when the seat was handed over and taken back before any move).
        event = {"event": "autopilot_off", "seat": seat.index, "round": game.round}
        _log_after_last_move(game, event)
        game.version += 1
        _save(game)
    return game


def apply_default_moves(game_id, *, version):
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
    return play_overdue_games([(game_id, version)]) == 1


def play_overdue_games(pairs):
    """`apply_default_moves` for each (game id, version) of `pairs`, each game in a transaction of
    its own: the deadline sweep's batches. Returns how many games it changed.

    What the games of the batch share is read once, without locks, before any of them is
    committed: their rows (those still running at the version listed with their deadline
    passed), in one query; their seats, in another; and when a player may be on vacation, the
    vacations, in two more. Each game's default moves are then played in memory and stored in a
    transaction of its own that first claims the game, keyed by its id and version
    (`rows.claim`): a game that moved on since it was read, or that another transaction holds (a
    player moving right now, another sweep), is skipped, not waited for. On PostgreSQL that
    transaction is one statement, and the batch's transactions are sent together, in one round
    trip (`rows.claim_and_store_each`); elsewhere, and for a game it finishes (its ratings and
    results), a transaction has a few statements (`_store_expired`). A game's notices are due
    once it is committed (the sweep holds them to send a batch's together, games/deadlines.py).

    A game whose moves fail (an engine bug) or whose rows the database refuses is logged and
    left as it was, for the next sweep; the games before it stay committed, and the others are
    still tried. A lost connection (OperationalError, InterfaceError) is raised at once: every
    later game would fail the same way."""
    if not pairs:
        return 0
    now = timezone.now()
    games = _overdue_rows(pairs, now)
    if not games:
        return 0
    seats_of = defaultdict(dict)
    for seat in _seats_query(Seat.objects.filter(game_id__in=[game.pk for game in games]), now):
        seats_of[seat.game_id][seat.index] = seat
    vacations = _vacations([seat for game in games for seat in seats_of[game.pk].values()
                            if game.clocks_stop_for_vacations], now)
    expired = []
    for game in games:
        version, seats = game.version, seats_of[game.pk]
        try:
            expired.append((game, version, seats, *_expire(game, seats, vacations, now)))
        except Exception:
            logger.exception("deadline of game %s at version %s failed", game.pk, version)
    # On PostgreSQL the games are sent together, each in a transaction of one statement; a game
    # it finishes (ratings, results) has a transaction of a few, as everywhere else.
    together, alone = [], []
    for each in expired:
        finishing = each[3] is not None and each[3].is_over
        (alone if finishing or connection.vendor != "postgresql" else together).append(each)
    moved = 0
    unknown = []

    def done(index, outcome):
        nonlocal moved
        game, version, seats, state, _, _ = together[index]
        if outcome is rows.UNKNOWN:
            unknown.append(together[index])
        elif isinstance(outcome, Exception):
            logger.error("deadline of game %s at version %s failed", game.pk, version, exc_info=outcome)
        elif outcome:
            moved += 1
            # Its mails' MailToDecide row was stored with it.
            _tell_after_commit(game, state, seats=seats, mail_to_decide=False)

    with rows.commits_without_waiting():
        if together:
            try:
                rows.claim_and_store_each(
                    [(game, _STATE_COLUMNS, _still_overdue(version, now), [*made, *_mail_to_decide(game, state)],
                      _counter_updates(late))
                     for game, version, _, state, made, late in together],
                    done,
                )
            except (OperationalError, InterfaceError):
                _tell_if_stored(unknown)
                raise
        for game, version, seats, state, made, late in alone:
            try:
                moved += _store_expired(game, version, now, state, made, late, seats)
            except (OperationalError, InterfaceError):
                raise
            except Exception:
                logger.exception("deadline of game %s at version %s failed", game.pk, version)
    return moved


def _tell_if_stored(unknown):
    """After a lost connection: tell the pages and players of those of `unknown` (expired games
    whose transaction was sent but never answered) that the server committed all the same, as
    their moves, found on a new connection, show (a game whose deadline a vacation moved has no
    move to show it, and only its clock is late). Returns how many. When the database cannot be
    reached, the mails are still decided later (their MailToDecide rows), and the pages learn of
    the new version with the next one."""
    if not unknown or connection.in_atomic_block:
        return 0
    try:
        connection.close()
        stored = set(
            Move.objects.filter(
                automatic=True,
                game_id__in=[game.pk for game, *_ in unknown],
                version__in={version + 1 for _, version, *_ in unknown},
            ).values_list("game_id", "version")
        )
    except (OperationalError, InterfaceError):
        logger.warning("%d games swept just before the connection was lost were not looked at again", len(unknown))
        return 0
    told = 0
    for game, version, seats, state, *_rest in unknown:
        if (game.pk, version + 1) in stored:
            _tell_after_commit(game, state, seats=seats, mail_to_decide=False)
            told += 1
    return told


def _expire(game, seats, vacations, now):
    """The default moves of one overdue game, applied to `game` and `seats` ({index: Seat}) in
    memory, nothing stored: (the new state, or None when a vacation moved the deadline instead;
    the Move rows; the seats that timed out). `vacations`: `clocks.vacation_spans` at `now` of
    the players who may be on one."""
    version = game.version
    state = GameState.from_json(game.state)
    late = to_act(state)
    postponed = clocks.deadline_after_vacations(game, clocks.vacations_of_acting(seats.values(), late, vacations))
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
            move = default_move(state, seat=index, rng=rng, greedy=bool(seats[index].computer))
            state = apply_move(state, index, move)
            game.version += 1
            moves.append(_move_row(game, seats[index], move, state, automatic=True))
            if (state.round, state.current_player) != turn or index != state.current_player:
                break
        if len(moves) > made and not seats[index].computer:
            _count_timeout(seats[index], moves[-1], state)
            timed_out.append(seats[index])
    state = _play_autopilot(game, state, seats, moves)
    # The ratings of a game this finishes are written in its transaction (`_store_expired`).
    _set_state(game, state, seats=seats, vacations=vacations)
    return state, moves, timed_out


def _mail_to_decide(game, state):
    """[the MailToDecide row of the expired `game`], or [] when it calls for no mail. No
    `previous_to_act`: every seat of the expired decision has been played for, so whatever is
    pending now is a new decision."""
    undecided = None if state is None else decisions.to_decide(game, state, None)
    return [] if undecided is None else [undecided]


def _store_expired(game, version, now, state, moves, timed_out, seats):
    """Commit what `_expire` made of one game in a transaction of its own, if the game is still
    running at `version` with its deadline at or before `now` and nobody else holds it; then,
    after the commit, tell its pages and players. Returns whether it was stored."""
    with transaction.atomic():
        stored = rows.claim(game, _STATE_COLUMNS, _still_overdue(version, now))
        if stored:
            _save_counters(timed_out)
            rows.insert(moves)
            if state is not None and state.is_over:
                _record_finished(game, seats)
            # No `previous_to_act`: every seat of the expired decision has been played for, so
            # whatever is pending now is a new decision with a full deadline of its own.
            _tell_after_commit(game, state, seats=seats)
    return stored


def _still_overdue(version, now):
    """What the claim of a game `_overdue_rows` read checks: it is as it was read."""
    return [("version", "=", version), ("status", "=", Game.Status.ACTIVE), ("deadline", "<=", now)]


def _counter_updates(timed_out):
    return [(Seat, pks, {"timeouts": timeouts, "autopilot": autopilot})
            for (timeouts, autopilot), pks in _counters(timed_out).items()]


def _record_finished(game, seats):
    """The one place a game is finished, whichever change finished it (a move, a deadline): in
    the transaction that stores its last position, once its row and moves are written, its
    ratings (which may move `finished_at` just after the players' last rated game) and results."""
    finished_at = game.finished_at
    rate_finished_game(game, seats)
    if game.finished_at != finished_at:
        rows.update(Game, [game.pk], {"finished_at": game.finished_at})
    results.record_results(game, seats)


# What _save writes of a game after a move, and what the sweep reads besides.
_STATE_COLUMNS = ("state", "version", "deadline", "to_act", "round", "colours", "standings", "status", "finished_at")
_SWEPT_FIELDS = ("seed", "time_per_move", "vacations_allowed", "rated", "practice", *_STATE_COLUMNS)


def _overdue_rows(pairs, now):
    """The games of `pairs` ((id, version)) still running at that version with their deadline at
    or before `now`, in the order of `pairs`, with the fields the sweep uses: one query, no lock
    (each game is claimed when it is stored)."""
    quote = connection.ops.quote_name
    meta = Game._meta
    columns = ", ".join(quote(meta.get_field(name).column) for name in ("id", *_SWEPT_FIELDS))
    keys = " OR ".join(["(id = %s AND version = %s)"] * len(pairs))
    deadline = meta.get_field("deadline").get_db_prep_value(now, connection)
    games = Game.objects.raw(
        f"SELECT {columns} FROM {quote(meta.db_table)} WHERE ({keys}) AND status = %s AND deadline <= %s",
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
    if not game.clocks_stop_for_vacations:
        return seats, {}
    return seats, _vacations(seats.values(), now)


def _vacations(seats, now):
    """`clocks.vacation_spans` at `now` of the players of `seats` (from `_seats_query`) who have a
    vacation about now: no query when nobody has, else two (their users, their vacations)."""
    maybe_away = [seat for seat in seats if seat.maybe_away]
    if not maybe_away:
        return {}
    prefetch_related_objects(maybe_away, "user")
    return clocks.vacation_spans([seat.user for seat in maybe_away], now)


def _seats_query(seats, now):
    # Only what the hot paths use: the seat's own columns, not its game's nor its user's.
    columns = ("game_id", "user_id", "index", "timeouts", "autopilot", "answers_ahead", "computer")
    return clocks.with_vacation_hint(seats.only(*columns), now)


def _count_timeout(seat, last_move, state):
    seat.timeouts += 1
    if seat.timeouts >= TIMEOUTS_FOR_AUTOPILOT and not seat.autopilot:
        seat.autopilot = True
        last_move.events = [*last_move.events, _site_event("autopilot_on", seat.index, state)]


def _counters(seats):
    """{(timeouts, autopilot): the keys of those of `seats` that hold these values}."""
    by_values = defaultdict(list)
    for seat in seats:
        by_values[seat.timeouts, seat.autopilot].append(seat.pk)
    return by_values


def _save_counters(seats):
    """Store the timeouts and autopilot of `seats`: one UPDATE for those that hold the same
    values (all of them, but in rare secret choices)."""
    for (timeouts, autopilot), pks in _counters(seats).items():
        rows.update(Seat, pks, {"timeouts": timeouts, "autopilot": autopilot})


def _play_autopilot(game, state, seats, moves):
    """Move at once, with the default moves, for every seat on autopilot that must act, and answer
    "allow" for every seat that answers its veto questions ahead (`answered_ahead`), until a
    player who moves himself must act, the game ends, or AUTOPILOT_MOVES_AT_MOST moves were made
    (the game is then left with a deadline, and the sweep goes on from there). Appends the Move
    rows to `moves`; returns the new state."""
    if not any(seat.autopilot for seat in seats.values()) and not _veto_question(state):
        return state
    rng = random.Random(f"{game.seed}-autopilot-{game.version}")
    fresh = False
    for _turn in range(AUTOPILOT_MOVES_AT_MOST):
        acting = [] if state.is_over else to_act(state)
        autopilot = [index for index in acting if seats[index].autopilot]
        if not autopilot and not fresh and _veto_question(state):
            _read_answers_ahead(seats)
            fresh = True
        ahead = [index for index in acting if answered_ahead(state, seats[index])]
        if autopilot:
            move = default_move(state, seat=autopilot[0], rng=rng, greedy=True)
            state = apply_move(state, autopilot[0], move)
            game.version += 1
            moves.append(_move_row(game, seats[autopilot[0]], move, state, automatic=True, autopilot=True))
        elif ahead:
            # Said to the seat alone (and in the finished game's replay): to the others the
            # answer is a player's "allow" like any other, and the setting stays his own.
            mark = {**_site_event("answered_ahead", ahead[0], state), "private": True}
            state = apply_move(state, ahead[0], ALLOW)
            game.version += 1
            row = _move_row(game, seats[ahead[0]], dict(ALLOW), state)
            row.events = [mark, *row.events]
            moves.append(row)
        else:
            break
    return state


ALLOW = {"type": "allow"}


def answered_ahead(state, seat):
    """Whether the site answers "allow" now for `seat` (a Seat), by its player's standing answer:
    only a veto question asked of it, never a veto-on-veto question (allowing one lets a veto
    stand: not what "allow every veto question" says) nor any other decision."""
    return seat.answers_ahead and _veto_question(state) and seat.index in state.action["awaiting"]


def _veto_question(state):
    return not state.is_over and state.phase == "special" and state.action["stage"] == "veto"


def _read_answers_ahead(seats):
    """Read the seats' answers given ahead again: the seats of a move may have been loaded before
    the game was locked, and setting or taking back the answer changes no version. Under the
    game's lock it is as its player last set it (set_answers_ahead locks the game first). One
    query, only when a veto question is open."""
    flags = dict(Seat.objects.filter(pk__in=[seat.pk for seat in seats.values()]).values_list("pk", "answers_ahead"))
    for seat in seats.values():
        seat.answers_ahead = flags.get(seat.pk, False)


def set_answers_ahead(game, *, user, on, seat_index=None):
    """The player of a seat in a running game with veto cards sets (`on`) or takes back his
    standing "allow" to every veto question. Set while such a question waits for him, it answers
    it at once, as his own move; else nothing of the game changes, and nobody else is told."""
    with transaction.atomic():
        game = _lock(game)
        if game.status != Game.Status.ACTIVE:
            raise Conflict(_("Only a running game takes answers given ahead."))
        if not game.veto:
            raise Conflict(_("This game is played without veto cards."))
        seats, vacations = _seats_and_vacations(game, timezone.now())
        seat = _own_seat(seats, user)
        if seat_index is not None and seat_index != seat.index:
            raise NotAllowed(_("You can only act for your own seat."))
        seat.answers_ahead = bool(on)
        seat.save(update_fields=["answers_ahead"])
        state = GameState.from_json(game.state)
        if not answered_ahead(state, seat):
            return game
        _play_autopilot_and_save(game, state, [], seats=seats, vacations=vacations, previous_to_act=game.to_act)
    return game


def _play_autopilot_and_save(game, state, moves, *, seats, vacations, previous_to_act):
    """Store `moves` (a seat's own change: taken back, handed over, answers ahead) with what the
    seats on autopilot or answering ahead then owe, and save. One move leaves the decision as it
    was (`previous_to_act`: the others answering the same choice keep their deadline); after
    more, the position is a new decision with a deadline of its own. Returns whether anything was
    stored."""
    state = _play_autopilot(game, state, seats, moves)
    if not moves:
        return False
    Move.objects.bulk_create(moves)
    _save(
        game, state, previous_to_act=previous_to_act if len(moves) == 1 else None, seats=seats, vacations=vacations
    )
    return True


def _site_event(kind, seat, state):
    """An event of the site's own about a seat (not the engine's), stored with a move's events."""
    return {"event": kind, "seat": seat, "round": state.round}


def default_move(state, *, seat, rng, greedy=False):
    """What the site plays for a seat whose time ran out, or that is on autopilot: "allow" in a
    veto window; else, with `greedy` (a seat on autopilot, or a computer seat the sweep stands
    in for), the greedy computer player's move (from the seat's view only), and for a person's
    single timeout a random legal move. The sweep plays a thousand timeouts in
    well under two seconds only with the random one (bench/sweep.py): the greedy player's
    decisions cost some 10 ms of CPU on average, with a long tail."""
    if ALLOW in legal_moves(state, seat):
        return dict(ALLOW)
    if greedy:
        return computer.greedy_default(state, seat, rng)
    return random_move(state, seat, rng)


def replay(game, *, upto=None):
    """Rebuild the position after the moves up to version `upto` (all moves when None)."""
    state = new_game(**game.engine_options())
    moves = game.moves.select_related("seat").order_by("version")
    if upto is not None:
        moves = moves.filter(version__lte=upto)
    for move in moves:
        state = apply_move(state, move.seat.index, move.move)
    return state


def store_imported_game(replayed):
    """Store a game record, read and replayed by games.records.game_records, as a finished game: seats
    named as in the record (its players need not be users here), every move with its time and
    events. Never rated, no deadline, no mail, nobody told: it was over before it came. A game
    (same options, seed and moves) already imported is refused."""
    refuse_imported_again(replayed.digest)
    try:
        return _store_imported(replayed)
    except IntegrityError:
        earlier = Game.objects.filter(record_digest=replayed.digest).values_list("pk", flat=True).first()
        if earlier is None:
            raise
        # The same record imported at the same moment by another process.
        raise Conflict(_("This game was imported meanwhile, as game %(number)s.") % {"number": earlier}) from None


def refuse_imported_again(digest):
    """Raise Conflict when the game of `digest` (games.records.game_records.digest; None: no game) was
    imported already: one look-up in the unique index of the digests."""
    earlier = Game.objects.filter(record_digest=digest).values_list("pk", flat=True).first() if digest else None
    if earlier is not None:
        raise Conflict(_("This game was already imported, as game %(number)s.") % {"number": earlier})


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
        results.record_results(game, {seat.index: seat for seat in seats})
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
            _(
                "Rated games are for players with a verified email address: follow the link we mailed "
                "you, or send a new one from your settings."
            )
        )


def _lock_player(user):
    """Lock the account that takes a seat, before the game: the order in which an account's
    deletion locks them (accounts/deletion.py), so the two cannot deadlock. An account being
    deleted is waited for; a deleted one is refused."""
    if not User.objects.select_for_update().filter(pk=user.pk, deleted_at__isnull=True).values_list("pk").first():
        raise NotAllowed(_("This account has been deleted: it cannot take a seat."))


def _lock(game):
    return Game.objects.select_for_update().get(pk=game.pk)


def _lock_loaded(game):
    """Lock the game's row: (`game` itself when the row is still at its version, else the row
    read again; whether it was still current). Only the version is read when `game` was loaded
    whole: a game at a version is the same game whoever reads it."""
    if game.get_deferred_fields():
        return _lock(game), False
    locked = Game.objects.select_for_update().filter(pk=game.pk).order_by().values_list("version", flat=True)
    version = next(iter(locked), None)
    if version is not None and version == game.version:
        return game, True
    return _lock(game), False


def _apply(state, seat, move):
    try:
        return apply_move(state, seat, move)
    except IllegalMove as error:
        raise GameError(refusal_message(error)) from error
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        # The engine validates moves itself; a crash here is an engine bug met by a forged or
        # malformed move. The player gets a 4xx, the log gets the traceback.
        logger.exception("engine failed on move %r for seat %s", move, seat)
        raise GameError(_("This move is malformed.")) from error


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
    finishing = state is not None and state.is_over and game.status != Game.Status.FINISHED
    if state is not None:
        _set_state(game, state, previous_to_act, seats, vacations)
    game.save()
    if finishing:
        _record_finished(game, seats)
    _tell_after_commit(game, state, previous_to_act, seats, also_tell)


def _set_state(game, state, previous_to_act=None, seats=None, vacations=None):
    """Set the fields of `game` that follow from its new `state`, the deadline of what is now
    pending among them; nothing is stored (a game it finishes is rated and recorded once stored:
    `_record_finished`)."""
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


def _tell_after_commit(game, state=None, previous_to_act=None, seats=None, also_tell=(), mail_to_decide=True):
    """After the commit: the game's pages hear its new version, the lobbies of its players (and of
    `also_tell`) that something changed, and the mails a new `state` calls for are decided.

    Called inside the transaction that stores the game, it also writes there what outlives a
    crash before the mails are decided (decisions.to_decide), unless `mail_to_decide` is
    false: the caller has written it already."""
    game_id, version = game.pk, game.version
    if state is not None and mail_to_decide:
        undecided = decisions.to_decide(game, state, previous_to_act)
        if undecided is not None:
            rows.insert([undecided])
    transaction.on_commit(lambda: notify(game_id, version), robust=True)
    players = [*game.seats.values_list("user_id", flat=True), *also_tell] if seats is None else [
        seat.user_id for seat in seats.values()
    ]
    transaction.on_commit(lambda: notify_players(players), robust=True)
    if state is not None:
        # Mail (your move, started, finished): decided after the commit, sent off the request.
        transaction.on_commit(lambda: decisions.game_saved(game, state, previous_to_act), robust=True)
    if game.practice and (state is None or seats is None or computer.computer_must_act(seats, state)):
        # A computer seat to act: its move is made in the background, after a pause. Also after a
        # change of version without a new position (a seat taken back from the autopilot): the
        # task queued for the version before finds the game moved on, and this one's task plays
        # if a computer must act (and does nothing else).
        transaction.on_commit(lambda: computer.queue_move(game_id, version), robust=True)


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
    now = timezone.now()
    if game.practice:
        known = seats if seats is not None else {seat.index: seat for seat in _seats_query(game.seats.all(), now)}
        if all(known[index].computer for index in acting):
            # Only computer players to act: should their move be lost (a worker's crash), the
            # sweep plays it soon, as a timeout, rather than after the game's time per move.
            return now + timedelta(seconds=settings.BOT_MOVE_DELAY + settings.BOT_STALL_SECONDS)
    if (
        previous_to_act
        and game.deadline is not None
        and set(acting) < set(previous_to_act)
        and before is not None
        and _decision(before) == _decision(game.state)
    ):
        return game.deadline
    if not game.clocks_stop_for_vacations:
        return now + timedelta(seconds=game.time_per_move)
    if seats is None:
        seats, vacations = _seats_and_vacations(game, now)
    return clocks.new_deadline(game, clocks.vacations_of_acting(seats.values(), acting, vacations), now)


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
