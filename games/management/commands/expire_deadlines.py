from django.core.management.base import BaseCommand

from games import deadlines


class Command(BaseCommand):
    help = "Run one deadline sweep now: make the default moves of every game whose deadline has passed."

    def handle(self, *args, **options):
        moved = deadlines.sweep()
        self.stdout.write(f"{moved} game(s) moved on.")
