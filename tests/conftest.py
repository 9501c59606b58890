import itertools
import os
import uuid

import pytest

import tests.support.examples  # noqa: F401  (loads the Hypothesis profile before the test modules)
from tests.support.helpers import find_position, state_of, user_at

# Fixtures that tests in several files name: a stopped clock, the view cache's renders.
pytest_plugins = ["tests.support.clock"]


def pytest_configure(config):
    """The WebSocket tests import elgrande_site/asgi.py, which starts the embedded deadline
    ticker; in the test process it would move games behind the tests' backs. Tests of the
    deadlines run their sweeps, tickers and servers themselves. The flush after each transactional
    test keeps the content types and permissions (tests/support/flush.py)."""
    from django.conf import settings

    from tests.support import flush

    settings.DEADLINE_TICKER = False
    flush.keep_what_migrate_wrote()


def pytest_collection_modifyitems(config, items):
    """The longest modules first, for `make test`'s workers (tests/support/schedule.py)."""
    from tests.support import schedule

    schedule.order(items)


@pytest.fixture(scope="session")
def _database_names_before_setup():
    """Each alias's database NAME before pytest-django's `django_db_setup` (requested first by the
    one below): an alias it did not set up (no test of the run needs it) keeps its own, real name."""
    from django.db import connections

    return {alias: connections[alias].settings_dict["NAME"] for alias in connections}


@pytest.fixture(scope="session")
def django_db_setup(_database_names_before_setup, django_db_setup, django_db_keepdb, django_db_blocker, request):
    """pytest-django's, and at its end, before it drops the test databases, the sessions that
    another thread still holds on a PostgreSQL one ended and named (tests/support/test_databases.py):
    the drop was refused now and then, and the database left behind with a warning. Only the
    databases pytest-django made for this run, and only when it is to drop them (not --reuse-db)."""
    yield
    if django_db_keepdb:
        return
    from tests.support.test_databases import Said, end_leftover_sessions

    with django_db_blocker.unblock():
        try:
            end_leftover_sessions(Said(request.config), names_before=_database_names_before_setup)
        except Exception as exc:  # as pytest-django's own teardown: a warning, not an error
            request.node.warn(pytest.PytestWarning(f"Error when ending sessions left on the test databases: {exc!r}"))


@pytest.fixture
def password():
    return "a-long-enough-Passw0rd"


@pytest.fixture(autouse=True)
def english_to_begin_with():
    """Each test starts in the site's default language, whatever an earlier test's request
    switched the thread to (LocaleMiddleware leaves the language of its last request active)."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def own_views_connections_given_back():
    """The connections that the threads rendering the seats' views keep (games/live/own_views.py)
    are given back after each test that made them keep one: the test database is then emptied,
    or dropped at the end, which a connection held in another thread stands in the way of."""
    yield
    from games.live import own_views

    if own_views.holding():
        own_views.give_back_connections()


@pytest.fixture(autouse=True)
def channel_layer_of_its_own():
    """Each test gets channel layers of its own. The Redis layer keeps state for its receives (locks
    held until a clean-up task of the last receive has run, the loop that receives) which belongs
    to the event loop of the test that made it; a later test's loop that inherited a lock whose
    clean-up died with an earlier loop waited for it for ever (a socket test's teardown hung CI)."""
    from channels.layers import channel_layers

    channel_layers.backends = {}
    yield
    channel_layers.backends = {}


@pytest.fixture(autouse=True)
def queued_work(monkeypatch):
    """What each task queued during a test goes to: {task name: handler(*args, delay)}. The
    fixtures below fill it; a task that no fixture handles goes to the real queue."""
    from games.infra import work

    real = work.enqueue
    handlers = {}

    def enqueue(task, *args, delay=0, label=None):
        handler = handlers.get(task)
        if handler is None:
            return real(task, *args, delay=delay, label=label)
        return handler(*args, delay=delay)

    monkeypatch.setattr(work, "enqueue", enqueue)
    return handlers


@pytest.fixture(autouse=True)
def queued_mail(queued_work):
    """Ids of the notifications queued for sending during a test; none is sent unless the test
    asks (tests/notifications use `mail_sent_at_once`). The real queue is tested on its own."""
    from games.mail import outbox

    ids = []
    queued_work[outbox.SEND_MAIL] = lambda notification_id, delay: ids.append(notification_id)
    return ids


@pytest.fixture(autouse=True)
def queued_computer_moves(queued_work):
    """(game id, version) of the computer players' moves queued during a test; none is made unless
    the test makes it (`games.play.computer_moves.play`) or asks for the real queue
    (`real_computer_moves`). No pause between moves in tests (tests/settings.py)."""
    from games.computer import players as computer

    queued = []
    queued_work[computer.PLAY_COMPUTER_MOVE] = lambda game_id, version, delay: queued.append((game_id, version))
    return queued


@pytest.fixture
def real_mail_queue(queued_work, queued_mail):
    """The notifications go to the real queue: a Celery worker with REDIS_URL, else the embedded
    mailer's thread."""
    from games.mail import outbox

    del queued_work[outbox.SEND_MAIL]


@pytest.fixture
def real_computer_moves(queued_work, queued_computer_moves):
    """The computer players' moves go to the real queue: a Celery worker with REDIS_URL, else the
    embedded worker's thread."""
    from games.computer import players as computer

    del queued_work[computer.PLAY_COMPUTER_MOVE]


@pytest.fixture(autouse=True)
def cache_of_its_own(settings):
    """Each test starts with an empty cache (rate limits, cached sessions) without flushing a shared
    Redis: its keys get a prefix of their own."""
    settings.CACHES = {
        name: {**config, "KEY_PREFIX": uuid.uuid4().hex}
        for name, config in settings.CACHES.items()
    }


@pytest.fixture
def make_user(db, password):
    """A player with a verified email address, as after following the mailed link;
    `verified=False` for one who has not yet."""
    from allauth.account.models import EmailAddress

    from accounts.models import User

    numbers = itertools.count(1)

    def make(name=None, verified=True):
        # The next name not taken: a game copied into the test (tests/support/copied_rows.py) brings
        # its players without this counter having counted them.
        name = name or next(
            candidate for candidate in (f"player{number}" for number in numbers)
            if not User.objects.filter(username=candidate).exists()
        )
        user = User.objects.create_user(name, f"{name}@example.org", password)
        EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=verified)
        return user

    return make


@pytest.fixture
def start_game(make_user):
    """A started game with fresh users in every seat; `seed` fixes the engine's seed."""
    from games.models import Game
    from games.play import lifecycle

    def start(num_players=3, seed=None, **options):
        users = [make_user() for _ in range(num_players)]
        game = lifecycle.create_game(users[0], num_players=num_players, **options)
        if seed is not None:
            Game.objects.filter(pk=game.pk).update(seed=seed)
        for user in users[1:]:
            lifecycle.join_game(game, user=user, token=game.invite_token)
        game.refresh_from_db()
        return game

    return start


@pytest.fixture
def game_at(start_game):
    """A started game brought, through the services, to a position where `predicate` holds."""
    from games.play import moving

    def build(predicate, num_players=3, **options):
        engine_options = {
            "short_game": options.get("short_game", False),
            "veto": options.get("veto", True),
            "show_castillo": options.get("show_castillo", False),
        }
        seed, history = find_position(predicate, num_players, **engine_options)
        game = start_game(num_players, seed=seed, **options)
        for seat, move in history:
            moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
            game.refresh_from_db()
        assert predicate(state_of(game))
        return game

    return build


@pytest.fixture(autouse=True)
def channel_prefix_of_this_process(settings):
    """The channel-layer prefix of this test process (with the Redis layer), also given to the
    servers that tests start. Test processes running at once (xdist workers) share one Redis, and
    their game ids repeat from one test database to the next: without a prefix each, a page of
    game 3 in one process would hear the moves of game 3 in another."""
    layer = settings.CHANNEL_LAYERS["default"]
    prefix = f"test-{os.getpid()}"
    if "CONFIG" in layer:
        settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {**layer["CONFIG"], "prefix": prefix}}}
    return prefix


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory):
    """A STATIC_ROOT filled by `collectstatic` as in production, for servers that tests start with
    DEBUG=0: their pages name the static files by their hashed names from its manifest. Collected
    once per run, not once per xdist worker: the workers share the directory above their own
    temporary ones, and the first to need it collects it under a lock while the others wait
    (collectstatic, with its compressed copies, took about 7 s of processor per worker)."""
    import fcntl
    import subprocess
    import sys
    from pathlib import Path

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    root = shared / "staticfiles"
    with open(shared / "staticfiles.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "staticfiles.json").exists():
            env = dict(os.environ, DEBUG="0", SECRET_KEY="collectstatic-" + "x" * 50, STATIC_ROOT=str(root),
                       SITE_URL="http://127.0.0.1")
            subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], check=True, env=env,
                           cwd=Path(__file__).resolve().parent.parent, timeout=300)
    return root
