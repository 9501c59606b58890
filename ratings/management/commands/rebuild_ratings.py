from django.apps import apps
from django.core.management.base import BaseCommand, CommandError

from ratings import rating


class Command(BaseCommand):
    help = (
        "Compute every rating again from all finished rated games, in the order they finished, and store "
        "the result in place of the ratings and rating changes. With --check, store nothing: report where "
        "the stored ones differ (exit status 1 if anywhere)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="Compare only; change nothing.")

    def handle(self, *args, check=False, **options):
        if check:
            found = rating.differences(apps)
            for sentence in found:
                self.stdout.write(sentence)
            if found:
                raise CommandError(f"{len(found)} stored rows differ from the rebuild.")
            self.stdout.write("The stored ratings are exactly those the games give.")
            return
        ratings, changes = rating.replace_all(apps)
        self.stdout.write(f"Rebuilt {ratings} ratings from {changes} rating changes.")
