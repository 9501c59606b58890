from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self):
        # The tasks registered with Celery in every process, so that games.infra.work can queue or
        # run them by name.
        from games import broadcast, tasks  # noqa: F401

        # What the lists of finished games show changes beyond a game finishing (which
        # games/play/results.py announces): their kept copies are retired (list_cache.py).
        for model in ("games.Game", "games.Result", "accounts.User", "tournaments.Tournament", "tournaments.Table"):
            post_delete.connect(_finished_lists_changed, sender=model, dispatch_uid=f"finished-lists-{model}-deleted")
        for model in ("games.Game", "accounts.User", "tournaments.Tournament"):
            post_save.connect(_finished_lists_changed, sender=model, dispatch_uid=f"finished-lists-{model}-saved")


def _finished_lists_changed(sender, instance, **kwargs):
    """A row the lists of finished games may show was saved or deleted: a finished game (its
    options, privacy), a player (a name, an account deleted; not the log-in's own write of
    `last_login`), a tournament (its name, above its games). Raise the generation on commit."""
    from games.infra import finished_generation

    label = sender._meta.label
    if label == "games.Game" and kwargs.get("signal") is post_save and instance.status != "finished":
        return
    fields = kwargs.get("update_fields")
    if label == "accounts.User" and fields is not None and not {"username", "deleted_at"} & set(fields):
        return
    finished_generation.changed()
