"""`manage.py rebuild_ratings` computes every rating again from the rated games in the order they
finished, and finds exactly the stored floats; `--check` reports any row that differs."""

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.utils import timezone

from games.models import Game
from ratings import rating
from ratings.models import Ladder, Rating, RatingChange
from tests.support.copied_rows import made_once
from tests.support.helpers import play
from tests.support.rated_games import open_rated, play_rated, stored

pytestmark = pytest.mark.django_db


def rebuild(*args):
    out = StringIO()
    call_command("rebuild_ratings", *args, stdout=out)
    return out.getvalue()


def finish_with_a_tie(users):
    """A rated game finished as `_save` finishes one, its first two seats sharing first place."""
    game = open_rated(users)
    game.status, game.finished_at = Game.Status.FINISHED, timezone.now()
    game.standings = [[1, 0, 50], [1, 1, 50]] + [[index + 1, index, 40 - index] for index in range(2, len(users))]
    rating.rate_finished_game(game)
    game.save()
    return game


@pytest.fixture
def season(make_user):
    """Rated games of 2 to 5 players among six players, one with a shared first place, one
    unrated game, and one rated game that started first but finished last (its id comes before
    the games it is rated after). Played once per test process and copied into the later tests
    (tests/support/copied_rows.py): playing the six games was nearly all of this file's time."""

    def play_the_season():
        players = [make_user() for _ in range(6)]
        late = open_rated(players[1:4])
        for size, first in [(2, 0), (3, 1), (5, 0), (4, 2)]:
            play_rated([players[(first + index) % 6] for index in range(size)])
        finish_with_a_tie(players[2:6])
        play_rated(players[:2], rated=False)
        play(late)
        return players

    return made_once("rated season", play_the_season)


def test_the_rebuild_reproduces_the_stored_ratings_exactly(season):
    ratings, changes = stored(Rating), stored(RatingChange)
    assert len(changes) == 2 * (2 + 3 + 5 + 4 + 4 + 3)
    assert "exactly those the games give" in rebuild("--check")
    assert "Rebuilt" in rebuild()
    assert stored(Rating) == ratings
    assert stored(RatingChange) == changes


def test_the_rebuild_follows_the_finishing_order_not_the_ids(season):
    """The game opened first but finished last is rated last: rebuilt by id, it would come first
    and every rating of its players after it would differ."""
    games = list(Game.objects.filter(rated=True).order_by("finished_at", "pk"))
    assert games[-1].pk < games[0].pk
    by_id = sorted(games, key=lambda game: game.pk)
    Game.objects.filter(pk=by_id[0].pk).update(finished_at=by_id[1].finished_at)
    assert rating.differences(apps)


def test_check_names_a_tampered_rating_and_the_rebuild_repairs_it(season):
    ratings, changes = stored(Rating), stored(RatingChange)
    tampered = Rating.objects.filter(ladder=Ladder.ALL).first()
    Rating.objects.filter(pk=tampered.pk).update(mu=tampered.mu + 1e-12, wins=tampered.wins + 1)
    RatingChange.objects.filter(ladder=Ladder.TWO).first().delete()
    with pytest.raises(CommandError, match="2 stored rows differ"):
        out = StringIO()
        call_command("rebuild_ratings", "--check", stdout=out)
    text = out.getvalue()
    assert f"Rating {{'user_id': {tampered.user_id}, 'ladder': 0}} differs" in text
    assert "'wins': (" in text and "'mu': (" in text
    assert "RatingChange" in text and "is missing" in text
    rebuild()
    assert stored(Rating) == ratings
    assert stored(RatingChange) == changes


def test_the_rebuild_of_no_game_leaves_no_rating(make_user):
    play_rated([make_user(), make_user()])
    Game.objects.update(rated=False)
    assert rebuild() == "Rebuilt 0 ratings from 0 rating changes.\n"
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_games_finished_later_are_rated_on_top_of_the_rebuilt_ratings(season, make_user):
    rebuild()
    play_rated(season[:4])
    assert "exactly those the games give" in rebuild("--check")
