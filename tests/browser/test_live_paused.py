"""In a real browser, with the site's Redis away from the start (nothing listens at REDIS_URL):
a logged-in player's lobby and game page still load, and each says that its live updates are
paused, since its socket cannot connect."""

import subprocess

import pytest

from tests.support.browser import MANAGE, ROOT
from tests.support.helpers import free_port

pytestmark = pytest.mark.browser

SITE_ENV = {"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}

# A started game of two players, and a session of its first player's, made by `manage.py shell` in
# the site's database (nobody can log in while Redis is away); prints the session key and game id.
SEED = """
from importlib import import_module

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

from accounts.models import User
from games.play import lifecycle

ana = User.objects.create_user("ana", "ana@example.org", "a-long-enough-Passw0rd")
blas = User.objects.create_user("blas", "blas@example.org", "a-long-enough-Passw0rd")
game = lifecycle.create_game(ana, num_players=2)
lifecycle.join_game(game, user=blas, token=game.invite_token)
session = import_module(settings.SESSION_ENGINE).SessionStore()
session.update({
    SESSION_KEY: str(ana.pk), BACKEND_SESSION_KEY: settings.AUTHENTICATION_BACKENDS[0],
    HASH_SESSION_KEY: ana.get_session_auth_hash(),
})
session.create()
print(session.session_key, game.pk)
"""


def test_the_pages_say_live_updates_are_paused_while_redis_is_away(live_site, live_site_env, browser):
    made = subprocess.run(
        [*MANAGE, "shell", "-v0", "-c", SEED], cwd=ROOT, env=live_site_env, check=True, capture_output=True, text=True
    )
    session_key, game_id = made.stdout.split()
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": session_key, "url": live_site}])
    page = context.new_page()
    for path in ("/", f"/games/{game_id}/"):
        response = page.goto(f"{live_site}{path}")
        assert response.status == 200
        note = page.locator("#live-paused")
        note.wait_for(state="visible")
        assert "Live updates are paused" in note.inner_text()
    assert page.locator("svg.map").count() == 1
    context.close()
