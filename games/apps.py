from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self):
        # The tasks registered with Celery in every process, so that games.infra.work can queue or
        # run them by name.
        from games import broadcast, tasks  # noqa: F401
