from pathlib import Path

import orjson
from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from games.records import game_records


class Command(BaseCommand):
    help = (
        "Write the game record (JSON, as /games/<id>/record.json gives it) of every finished game into a folder, "
        "one file a game: a backup that any other copy of the site reads back with import_game "
        "(docs/operations.md). Records already in the folder are written again."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", help="where the records go (created if missing)")

    def handle(self, *args, folder, **options):
        target = Path(folder)
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CommandError(f"Cannot write to {folder}: {error.strerror or error}.") from None
        games = game_records.record_queryset().filter(status=Game.Status.FINISHED).order_by("pk")
        count = 0
        for game in games.iterator(chunk_size=200):
            (target / f"el-grande-game-{game.pk}.json").write_bytes(orjson.dumps(game_records.export(game)))
            count += 1
        self.stdout.write(f"Wrote {count} game records to {target}.")
