from django.core.management.base import BaseCommand
from django.utils import timezone

from games import services
from games.models import Game


class Command(BaseCommand):
    help = "Make the default moves of every game whose deadline has passed (after a restart)."

    def handle(self, *args, **options):
        overdue = Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=timezone.now())
        changed = sum(
            services.apply_default_moves(game_id, version)
            for game_id, version in overdue.values_list("pk", "version")
        )
        self.stdout.write(f"{changed} game(s) moved on.")
