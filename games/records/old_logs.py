"""Games stored before the log was made of events: rebuild their events from the seed and moves.

Plain data in, plain data out, so that a data migration can call it with historical models.
"""

import json
from dataclasses import dataclass

from games.engine import GameState, apply_move, new_game
from games.engine.actions import restart_shares
from games.engine.rounds import after_special


@dataclass
class Rebuilt:
    """What to store for one game: the state (without a log), the setup's events (or the old log
    converted, for a legacy game), and each move's events and round after it, in move order."""

    state: dict
    first_events: list
    move_events: list
    move_rounds: list
    replayed: bool


def rebuild(options, stored_state, moves):
    """`options`: the engine's new_game options; `stored_state`: the state as stored, perhaps with
    the old `log`; `moves`: [(seat, move)] in order.

    When the moves replay under today's rules to the stored position, each move gets the events
    it makes. Otherwise (the rules changed under the game: the King's return in turn, new veto
    questions, begun means whole) the stored state is kept, and its old sentences become `legacy`
    events shown as they were written.
    """
    kept = {key: value for key, value in stored_state.items() if key != "log"}
    try:
        state = new_game(**options)
        first_events, move_events, move_rounds = state.events, [], []
        for seat, move in moves:
            state = apply_move(state, seat, move)
            move_events.append(state.events)
            move_rounds.append(state.round)
        # Compared as stored JSON, so that any difference of representation counts as a difference.
        same = json.loads(json.dumps(state.to_json())) == kept
    except Exception:  # noqa: BLE001 - any failure to replay means the game is kept as it was
        same = False
    if same:
        return Rebuilt(state.to_json(), first_events, move_events, move_rounds, replayed=True)
    kept["action"] = upgrade_action(kept.get("action"))
    first_events = legacy_events(stored_state.get("log") or [])
    if _secret_king_returns(kept):
        kept, restarted = restart_king_returns(kept)
        first_events += restarted
    return Rebuilt(kept, first_events, [[] for _ in moves], [0] * len(moves), False)


def upgrade_action(action):
    """A special action stored under way by the engine before the veto windows: the same action
    with the fields the engine now keeps, so that its veto question or secret choices go on. An
    old veto question was always about announced steps (window "plan"). The King's return, then
    played in secret, is started again in turn by `restart_king_returns`."""
    if action is None or "window" in action:
        return action
    return {
        **action,
        "window": "plan" if action.get("stage") in ("veto", "counter_veto") else None,
        "turn": 0,
        "passed": False,
        "sent": False,
    }


def _secret_king_returns(state):
    action = state.get("action")
    return bool(action) and action.get("card") == "king_returns" and action.get("stage") == "choices"


def restart_king_returns(state_data):
    """A King's return stored while its shares were collected in secret (none revealed or sent):
    its shares start again in turn, so that the game can go on. Returns the state and the events
    of the restart (forced shares sent, a veto question asked)."""
    state = GameState.from_json(state_data)
    if restart_shares(state):
        after_special(state)
    return state.to_json(), state.events


def legacy_events(log):
    """The old log's sentences as events; a private entry stays private to its seat."""
    events = []
    for entry in log:
        event = {"event": "legacy", "round": entry.get("round", 0), "text": entry.get("text", "")}
        if entry.get("private"):
            event.update(private=True, seat=entry.get("seat"))
        events.append(event)
    return events
