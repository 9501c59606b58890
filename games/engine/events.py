"""The log as data: what happened, never how to say it.

Every change a move makes is recorded as one event, a plain dict:

    {"event": kind, "round": r, ...fields}

Fields name seats by number (0-based, as in moves' `to_act`), areas by their ids (`aragon`,
`castillo`), the court and the provinces as `court` and `provinces`, cards by their ids. An event
only one seat may see carries `"private": True` and that `seat`. Sentences are made outside the
engine (the site renders them in the reader's language, naming players by name).

`apply_move` leaves the events of that one move in `state.events`; `new_game` leaves the setup's.
The kinds and their fields are listed in README.md.
"""


def record(state, event, seat=None, private=False, **fields):
    """Append one event to the events of the move being made. Private events are `seat`'s alone."""
    if private:
        entry = {"event": event, "round": state.round, "seat": seat, "private": True, **fields}
    elif seat is None:
        entry = {"event": event, "round": state.round, **fields}
    else:
        entry = {"event": event, "round": state.round, "seat": seat, **fields}
    state.events.append(entry)


def visible_events(events, seat):
    """The events `seat` may see (None: a spectator): all but other seats' private ones."""
    return [event for event in events if not event.get("private") or (seat is not None and event.get("seat") == seat)]
