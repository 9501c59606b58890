"""A site with ladders to look at, for the browser test (run in the live site's process
environment: `manage.py shell -c "from tests.support.ratings_seed import seed; seed()"`).

"ana" (password PASSWORD, verified address) plays real rated games of 2 to 5 players through the
services; FILLERS more players stand on the "all games" ladder above and below her, so that it has
several pages and her row is not on the first.
"""

import random
from datetime import timedelta

from allauth.account.models import EmailAddress
from django.utils import timezone

from accounts.models import User
from games.engine import random_move, to_act
from games.engine.state import GameState
from games.play import lifecycle, moving
from ratings.models import Ladder, Rating
from tests.support.browser import PASSWORD

FILLERS = 90
GAMES = [2, 3, 2, 4, 5, 2, 3, 2]


def player(name):
    user = User.objects.create_user(name, f"{name}@example.org", PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    return user


def play_to_the_end(game):
    rng = random.Random(game.seed)
    users = {seat.index: seat.user for seat in game.seats.all()}
    game.refresh_from_db()
    state = GameState.from_json(game.state)
    while not state.is_over:
        seat = to_act(state)[0]
        moving.submit_move(game, user=users[seat], move=random_move(state, seat, rng), expected_version=game.version)
        game.refresh_from_db()
        state = GameState.from_json(game.state)


def seed():
    ana = player("ana")
    others = [player(name) for name in ("blas", "carmen", "diego", "elena")]
    for size in GAMES:
        game = lifecycle.create_game(ana, num_players=size, short_game=True, rated=True)
        for user in others[:size - 1]:
            lifecycle.join_game(game, user=user)
        play_to_the_end(game)
        others = others[1:] + others[:1]
    fillers = User.objects.bulk_create(
        [User(username=f"hidalgo{number:03}", email=f"hidalgo{number}@example.org") for number in range(FILLERS)]
    )
    # Ratings from ana's plus 20 downwards, their sigma 2 to 4: most stand above her.
    top = Rating.objects.get(user=ana, ladder=Ladder.ALL).ordinal + 20
    ratings = []
    for number, user in enumerate(fillers):
        mu, sigma = top - number * 0.15, 2.0 + number % 3
        ratings.append(Rating(
            user=user,
            ladder=Ladder.ALL,
            mu=mu,
            sigma=sigma,
            ordinal=mu - 3 * sigma,
            games=3 + number % 20,
            wins=number % 3,
            last_game_at=timezone.now() - timedelta(days=number % 40, hours=number),
        ))
    Rating.objects.bulk_create(ratings)
