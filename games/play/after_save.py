"""What follows the saving of a game, in two steps: `record`, inside the transaction that stored it,
and `announce`, once that transaction has committed.

`record` writes what the saved position implies and must stand or fall with it: a finished game's
ratings and results (the one place a game is finished, whichever change finished it), and the
mail outbox row (`MailToDecide`), so that a process killed just after the commit still loses no
mail (the sweep decides it later). It returns an `Announcement`: what to tell once committed.

`announce` tells it, for one commit or for many together (the deadline sweep's batch): the
version notices to the games' pages (one per game, of its newest version) and the "changed" notices
to the players' lobbies (one per player) in one trip to the channel layer, then the mails the
new positions call for, decided together, then the moves of computer seats that must act and the
answers given ahead (after their pause). A
failure in one of them is logged and stops none of the others: the commits stand, the sweep
decides mails left undecided, and a page that missed a notice checks its version by itself.

Every change of a game goes through the two: a move, a join, a deadline; an imported game is
recorded as any finished game, and announces nothing (it was over before it came).
"""

import logging
from dataclasses import dataclass, field
from functools import partial

from django.db import transaction

from games import broadcast
from games.computer import players as computer
from games.infra import rows
from games.mail import decisions
from games.models import Game
from games.play import answers_ahead, results
from ratings.rating import rate_finished_game

logger = logging.getLogger(__name__)


@dataclass
class Announcement:
    """What the commit of one or more saved games calls for, once it is made."""

    # {game id: version}: the games' pages hear of that version.
    versions: dict = field(default_factory=dict)
    # The players whose lobbies hear that one of their games changed (ids, in order, maybe repeated).
    lobbies: list = field(default_factory=list)
    # [(game, state, the seats that had to act before or None)]: the mails to decide.
    mails: list = field(default_factory=list)
    # [(game id, version)]: a computer seat must act there.
    computer_moves: list = field(default_factory=list)
    # [(game id, due time)]: a seat answers the open veto question ahead, after its pause.
    answers_ahead: list = field(default_factory=list)


def record(game, *, state=None, previous_to_act=None, seats=None, also_tell=(), finished=False, outbox=True):
    """Inside the transaction that has just stored `game` at its new version: write what that
    version implies, and return the `Announcement` of it, to be announced once committed.

    `state`: the engine state stored with a new position (None when only the game's row changed:
    a seat taken or left, a game cancelled, a seat taken back from the autopilot); its mails are
    decided after the commit, and its `MailToDecide` row is written here unless `outbox` is false
    (the caller wrote it already, as the sweep's one statement per game does on PostgreSQL).
    `previous_to_act`: the seats that had to act before (None: every seat to act now has a new
    decision). `seats` ({index: Seat}) when the caller has them (else one query for the players).
    `also_tell`: players besides the seated ones whose lobbies hear of it (one who just left).
    `finished`: this version ends the game, whose row and moves are written: its ratings (which
    may move `finished_at` just after the players' last rated game) and results are written
    here."""
    if finished:
        finished_at = game.finished_at
        rate_finished_game(game, seats)
        if game.finished_at != finished_at:
            rows.update(Game, [game.pk], {"finished_at": game.finished_at})
        results.record_results(game, seats)
    mails = []
    if state is not None:
        if outbox:
            undecided = decisions.to_decide(game, state, previous_to_act)
            if undecided is not None:
                rows.insert([undecided])
        mails.append((game, state, previous_to_act))
    if seats is None:
        players = [*game.seats.values_list("user_id", flat=True), *also_tell]
    else:
        players = [*(seat.user_id for seat in seats.values()), *also_tell]
    computer_moves = []
    if game.practice and (state is None or seats is None or computer.computer_must_act(seats, state)):
        # A computer seat to act: its move is made in the background, after a pause. Also after a
        # change of version without a new position (a seat taken back from the autopilot): the
        # task queued for the version before finds the game moved on, and this one's task plays
        # if a computer must act (and does nothing else).
        computer_moves.append((game.pk, game.version))
    # A seat answers the open veto question ahead: after its pause (queued again by a later answer
    # of another seat to the same question: the second run finds nothing due).
    answers = [(game.pk, game.answers_ahead_due)] if state is not None and game.answers_ahead_due else []
    return Announcement(
        versions={game.pk: game.version},
        lobbies=[user_id for user_id in players if user_id is not None],
        mails=mails,
        computer_moves=computer_moves,
        answers_ahead=answers,
    )


def outbox_rows(game, state, previous_to_act=None):
    """[the MailToDecide row (unsaved) of `game` saved with `state`], or [] when it calls for no
    mail: for a caller that writes it in a statement of its own, with `record(..., outbox=False)`."""
    undecided = None if state is None else decisions.to_decide(game, state, previous_to_act)
    return [] if undecided is None else [undecided]


def announce_on_commit(announcements):
    """`announce(announcements)` once the current transaction commits (at once outside of one)."""
    transaction.on_commit(partial(announce, list(announcements)), robust=True)


def announce(announcements):
    """Tell what `announcements` (of commits already made) call for, all together: the pages of
    each game its newest version and each lobby once, in one trip; the mails, decided together
    (one query for the seats and players of all the games); the computer seats' moves. A failure
    is logged, never raised, and stops none of the others."""
    versions, lobbies, mails, computer_moves, answers = {}, {}, [], [], []
    for announcement in announcements:
        for game_id, version in announcement.versions.items():
            versions[game_id] = max(versions.get(game_id, version), version)
        lobbies.update(dict.fromkeys(announcement.lobbies))
        mails += announcement.mails
        computer_moves += announcement.computer_moves
        answers += announcement.answers_ahead
    if versions or lobbies:
        try:
            broadcast.send_versions_and_lobbies(versions, list(lobbies))
        except Exception:
            logger.exception("%d notices could not be sent", len(versions) + len(lobbies))
    if mails:
        # A mail decided is recorded; one left undecided keeps its MailToDecide row, which the
        # sweep decides later (games/mail/late_decisions.py `decide_lost`).
        try:
            decisions.games_saved(mails)
        except Exception:
            logger.exception("the mails of %d games were not decided", len(mails))
    for game_id, version in computer_moves:
        try:
            computer.queue_move(game_id, version)
        except Exception:
            logger.exception("the computer's move in game %s at version %s was not queued", game_id, version)
    for game_id, due in answers:
        try:
            answers_ahead.queue_answer_ahead(game_id, due)
        except Exception:
            logger.exception("the answer given ahead in game %s was not queued", game_id)
