import sys

from django.core.management.base import BaseCommand, CommandError

from games.play.errors import GameError
from games.records import game_records


class Command(BaseCommand):
    help = (
        "Import a finished game from a JSON game record (see docs/game-records.md): replay it with the "
        "engine and store it as an archived game. A record that does not replay to the scores it claims, or "
        "a game already imported, is refused and nothing is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the game record (JSON); - reads it from standard input")

    def handle(self, *args, file, **options):
        data = self._read(file)
        try:
            game = game_records.import_record(data)
        except game_records.RecordError as error:
            raise CommandError(f"{file}: {error} Nothing was stored.") from None
        except GameError as error:
            raise CommandError(f"{file}: {error.message} Nothing was stored.") from None
        names = ", ".join(seat.display_name for seat in game.seats.order_by("index"))
        self.stdout.write(f"Imported {file} as game {game.pk} ({names}): {game.get_absolute_url()}")

    @staticmethod
    def _read(file):
        # One byte more than a record may have, to tell a file too large without reading it whole.
        limit = game_records.MAX_BYTES + 1
        if file == "-":
            return sys.stdin.buffer.read(limit)
        try:
            with open(file, "rb") as stream:
                return stream.read(limit)
        except OSError as error:
            raise CommandError(f"Cannot read {file}: {error.strerror or error}.") from None
