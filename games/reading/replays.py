"""Replays: any position of a game, rebuilt from its seed and its stored moves.

Positions are numbered by the moves made: 0 is the setup, N the position after the game's N-th
(last) move. A position is rebuilt from the snapshot of the start of its round (Snapshot rows) by
replaying the moves since, so it costs one query for the snapshots, one for the moves, and at most
one round of moves to apply. Snapshots are written the first time a replay needs them: a game's
first replay plays it through once and stores the start of each round, the start of each general
scoring and the end (which marks the game's snapshots complete); a running game's replay adds the
rounds begun since. A position once reached never changes, so neither does its snapshot.

The same walk yields the replay's landmarks (where each round and each general scoring begins) and
the scores at the end of each round, for the score chart, without decoding any state.

Who may see what is decided by the caller (games/web/replay_views.py): this module only rebuilds.
"""

import logging
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from games.engine import GameState, IllegalMove, apply_move, new_game
from games.infra import json_codec
from games.models import Snapshot

logger = logging.getLogger(__name__)

ROUND, SCORING, END = Snapshot.Kind.ROUND.value, Snapshot.Kind.SCORING.value, Snapshot.Kind.END.value
# Past this many moves after the nearest stored round start, `state_after` leaves the position to
# the replay's own walk (which stores the missing round starts).
MOVES_FROM_SNAPSHOT = 60


class NotReplayable(Exception):
    """A game whose positions cannot be rebuilt: not started, or stored under earlier rules."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Mark:
    """A snapshot: a position where a round or a general scoring begins, or the end."""

    kind: str
    position: int
    version: int
    round: int
    scores: list
    state: dict = field(repr=False, compare=False)


@dataclass(frozen=True)
class StoredMove:
    version: int
    seat: int
    move: dict
    events: list
    automatic: bool
    autopilot: bool


@dataclass
class Position:
    """Position `at` of a game whose last position is `last`.

    `state` is the position itself; `moves` are the stored moves from the start of the round before
    its own (`log_start`, as the game page's log: this round and the last) up to it; `marks` every
    landmark known, in position order."""

    at: int
    last: int
    state: GameState
    log_start: Mark
    moves: list
    marks: list

    @property
    def complete(self):
        """Whether the game is over and every landmark is known."""
        return any(mark.kind == END for mark in self.marks)

    def landmarks(self, kind):
        return [mark for mark in self.marks if mark.kind == kind]

    def scores_by_round(self):
        """[(round, [score by seat])] at the end of each round played to its end, round 0 the
        start. A round ends where the next one starts, the last one at the end of the game."""
        rounds = self.landmarks(ROUND)
        first = rounds[0]
        series = [(0, [0] * len(first.scores))]
        series += [(mark.round - 1, mark.scores) for mark in rounds[1:]]
        series += [(mark.round, mark.scores) for mark in self.landmarks(END)]
        return series


def replayable(game):
    """Whether the positions of `game` can be rebuilt: it has started, and its log was made by the
    rules of today (a game stored under earlier ones kept its old sentences, games/records/old_logs.py)."""
    return game.state is not None and any(event.get("event") == "setup" for event in game.first_events)


def position(game, at=None, back=None):
    """Position `at` of `game`, or `back` positions before the last (neither: the last); a number
    out of range is brought to the nearest position there is.

    `game` must come with its seats (prefetched) and its stored state. Raises NotReplayable."""
    if not replayable(game):
        raise NotReplayable(
            _("This game has not started: there is nothing to replay yet.")
            if game.state is None
            else _("This game was played under earlier rules: its past positions cannot be rebuilt.")
        )
    seat_index = {seat.pk: seat.index for seat in game.seats.all()}
    marks = _marks(game)
    walked = None
    if not any(mark.kind == END for mark in marks):
        walked = _walk(game, marks, seat_index)
        marks = walked.marks
        last = walked.last
    else:
        last = max(mark.position for mark in marks)
    if back is not None:
        at = last - back
    at = last if at is None else min(max(at, 0), last)
    starts = [mark for mark in marks if mark.kind == ROUND and mark.position <= at]
    start, log_start = starts[-1], starts[max(len(starts) - 2, 0)]
    if walked is not None and walked.start <= log_start.position:
        moves = walked.moves[log_start.position - walked.start : at - walked.start]
    else:
        moves = _moves(game, seat_index, after=log_start.version, count=at - log_start.position)
    state = GameState.from_json(start.state)
    for move in moves[start.position - log_start.position :]:
        state = _apply(game, state, move)
    return Position(at=at, last=last, state=state, log_start=log_start, moves=moves, marks=marks)


def state_after(game, version, seats):
    """The position after version `version` of `game` (`seats`: its Seat rows), by version rather
    than by position: from the nearest round start stored at or before it and the moves since (two
    queries), or by `position` when none is near. Raises NotReplayable."""
    start = (
        Snapshot.objects.filter(game=game, kind=ROUND, version__lte=version)
        .order_by("-version")
        .values_list("version", "state")
        .first()
    )
    if start is not None:
        seat_index = {seat.pk: seat.index for seat in seats}
        moves = _moves(game, seat_index, after=start[0], count=MOVES_FROM_SNAPSHOT + 1, upto=version)
        if len(moves) <= MOVES_FROM_SNAPSHOT:
            state = GameState.from_json(start[1])
            for move in moves:
                state = _apply(game, state, move)
            return state
    return position(game, at=game.moves.filter(version__lte=version).count()).state


def _marks(game):
    rows = Snapshot.objects.filter(game=game).values_list("kind", "position", "version", "round", "scores", "state")
    return sorted((Mark(*row) for row in rows), key=lambda mark: (mark.position, mark.kind))


@dataclass
class _Walk:
    marks: list
    last: int
    start: int  # the position the walk started from
    moves: list  # the moves after it


def _walk(game, marks, seat_index):
    """Play the moves after the last round start known to the end, storing the landmarks met (and
    the setup's, for a game never replayed). The stored state must come out: otherwise the game is
    not replayable after all (its moves no longer replay under these rules)."""
    rounds = [mark for mark in marks if mark.kind == ROUND]
    new = []
    if rounds:
        begin = rounds[-1]
        state = GameState.from_json(begin.state)
    else:
        state = new_game(**game.engine_options())
        begin = _mark(ROUND, 0, 0, state)
        new.append(begin)
    moves = _moves(game, seat_index, after=begin.version, upto=game.version)
    position = begin.position
    for move in moves:
        before = state.round
        state = _apply(game, state, move)
        position += 1
        scored = [event["round"] for event in state.events if event["event"] == "general_scoring"]
        if scored:
            # The round scored: with nobody in the Castillo, the same move has begun the next one.
            new.append(_mark(SCORING, position, move.version, state, round_number=scored[0]))
        if state.round != before:
            new.append(_mark(ROUND, position, move.version, state))
        if state.is_over:
            new.append(_mark(END, position, move.version, state))
    # Compared as stored JSON, so that a tuple kept by the engine equals the list read back.
    if json_codec.loads(json_codec.dumps(state.to_json())) != game.state:
        logger.warning("game %s: its moves do not replay to its stored state", game.pk)
        raise NotReplayable(_("This game's moves no longer replay to its position: it cannot be replayed."))
    known = {(mark.kind, mark.position) for mark in marks}
    new = [mark for mark in new if (mark.kind, mark.position) not in known]
    if new:
        Snapshot.objects.bulk_create(
            [
                Snapshot(
                    game=game,
                    kind=mark.kind,
                    position=mark.position,
                    version=mark.version,
                    round=mark.round,
                    scores=mark.scores,
                    state=mark.state,
                )
                for mark in new
            ],
            ignore_conflicts=True,
        )
    merged = sorted([*marks, *new], key=lambda mark: (mark.position, mark.kind))
    return _Walk(marks=merged, last=position, start=begin.position, moves=moves)


def _mark(kind, position, version, state, round_number=None):
    round_number = state.round if round_number is None else round_number
    return Mark(kind, position, version, round_number, list(state.scores), state.to_json())


def _moves(game, seat_index, after, count=None, upto=None):
    """The stored moves after version `after`, in order: `count` of them, or up to version `upto`."""
    rows = game.moves.filter(version__gt=after).order_by("version")
    if upto is not None:
        rows = rows.filter(version__lte=upto)
    rows = rows.values_list("version", "seat_id", "move", "events", "automatic", "autopilot")
    if count is not None:
        if count <= 0:
            return []
        rows = rows[:count]
    return [
        StoredMove(version, seat_index[seat_id], move, events, automatic, autopilot)
        for version, seat_id, move, events, automatic, autopilot in rows
    ]


def _apply(game, state, move):
    try:
        return apply_move(state, move.seat, move.move)
    except (IllegalMove, KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        logger.warning("game %s: stored move %s does not replay: %s", game.pk, move.version, error)
        raise NotReplayable(
            _("This game's moves no longer replay under today's rules: it cannot be replayed.")
        ) from error
