from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self):
        # The tasks registered with Celery in every process, so that games.infra.work can queue or
        # run them by name.
        from games import broadcast, tasks  # noqa: F401
        from games.reading import play_view

        # The spectators' frames are the pages' rendering (games/reading/play_view.py), looked up
        # at each frame; broadcast, below every room, only sends them.
        broadcast.render_spectators_with(lambda game_id: play_view.spectators_play(game_id))
