"""The finished game's page shows each player's rating change; the profile shows his rating on
each ladder with its history as an SVG chart, and the change beside each finished game."""

import re

import pytest
from django.urls import reverse

from ratings.models import Ladder, Rating, RatingChange
from ratings.rating import shown
from tests.support.helpers import HTMX, logged_in, play
from tests.support.rated_games import open_rated, play_rated

pytestmark = pytest.mark.django_db


def section(text, element_id):
    match = re.search(rf'<(section|div) [^>]*id="{element_id}"[^>]*>(.*?)</\1>', text, re.S)
    return match.group(2) if match else None


def test_the_finished_game_shows_each_players_rating_change_on_both_ladders(client, make_user):
    players = [make_user() for _ in range(3)]
    game = play_rated(players)
    changes = section(client.get(game.get_absolute_url()).content.decode(), "rating-changes")
    assert "<th>Place, player</th><th>All games</th><th>3 players</th>" in changes
    rows = re.findall(r"<tr>\s*<td>(\d)\. (.*?)</tr>", changes, re.S)
    assert [int(place) for place, _ in rows] == sorted(place for place, _, _ in game.standings)
    for place, row in rows:
        player = next(user for user in players if f">{user.username}</a>" in row)
        for ladder in (Ladder.ALL, Ladder.THREE):
            change = RatingChange.objects.get(game=game, user=player, ladder=ladder)
            before, after = shown(change.mu_before, change.sigma_before), shown(change.mu_after, change.sigma_after)
            assert f"{before} → <strong>{after}</strong></span> " in row
            assert f"({after - before:+d})" in row
        assert int(place) == change.place
        # Each change names its ladder itself, for phones, where the table's heading is hidden.
        assert re.findall(r'<td class="change" data-label="([^"]+)">', row) == ["All games", "3 players"]


def test_the_changes_arrive_with_the_play_area_the_page_fetches_when_the_game_ends(make_user):
    players = [make_user() for _ in range(2)]
    game = play_rated(players)
    text = logged_in(players[0]).get(reverse("game_partial", args=[game.pk, "play"]), **HTMX).content.decode()
    assert section(text, "rating-changes") is not None


def test_an_unrated_or_running_game_shows_no_rating_change(client, start_game, make_user):
    unrated = start_game(2, short_game=True)
    play(unrated)
    running = open_rated([make_user(), make_user()])
    for game in (unrated, running):
        assert 'id="rating-changes"' not in client.get(game.get_absolute_url()).content.decode()


def test_the_profile_draws_each_ladders_rating_history_through_every_game(client, make_user):
    players = [make_user() for _ in range(3)]
    for group in (players[:2], players, players[1::-1]):
        play_rated(group)
    text = client.get(players[0].get_absolute_url()).content.decode()
    ratings = section(text, "ratings")
    assert [label for label in re.findall(r"<h3>(.*?)</h3>", ratings)] == ["All games", "2 players", "3 players"]
    for ladder, count in ((Ladder.ALL, 3), (Ladder.TWO, 2), (Ladder.THREE, 1)):
        card = section(text, f"rating-{ladder.value}")
        changes = list(RatingChange.objects.filter(user=players[0], ladder=ladder).order_by("finished_at"))
        values = [shown(changes[0].mu_before, changes[0].sigma_before)]
        values += [shown(change.mu_after, change.sigma_after) for change in changes]
        assert len(values) == count + 1
        assert "<svg" in card and "</svg>" in card
        drawn = re.search(r'points="([^"]+)"', card).group(1).split()
        points = [tuple(map(float, point.split(","))) for point in drawn]
        assert len(points) == count + 1
        xs, ys = [x for x, _ in points], [y for _, y in points]
        assert xs == sorted(xs) and len(set(xs)) == len(xs)
        # Higher ratings are drawn higher (smaller y), the same ones at the same height.
        for (a, b) in zip(range(len(values)), range(1, len(values))):
            assert (values[a] < values[b]) == (ys[a] > ys[b]) and (values[a] == values[b]) == (ys[a] == ys[b])
        titles = re.findall(r"<title>(.*?)</title>", card)
        assert titles[0] == f"Before game 1: {values[0]}"
        for number, (title, change) in enumerate(zip(titles[1:], changes), start=1):
            assert title.startswith(f"Game {number} (")
            assert title.endswith(f"place {change.place}: {values[number]} ({values[number] - values[number - 1]:+d})")
        rating = Rating.objects.get(user=players[0], ladder=ladder)
        assert f"<strong>{shown(rating.mu, rating.sigma)}</strong>" in card
        assert f"{count} game{'s' if count > 1 else ''}" in card


def test_the_chart_draws_only_the_latest_games_and_numbers_them(client, make_user, monkeypatch):
    from ratings import selectors

    monkeypatch.setattr(selectors, "HISTORY_GAMES", 2)
    players = [make_user() for _ in range(2)]
    for _ in range(3):
        play_rated(players)
    card = section(client.get(players[0].get_absolute_url()).content.decode(), "rating-0")
    titles = re.findall(r"<title>(.*?)</title>", card)
    assert [title.split(":")[0].split(" (")[0] for title in titles] == ["Before game 2", "Game 2", "Game 3"]
    assert "after game 1</text>" in card and "after game 3</text>" in card


def test_the_profile_rank_links_to_the_players_row_on_the_ladder(client, make_user):
    players = [make_user() for _ in range(2)]
    play_rated(players)
    for player in players:
        rating = Rating.objects.get(user=player, ladder=Ladder.TWO)
        rank = 1 + Rating.objects.filter(ladder=Ladder.TWO, ordinal__gt=rating.ordinal).count()
        card = section(client.get(player.get_absolute_url()).content.decode(), "rating-2")
        assert f'<a href="/ladders/2/?page=1#player-{player.pk}">rank {rank}</a>' in card
        assert "provisional" in card


def test_a_player_without_rated_games_has_none_on_his_profile(client, make_user):
    player = make_user()
    assert "No rated game yet." in section(client.get(player.get_absolute_url()).content.decode(), "ratings")


def test_the_profiles_finished_games_show_the_rating_change_of_rated_ones(client, make_user, start_game):
    players = [make_user() for _ in range(2)]
    rated = play_rated(players)
    unrated = open_rated(players, rated=False)
    play(unrated)
    text = section(client.get(players[0].get_absolute_url()).content.decode(), "finished")
    change = RatingChange.objects.get(game=rated, user=players[0], ladder=Ladder.ALL)
    before, after = shown(change.mu_before, change.sigma_before), shown(change.mu_after, change.sigma_after)
    rows = {int(pk): row for pk, row in re.findall(r'<a href="/games/(\d+)/">Game \d+</a>(.*?)</tr>', text, re.S)}
    assert f'rating <span class="nowrap">{before} → <strong>{after}</strong></span>' in rows[rated.pk]
    assert "rating" not in rows[unrated.pk].replace("rated", "")


def test_the_profile_with_ratings_takes_a_bounded_number_of_queries(client, make_user, django_assert_max_num_queries):
    """Its ratings: the rows, their ranks, one history per ladder, the finished games' changes."""
    players = [make_user() for _ in range(5)]
    for size in (2, 3, 4, 5, 2, 3):
        play_rated(players[:size])
    with django_assert_max_num_queries(16):
        response = client.get(players[0].get_absolute_url())
    assert response.status_code == 200
    assert len(re.findall(r'class="ladder-card"', response.content.decode())) == 5


def test_a_private_rated_game_shows_on_profiles_only_to_its_players(client, make_user):
    """It counts for both players' ratings, but to anyone else neither profile shows it: no row
    among the finished games, no point of the charts, not in the games and wins counted."""
    a, b, c = make_user(), make_user(), make_user()
    public = play_rated([a, b])
    hidden = play_rated([a, b], private=True)
    assert RatingChange.objects.filter(game=hidden).count() == 4  # both players, both ladders
    for viewer, sees in ((client, False), (logged_in(c), False), (logged_in(a), True), (logged_in(b), True)):
        for player in (a, b):
            text = viewer.get(player.get_absolute_url()).content.decode()
            assert (f"/games/{hidden.pk}/" in text) == sees
            assert f"/games/{public.pk}/" in text
            for ladder in (Ladder.ALL, Ladder.TWO):
                card = section(text, f"rating-{ladder.value}")
                shown_changes = RatingChange.objects.filter(user=player, ladder=ladder)
                if not sees:
                    shown_changes = shown_changes.filter(game=public)
                shown_changes = list(shown_changes.order_by("finished_at", "game_id"))
                titles = re.findall(r"<title>(.*?)</title>", card)
                assert len(titles) == len(shown_changes) + 1
                for number, (title, change) in enumerate(zip(titles[1:], shown_changes), start=1):
                    after = shown(change.mu_after, change.sigma_after)
                    delta = after - shown(change.mu_before, change.sigma_before)
                    assert title.startswith(f"Game {number} (")
                    assert title.endswith(f"place {change.place}: {after} ({delta:+d})")
                games = len(shown_changes)
                wins = sum(change.place == 1 for change in shown_changes)
                assert f"{games} game{'s' if games > 1 else ''}, {wins} win{'' if wins == 1 else 's'}" in card
                # The rating itself counts the private game too: it is the one on the ladder.
                rating = Rating.objects.get(user=player, ladder=ladder)
                assert rating.games == 2 and f"<strong>{shown(rating.mu, rating.sigma)}</strong>" in card


def test_a_ladder_whose_every_game_the_reader_may_not_see_draws_no_empty_chart(client, make_user):
    """A player whose only rated games are private ones: to another reader his cards count no game
    and draw no chart (not an empty frame); his own profile draws it."""
    a, b = make_user(), make_user()
    play_rated([a, b], private=True)
    for viewer, sees in ((client, False), (logged_in(b), True)):
        text = viewer.get(a.get_absolute_url()).content.decode()
        for ladder in (Ladder.ALL, Ladder.TWO):
            card = section(text, f"rating-{ladder.value}")
            assert card is not None
            assert ('class="rating-chart"' in card) == sees, card
            if not sees:
                assert "0 games, 0 wins" in card
                assert "<svg" not in card
