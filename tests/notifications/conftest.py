import pytest


@pytest.fixture(autouse=True)
def mail_sent_at_once(monkeypatch, settings):
    """Queued notifications are sent at once in the test's own thread (and its transaction), by
    what the mailer thread runs for each; the thread itself is tested in test_sending.py."""
    from games.mail import notifications

    settings.SITE_URL = "https://elgrande.example.org"
    monkeypatch.setattr(notifications, "queue_notification", notifications.send_logged)


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run `change()` and then its after-commit hooks (mail is decided there), as a request would."""

    def run(change, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return change(*args, **kwargs)

    return run


@pytest.fixture
def started(make_user, committed):
    """A game started through the services with its after-commit hooks run: (game, users by seat)."""
    from games.models import Game
    from games.play import services

    def start(num_players=3, seed=None, **options):
        users = [make_user() for _ in range(num_players)]
        game = services.create_game(users[0], num_players=num_players, **options)
        if seed is not None:
            Game.objects.filter(pk=game.pk).update(seed=seed)
        for user in users[1:]:
            committed(services.join_game, game, user=user, token=game.invite_token)
        game.refresh_from_db()
        return game, {seat.index: seat.user for seat in game.seats.select_related("user")}

    return start
