"""`seeded` on the browser modules' shared site (tests/support/shared_site_urls.py: `run`): the code
runs in the server, against its database, and answers what it printed last; what another thread
prints meanwhile is not in the answer, and code that fails raises with its traceback."""

import pytest

from tests.support.browser import seeded

pytestmark = pytest.mark.browser


def test_the_code_runs_in_the_server_on_its_database(live_site, live_site_env):
    made = seeded(
        live_site_env,
        "import json, os; from accounts.models import User; "
        "User.objects.create_user('seedling', 'seedling@example.org', 'x'); "
        "print('made'); print(json.dumps([os.environ['DJANGO_SETTINGS_MODULE'], User.objects.count()]))",
    )
    assert made == ["tests.support.shared_site", 1]
    # The server's database holds it: a second run sees it.
    assert seeded(live_site_env, "from accounts.models import User; print(User.objects.filter("
                                 "username='seedling').count())") == 1


def test_what_another_thread_prints_meanwhile_is_not_the_answer(live_site, live_site_env):
    code = (
        "import threading; print('[7]'); "
        "thread = threading.Thread(target=lambda: print('a line of another thread')); thread.start(); thread.join()"
    )
    assert seeded(live_site_env, code) == [7]


def test_code_that_fails_raises_with_its_traceback(live_site, live_site_env):
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        seeded(live_site_env, "print('[1]'); 1 / 0")
