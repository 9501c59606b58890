"""The ladder pages: rank, player, rating, games, wins, last game; a tab per ladder; pages of
PER_PAGE; the viewer's own row highlighted and one click away; a bounded number of queries."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from ratings.models import Ladder, Rating
from ratings.rating import MODEL, shown
from ratings.selectors import PER_PAGE
from tests.support.helpers import logged_in
from tests.support.rated_games import play_rated

pytestmark = pytest.mark.django_db


def ladder_of(count, ladder=Ladder.ALL, games=10):
    """`count` players on `ladder`, the first the best; each `games` games and as many wins as
    his number. Returns the users, best first."""
    users = User.objects.bulk_create(
        [User(username=f"p{number:04}", email=f"p{number}@example.org") for number in range(count)]
    )
    when = timezone.now()
    Rating.objects.bulk_create([
        Rating(
            user=user,
            ladder=ladder,
            mu=40.0 - number * 0.1,
            sigma=2.0,
            ordinal=40.0 - number * 0.1 - 6.0,
            games=games,
            wins=number % games,
            last_game_at=when - timedelta(days=number),
        )
        for number, user in enumerate(users)
    ])
    return users


def rows(response):
    """The ladder's rows as (rank, name) pairs, from the HTML."""
    text = response.content.decode()
    return [
        (int(rank), name)
        for rank, name in re.findall(r'<td class="rank">(\d+)</td>\s*<td class="player">(?:<[^>]+>)?([^<]+)<', text)
    ]


def test_every_ladder_has_its_tab_and_the_current_one_is_marked(client, db):
    for ladder in Ladder:
        url = reverse("ladders") if ladder == Ladder.ALL else reverse("ladder", args=[ladder.value])
        text = client.get(url).content.decode()
        assert f'href="{url}" aria-current="page">{ladder.label}</a>' in text
        for other in Ladder:
            assert str(other.label) in text
    assert 'href="/ladders/">Ladders</a>' in client.get(reverse("lobby")).content.decode()


@pytest.mark.parametrize("path", ["/ladders/1/", "/ladders/6/", "/ladders/0/", "/ladders/99999999999999999999/"])
def test_there_is_no_ladder_for_other_player_counts(client, db, path):
    assert client.get(path).status_code == 404


def test_the_ladder_shows_rank_player_rating_games_wins_and_last_game_best_first(client, make_user):
    players = [make_user() for _ in range(3)]
    game = play_rated(players)
    response = client.get(reverse("ladder", args=[3]))
    ratings = sorted(Rating.objects.filter(ladder=Ladder.THREE), key=lambda rating: (-rating.ordinal, rating.user_id))
    assert [name for _, name in rows(response)] == [rating.user.username for rating in ratings]
    text = response.content.decode()
    for rating in ratings:
        row = re.search(rf'<tr id="player-{rating.user_id}">(.*?)</tr>', text, re.S).group(1)
        assert f"<strong>{shown(rating.mu, rating.sigma)}</strong>" in row
        assert f"± {round(20 * rating.sigma)}" in row
        assert f'<td class="number">1</td>\n      <td class="number">{rating.wins}</td>' in row
        assert f'datetime="{game.finished_at.isoformat()[:19]}' in row
        assert "provisional" in row
        assert f'href="{rating.user.get_absolute_url()}"' in row
    assert rows(client.get(reverse("ladder", args=[2]))) == []
    assert "No rated game has finished on this ladder yet." in client.get(reverse("ladder", args=[2])).content.decode()


def test_five_rated_games_make_a_rating_no_longer_provisional(client, db):
    users = ladder_of(2, games=4)
    Rating.objects.filter(user=users[1]).update(games=5)
    text = client.get(reverse("ladders")).content.decode()
    first = re.search(rf'<tr id="player-{users[0].pk}">(.*?)</tr>', text, re.S).group(1)
    second = re.search(rf'<tr id="player-{users[1].pk}">(.*?)</tr>', text, re.S).group(1)
    assert "provisional" in first and "provisional" not in second


def test_equal_ratings_share_a_rank(client, db):
    users = ladder_of(4)
    Rating.objects.filter(user__in=users[1:3]).update(mu=50.0, ordinal=44.0)
    assert [rank for rank, _ in rows(client.get(reverse("ladders")))] == [1, 1, 3, 4]


def test_the_ladder_is_paginated_and_ranks_go_on_from_page_to_page(client, db):
    users = ladder_of(2 * PER_PAGE + 7)
    second = client.get(reverse("ladders"), {"page": 2})
    expected = [(PER_PAGE + 1 + index, user.username) for index, user in enumerate(users[PER_PAGE:2 * PER_PAGE])]
    assert rows(second) == expected
    assert "page 2 of 3" in second.content.decode()
    assert rows(client.get(reverse("ladders"), {"page": 3}))[-1] == (2 * PER_PAGE + 7, users[-1].username)


def test_a_tie_across_two_pages_keeps_its_rank(client, db):
    users = ladder_of(PER_PAGE + 5)
    Rating.objects.filter(user__in=users[PER_PAGE - 1:PER_PAGE + 1]).update(mu=1.0, ordinal=-5.0)
    Rating.objects.filter(user__in=users[PER_PAGE + 1:]).update(mu=0.0, ordinal=-6.0)
    assert rows(client.get(reverse("ladders")))[-1][0] == PER_PAGE
    assert rows(client.get(reverse("ladders"), {"page": 2}))[0][0] == PER_PAGE


@pytest.mark.parametrize("page", ["0", "-3", "abc", "2.5", "1e9999", "\x00", "99999999999999999999999", ""])
def test_a_page_that_does_not_exist_gives_the_first_or_last_page(client, db, page):
    users = ladder_of(PER_PAGE + 3)
    response = client.get(reverse("ladders"), {"page": page})
    assert response.status_code == 200
    assert rows(response)[0][1] in (users[0].username, users[PER_PAGE].username)


def test_my_row_is_highlighted_and_my_rank_links_to_its_page(make_user):
    users = ladder_of(2 * PER_PAGE)
    me = make_user("felipe")
    Rating.objects.create(user=me, ladder=Ladder.ALL, mu=30.0, sigma=2.0, ordinal=24.0, games=7, wins=2)
    # Below the first PER_PAGE + 10 players (ordinal 40 - 6 - 0.1 n): rank PER_PAGE + 11, page 2.
    Rating.objects.filter(user__in=users[PER_PAGE + 10:]).update(mu=0.0, ordinal=-6.0)
    client = logged_in(me)
    text = client.get(reverse("ladders")).content.decode()
    assert f"Your rank: <strong>{PER_PAGE + 11}</strong>, rating {shown(30.0, 2.0)} ± 40." in text
    assert f'<a href="?page=2#player-{me.pk}">Show my row</a>' in text
    assert 'class="me"' not in text
    page = client.get(reverse("ladders"), {"page": 2}).content.decode()
    assert f'<tr id="player-{me.pk}" class="me">' in page
    assert page.count('class="me"') == 1
    assert "You have no rated game on this ladder yet." in client.get(reverse("ladder", args=[4])).content.decode()


def test_a_visitor_sees_the_ladder_without_a_rank_of_his_own(client, db):
    ladder_of(3)
    text = client.get(reverse("ladders")).content.decode()
    assert "Your rank" not in text and "no rated game on this ladder" not in text
    assert len(rows(client.get(reverse("ladders")))) == 3


def test_a_deleted_player_stays_on_the_ladder_under_no_name(client, db):
    users = ladder_of(2)
    User.objects.filter(pk=users[0].pk).update(deleted_at=timezone.now())
    text = client.get(reverse("ladders")).content.decode()
    assert users[0].username not in text
    assert rows(client.get(reverse("ladders")))[0] == (1, "deleted player")


def test_the_ladder_page_takes_as_many_queries_with_many_players_as_with_few(make_user, django_assert_max_num_queries):
    """The count, the page's rows, the rank of its first row, the viewer's row and how many stand
    before it, besides the session and the user: whatever the size of the ladder."""
    me = make_user()
    for count in (3, 3 * PER_PAGE):
        Rating.objects.all().delete()
        users = ladder_of(count)
        Rating.objects.create(user=me, ladder=Ladder.ALL, mu=MODEL.mu, sigma=MODEL.sigma, ordinal=0.0, games=1)
        client = logged_in(me)
        for page in (1, 2, 3):
            with django_assert_max_num_queries(7):
                response = client.get(reverse("ladders"), {"page": page})
            assert response.status_code == 200
        User.objects.filter(pk__in=[user.pk for user in users]).delete()


def test_the_ladder_counts_a_private_game_only_for_those_who_sat_in_it(client, make_user):
    """The ratings count it, but the games, wins and last game's day shown beside them are, to
    anyone else, those of the games they may see: else the ladder would date the private game."""
    from games.models import Game
    from ratings.models import RatingChange

    a, b, c = make_user(), make_user(), make_user()
    public = play_rated([a, b])
    hidden = play_rated([a, b], private=True)
    for game, day in ((public, 1), (hidden, 5)):
        when = datetime(2026, 3, day, 12, tzinfo=UTC)
        Game.objects.filter(pk=game.pk).update(finished_at=when)
        RatingChange.objects.filter(game=game).update(finished_at=when)
    Rating.objects.filter(user__in=[a, b]).update(last_game_at=datetime(2026, 3, 5, 12, tzinfo=UTC))

    def row_of(viewer, player):
        text = viewer.get(reverse("ladder", args=[2])).content.decode()
        row = re.search(rf'<tr id="player-{player.pk}"[^>]*>(.*?)</tr>', text, re.S).group(1)
        day = re.search(r'class="last-game">(.*?)</td>', row).group(1)
        return re.findall(r'<td class="number">(\d+)</td>', row), day

    for player in (a, b):
        changes = RatingChange.objects.filter(user=player, ladder=Ladder.TWO)
        wins = {game.pk: int(changes.get(game=game).place == 1) for game in (public, hidden)}
        for viewer in (client, logged_in(c)):
            numbers, day = row_of(viewer, player)
            assert numbers == ["1", str(wins[public.pk])] and "1 Mar 2026" in day
        for viewer in (logged_in(a), logged_in(b)):
            numbers, day = row_of(viewer, player)
            assert numbers == ["2", str(wins[public.pk] + wins[hidden.pk])] and "5 Mar 2026" in day
