"""A site with friends and open games to look at, for the browser test (run in the live site's
process environment: `manage.py shell -c "from tests.support.friends_seed import seed; seed()"`).

"ana" follows "bea" (an open public game and a private one of hers) and "cid"; "dan", rated,
has an open public game of 3 players with the default options, which ana's quick game joins.
"""

from accounts.models import Follow
from games.play import lifecycle
from ratings.models import Ladder, Rating
from tests.support.ratings_seed import player


def seed():
    ana, bea, cid, dan = (player(name) for name in ("ana", "bea", "cid", "dan"))
    player("beatriz")
    Follow.objects.create(follower=ana, followed=bea)
    Follow.objects.create(follower=ana, followed=cid)
    lifecycle.create_game(bea, num_players=4, short_game=True)
    lifecycle.create_game(bea, num_players=3, private=True)
    Rating.objects.create(user=dan, ladder=Ladder.ALL, mu=31.0, sigma=2.5, ordinal=23.5, games=20)
    lifecycle.create_game(dan, num_players=3)
