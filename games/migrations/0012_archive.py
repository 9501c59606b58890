"""The archive: a `Result` row per seat of a finished game, filled here for the games finished
before, and the indexes the archive and the lobby's lists read from (games/reading/archive.py)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import games.fields
from games.play.results import seat_summaries


def fill_results(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    Move = apps.get_model("games", "Move")
    Result = apps.get_model("games", "Result")
    for game in Game.objects.filter(status="finished").iterator(chunk_size=200):
        users = dict(Seat.objects.filter(game=game).values_list("index", "user_id"))
        move_events = Move.objects.filter(game=game).order_by("version").values_list("events", flat=True)
        summaries = seat_summaries(game.num_players, game.standings, game.first_events, move_events)
        Result.objects.bulk_create([
            Result(
                game=game, user_id=users.get(summary["seat"]), **summary, finished_at=game.finished_at or game.created_at,
                num_players=game.num_players, short_game=game.short_game, veto=game.veto, rated=game.rated,
                private=game.private,
            )
            for summary in summaries
        ])


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0011_chat'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Result',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seat', models.PositiveSmallIntegerField()),
                ('place', models.PositiveSmallIntegerField()),
                ('score', models.PositiveSmallIntegerField()),
                ('position', models.PositiveSmallIntegerField(blank=True, help_text='Where the seat bid in the first round: 0 bid first.', null=True)),
                ('home', models.CharField(blank=True, default='', help_text='The region of its Grande at the start.', max_length=20)),
                ('cards', games.fields.FastJSONField(blank=True, help_text='The action cards it took, round by round.', null=True)),
                ('finished_at', models.DateTimeField()),
                ('num_players', models.PositiveSmallIntegerField()),
                ('short_game', models.BooleanField()),
                ('veto', models.BooleanField()),
                ('rated', models.BooleanField()),
                ('private', models.BooleanField()),
            ],
            options={
                'ordering': ['-finished_at', '-game', 'place', 'seat'],
            },
        ),
        migrations.AddIndex(
            model_name='game',
            index=models.Index(condition=models.Q(('private', False), ('status', 'finished')), fields=['-finished_at', '-id'], include=('num_players', 'short_game', 'veto', 'rated'), name='game_archive_idx'),
        ),
        migrations.AddIndex(
            model_name='game',
            index=models.Index(condition=models.Q(('private', False), ('status', 'open')), fields=['-created_at', '-id'], name='game_open_idx'),
        ),
        migrations.AddField(
            model_name='result',
            name='game',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='results', to='games.game'),
        ),
        migrations.AddField(
            model_name='result',
            name='user',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='results', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddIndex(
            model_name='result',
            index=models.Index(fields=['user', '-finished_at', '-game'], include=('num_players', 'short_game', 'veto', 'rated', 'private'), name='result_player_idx'),
        ),
        migrations.AddConstraint(
            model_name='result',
            constraint=models.UniqueConstraint(fields=('game', 'seat'), name='one_result_per_seat'),
        ),
        migrations.AddConstraint(
            model_name='result',
            constraint=models.UniqueConstraint(fields=('game', 'user'), name='one_result_per_user'),
        ),
        migrations.RunPython(fill_results, migrations.RunPython.noop),
    ]
