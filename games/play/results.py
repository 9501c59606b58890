"""What the archive keeps of a finished game: its `Result` rows, one per seat, written in the
transaction that finishes it (read by games/reading/archive.py)."""

from games import signals
from games.infra import finished_generation
from games.models import Move, Result, Seat


def seat_summaries(num_players, standings, first_events, move_events):
    """Per seat of a finished game, from its public summary and its events (plain data in and
    out, so that a data migration can call it): [{seat, place, score, position, home, cards}].

    `position`: where the seat bid in the first round (0: it bid first); `home`: the region of
    its Grande at the start; `cards`: the action cards it took, round by round. A game stored
    before the events (its setup is a `legacy` text) has None, "" and None for them."""
    setup = next((event for event in first_events if event.get("event") == "setup"), None)
    cards = {seat: [] for seat in range(num_players)}
    for events in move_events:
        for event in events:
            if event.get("event") == "take_card":
                cards[event["seat"]].append(event["card"])
    summaries = []
    for place, seat, score in standings:
        summary = {"seat": seat, "place": place, "score": score, "position": None, "home": "", "cards": None}
        if setup is not None:
            summary.update(
                position=(seat - setup["first_bidder"]) % num_players,
                home=setup["homes"][seat],
                cards=cards[seat],
            )
        summaries.append(summary)
    return summaries


def record_results(game, seats=None):
    """Store the `Result` rows of `game`, which has just finished (its standings, first events and
    moves stored). `seats`: {index: Seat}, when the caller has them."""
    # The deadline sweep loads only the columns it plays with: read the others in one query.
    deferred = game.get_deferred_fields() & {"num_players", "first_events", *copied_from.fields}
    if deferred:
        game.refresh_from_db(fields=sorted(deferred))
    if seats is None:
        seats = {seat.index: seat for seat in Seat.objects.filter(game=game)}
    move_events = Move.objects.filter(game=game).order_by("version").values_list("events", flat=True)
    summaries = seat_summaries(game.num_players, game.standings, game.first_events, move_events)
    Result.objects.bulk_create([
        Result(game=game, user_id=seats[summary["seat"]].user_id, **summary, **copied_from(game))
        for summary in summaries
    ])
    signals.finished_on_commit(game.pk)
    # The lists of finished games kept in the cache show it as soon as this commits.
    finished_generation.changed()


def copied_from(game):
    """The game's fields each of its `Result` rows repeats."""
    return {name: getattr(game, name) for name in copied_from.fields}


copied_from.fields = ("finished_at", "num_players", "short_game", "veto", "rated", "private", "practice")
