"""Deadlines that passed: the site moves for every seat still to act in an overdue game (or moves
the deadline to the end of a player's vacation), a batch of games at a time for the deadline
sweep (games/deadlines.py), each game in a transaction of its own. What each committed game calls
for is collected as games/play/after_save.py `Announcement`s, announced by the sweep once its
batch is done."""

import logging
import random
from collections import defaultdict

from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from games import clocks
from games.engine import GameState, apply_move, to_act
from games.infra import rows
from games.models import Game, Move, Seat
from games.play import after_save
from games.play.moving import _answered_ahead_row, _play_autopilot, answered_ahead, default_move
from games.play.saving import _set_state
from games.play.steps import _move_row, _seats_query, _site_event, _vacations

logger = logging.getLogger(__name__)


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


def play_overdue_games(pairs, *, announcements=None):
    """`apply_default_moves` for each (game id, version) of `pairs`, each game in a transaction of
    its own: the deadline sweep's batches. Returns how many games it changed.

    What each game committed calls for (games/play/after_save.py) is appended to the list
    `announcements` when given, also when this raises (they are about commits already made): the
    sweep announces a batch's together once it is done (games/deadlines.py). Without, they are
    announced here, once the current transaction commits (at once outside of one).

    What the games of the batch share is read once, without locks, before any of them is
    committed: their rows (those still running at the version listed with their deadline
    passed), in one query; their seats, in another; and when a player may be on vacation, the
    vacations, in two more. Each game's default moves are then played in memory and stored in a
    transaction of its own that first claims the game, keyed by its id and version
    (`rows.claim`): a game that moved on since it was read, or that another transaction holds (a
    player moving right now, another sweep), is skipped, not waited for. On PostgreSQL that
    transaction is one statement, and the batch's transactions are sent together, in one round
    trip (`rows.claim_and_store_each`); elsewhere, and for a game it finishes (its ratings and
    results), a transaction has a few statements (`_store_expired`).

    A game whose moves fail (an engine bug) or whose rows the database refuses is logged and
    left as it was, for the next sweep; the games before it stay committed, and the others are
    still tried. A lost connection (OperationalError, InterfaceError) is raised at once: every
    later game would fail the same way."""
    if announcements is not None:
        return _play_overdue_games(pairs, announcements)
    announcements = []
    try:
        return _play_overdue_games(pairs, announcements)
    finally:
        after_save.announce_on_commit(announcements)


def _play_overdue_games(pairs, announcements):
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
            # Its mails' MailToDecide row was stored with it (`after_save.outbox_rows`).
            announcements.append(after_save.record(game, state=state, seats=seats, outbox=False))

    with rows.commits_without_waiting():
        if together:
            try:
                rows.claim_and_store_each(
                    [(game, _STATE_COLUMNS, _still_overdue(version, now), [*made, *after_save.outbox_rows(game, state)],
                      _counter_updates(late))
                     for game, version, _, state, made, late in together],
                    done,
                )
            except (OperationalError, InterfaceError):
                _tell_if_stored(unknown, announcements)
                raise
        for game, version, seats, state, made, late in alone:
            try:
                moved += _store_expired(game, version, now, state, made, late, seats, announcements)
            except (OperationalError, InterfaceError):
                raise
            except Exception:
                logger.exception("deadline of game %s at version %s failed", game.pk, version)
    return moved


def _tell_if_stored(unknown, announcements):
    """After a lost connection: append to `announcements` what those of `unknown` (expired games
    whose transaction was sent but never answered) call for when the server committed all the same, as
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
            announcements.append(after_save.record(game, state=state, seats=seats, outbox=False))
            told += 1
    return told


def _expire(game, seats, vacations, now):
    """The default moves of one overdue game, applied to `game` and `seats` ({index: Seat}) in
    memory, nothing stored: (the new state, or None when a vacation moved the deadline instead;
    the Move rows; the seats whose timeout count changed: those that timed out, and those whose
    answer given ahead ended a run of timeouts). `vacations`: `clocks.vacation_spans` at `now` of
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
        if answered_ahead(state, seats[index]):
            # Its pause outlasted the deadline (set just before it): its own answer, no timeout.
            state, row = _answered_ahead_row(game, seats[index], state)
            moves.append(row)
            if seats[index].timeouts:
                # A decision of his own: the timeouts are no longer in a row.
                seats[index].timeouts = 0
                timed_out.append(seats[index])
            continue
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


def _store_expired(game, version, now, state, moves, timed_out, seats, announcements):
    """Commit what `_expire` made of one game in a transaction of its own, if the game is still
    running at `version` with its deadline at or before `now` and nobody else holds it, with what
    that implies (`after_save.record`); then append its announcement to `announcements`. Returns
    whether it was stored."""
    with transaction.atomic():
        stored = rows.claim(game, _STATE_COLUMNS, _still_overdue(version, now))
        if stored:
            _save_counters(timed_out)
            rows.insert(moves)
            # No `previous_to_act`: every seat of the expired decision has been played for, so
            # whatever is pending now is a new decision with a full deadline of its own.
            announcement = after_save.record(
                game, state=state, seats=seats, finished=state is not None and state.is_over
            )
    if stored:
        announcements.append(announcement)
    return stored


def _still_overdue(version, now):
    """What the claim of a game `_overdue_rows` read checks: it is as it was read."""
    return [("version", "=", version), ("status", "=", Game.Status.ACTIVE), ("deadline", "<=", now)]


def _counter_updates(timed_out):
    return [(Seat, pks, {"timeouts": timeouts, "autopilot": autopilot})
            for (timeouts, autopilot), pks in _counters(timed_out).items()]


# What _save writes of a game after a move, and what the sweep reads besides.
_STATE_COLUMNS = (
    "state", "version", "deadline", "answers_ahead_due", "to_act", "round", "colours", "standings", "status",
    "finished_at",
)


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
