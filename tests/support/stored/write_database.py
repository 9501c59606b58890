"""Write tests/support/stored/: a database written by the site's code as it was at a commit, then
dumped, for tests/test_stored_data.py. Run from a checkout of that commit, with this repository's
virtualenv:

    git archive COMMIT | tar -x -C /tmp/old && cd /tmp/old
    python /path/to/tests/support/stored/write_database.py DUMP.json MIGRATIONS.json

It imports the old code's modules by their old names (games.services, games.tasks...): it is kept
as it ran, not as today's code would be written."""
# ruff: noqa: E402 - the site's modules are imported once Django is set up, from the old checkout
import json
import os
import random
import sys

sys.path.insert(0, os.getcwd())
os.environ["DJANGO_SETTINGS_MODULE"] = "elgrande_site.settings"
import django

django.setup()
import elgrande_site
import games

assert games.__file__.startswith(os.getcwd()) and elgrande_site.__file__.startswith(os.getcwd())
from django.core.management import call_command
from django.db.migrations.loader import MigrationLoader

call_command("migrate", verbosity=0)
from allauth.account.models import EmailAddress

from accounts.models import User
from games import computer, notifications, presence, services, tasks
from games.engine import GameState, random_move, to_act
from games.models import Game, MailToDecide, Notification
from ratings.models import Rating

# No mail sent and no computer move made in the background: the rows stay as a killed process leaves them.
tasks.queue_notification = lambda notification_id: None
computer.queue_move = lambda game_id, version: None

rng = random.Random(20)
users = []
for name in ["ana", "bruno", "carla", "dario"]:
    user = User.objects.create_user(name, f"{name}@example.org", "a long password 123")
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    users.append(user)

def play(game, moves=None):
    made = 0
    while True:
        game.refresh_from_db()
        state = GameState.from_json(game.state)
        if state.is_over or (moves is not None and made >= moves):
            return game
        seat = to_act(state)[0]
        user = game.seats.get(index=seat).user
        services.submit_move(game, user=user, move=random_move(state, seat, rng), expected_version=game.version)
        made += 1

# A rated game played to its end: results, ratings, mails.
finished = services.create_game(users[0], num_players=2, short_game=True, rated=True)
services.join_game(finished, user=users[1])
play(finished)
# A rated game of three under way, its players mailed.
under_way = services.create_game(users[1], num_players=3, rated=True)
services.join_game(under_way, user=users[2])
services.join_game(under_way, user=users[3])
play(under_way, moves=12)
# Its next player has the page open: the commit's MailToDecide waits for the sweep.
under_way.refresh_from_db()
nxt = to_act(GameState.from_json(under_way.state))[0]
presence.seen(under_way.pk, under_way.seats.get(index=nxt).user_id)
for other in to_act(GameState.from_json(under_way.state)):
    presence.seen(under_way.pk, under_way.seats.get(index=other).user_id)
# The process is killed between the commit and the mails' decision: the row outlives it.
notifications.game_saved = lambda *args, **kwargs: None
play(under_way, moves=2)
# An open game waiting for a player, and a practice game against the computer.
services.create_game(users[2], num_players=4)
practice = services.create_game(users[3], num_players=3, computers=["greedy", "random"])
print("games", Game.objects.count(), "notifications", Notification.objects.count(),
      "mail to decide", MailToDecide.objects.count(), "ratings", Rating.objects.count(), file=sys.stderr)
loader = MigrationLoader(None, ignore_no_migrations=True)
leaves = {app: name for app, name in loader.graph.leaf_nodes() if app in ("games", "accounts", "ratings", "account")}
call_command("dumpdata", "accounts", "account", "games", "ratings", indent=1, output=sys.argv[1])
json.dump(leaves, open(sys.argv[2], "w"), indent=1, sort_keys=True)
