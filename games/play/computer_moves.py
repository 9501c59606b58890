"""A computer seat's move on the site: decided from the seat's view (games/computer/players.py)
and submitted through the same path as a person's move, by the Celery task or embedded worker
that `games.computer.players.queue_move` queued after a commit."""

import logging

from elgrande_site import metrics
from games.computer.players import decide
from games.engine import GameState, to_act
from games.models import Game
from games.play import moving
from games.play.errors import GameError, StaleVersion

logger = logging.getLogger(__name__)


def play(game_id, version):
    """Make the move of one computer seat that must act in `game_id` at `version`, through the
    same path as a person's move. Does nothing when the game moved on (a duplicate or late task)
    or no computer seat must act. Returns whether it moved."""
    game = Game.objects.filter(pk=game_id, version=version, status=Game.Status.ACTIVE).first()
    if game is None:
        return False
    state = GameState.from_json(game.state)
    seats = {seat.index: seat for seat in game.seats.select_related("user")}
    computers = [index for index in to_act(state) if seats[index].computer]
    if not computers:
        return False
    seat = seats[computers[0]]
    move = decide(state, seat.index, seat.computer, f"{game.seed}-computer-{version}")
    try:
        moving.submit_move(game, user=seat.user, move=move, expected_version=version, seat_index=seat.index)
    except StaleVersion:
        return False  # moved meanwhile (a duplicate task, the sweep): the new version's task decides
    except GameError as error:
        logger.warning("computer move %r refused in game %s at version %s: %s", move, game_id, version, error.message)
        return False
    metrics.COMPUTER_MOVES.inc()
    return True
