"""Games stored with the old log of sentences: give each move its events by replaying it, or keep
the old sentences as legacy events where the rules changed under the game (games/records/old_logs.py)."""

from django.db import migrations

from games.records.old_logs import rebuild


def rebuild_logs(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Move = apps.get_model("games", "Move")
    for game in Game.objects.exclude(state=None).iterator():
        moves = list(Move.objects.filter(game=game).select_related("seat").order_by("version"))
        options = {
            "num_players": game.num_players,
            "seed": game.seed,
            "short_game": game.short_game,
            "veto": game.veto,
            "show_castillo": game.show_castillo,
        }
        rebuilt = rebuild(options, game.state, [(move.seat.index, move.move) for move in moves])
        game.state = rebuilt.state
        game.first_events = rebuilt.first_events
        game.save(update_fields=["state", "first_events"])
        for move, events, round_after in zip(moves, rebuilt.move_events, rebuilt.move_rounds):
            move.events = events
            move.round = round_after
        Move.objects.bulk_update(moves, ["events", "round"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_move_events"),
    ]

    # Going back does not write the old sentences again: the events stay where they are.
    operations = [migrations.RunPython(rebuild_logs, migrations.RunPython.noop)]
