"""Storing an imported game record (games/records/game_records.py reads and replays it) as a
finished game of the site's archive."""

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games.models import Game, Move, Seat
from games.play import after_save
from games.play.errors import Conflict
from games.play.saving import standings


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
        # Its results, as any game finished here has; its Announcement is not announced: nobody
        # is told of a game that was over before it came.
        after_save.record(game, seats={seat.index: seat for seat in seats}, finished=True, outbox=False)
    return game
