"""A game record is identified by its moves' shapes (games/moves/move_shapes.py `canonical`), no longer
by the moves as written: the imported games' digests are computed again that way, and the games
played here get an index on their seed, by which a record of one of them is found."""

from django.db import migrations, models

from games.records.game_records import digest


def identify_imported_games(apps, schema_editor):
    """Only a game imported with fields the engine ignores gets a new digest. Where it is the
    digest of a game imported before (the same game imported twice, as the old digest let happen),
    the later game keeps its old one: the unique index allows one game per digest."""
    Game = apps.get_model("games", "Game")
    Move = apps.get_model("games", "Move")
    taken = set(Game.objects.exclude(record_digest="").values_list("record_digest", flat=True))
    for game in Game.objects.filter(imported=True).exclude(record_digest="").order_by("pk").iterator():
        options = {
            "num_players": game.num_players,
            "short_game": game.short_game,
            "veto": game.veto,
            "show_castillo": game.show_castillo,
        }
        moves = Move.objects.filter(game=game).order_by("version").values_list("seat__index", "move")
        identity = digest(options, game.seed, moves)
        if identity == game.record_digest or identity in taken:
            continue
        taken.discard(game.record_digest)
        taken.add(identity)
        Game.objects.filter(pk=game.pk).update(record_digest=identity)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0017_notification_outcome_unknown'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='game',
            index=models.Index(fields=['seed'], name='game_seed_idx'),
        ),
        # Going back keeps the digests: the old ones are not known any more, and these are unique.
        migrations.RunPython(identify_imported_games, migrations.RunPython.noop),
    ]
