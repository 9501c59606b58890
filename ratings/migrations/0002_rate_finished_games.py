"""Rated games finished before the ladders existed get their ratings now, as the rebuild would."""

from django.db import migrations


def rate_finished_games(apps, schema_editor):
    from ratings.rating import replace_all

    replace_all(apps)


class Migration(migrations.Migration):
    dependencies = [("ratings", "0001_initial")]

    operations = [migrations.RunPython(rate_finished_games, migrations.RunPython.noop)]
