"""The game-over mail: the final ranking as the rules rank it (equal scores share a place), every
player's rating change on each ladder, and the replay link."""

import pytest
from django.urls import reverse

from games.engine import GameState
from games.mail import composing
from games.models import Notification
from ratings.models import RatingChange
from ratings.rating import shown
from tests.support.helpers import logged_in, play
from tests.support.rated_games import open_rated

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(make_user, django_capture_on_commit_callbacks, mailoutbox):
    """A rated 3-player game played to its end, its mails sent: (game, users by seat)."""
    users = [make_user() for _ in range(3)]
    game = open_rated(users)
    with django_capture_on_commit_callbacks(execute=True):
        play(game)
    game.refresh_from_db()
    return game, {seat.index: seat.user for seat in game.seats.select_related("user")}


def test_the_game_over_mail_ranks_the_players_and_tells_every_rating_change(finished, mailoutbox):
    game, users = finished
    mails = {message.to[0]: message for message in mailoutbox if "is over" in message.subject}
    assert sorted(mails) == sorted(user.email for user in users.values())
    changes = RatingChange.objects.filter(game=game).select_related("user")
    assert changes.count() == 6, "two ladders for each of three players"
    places = {change.user.username: change.place for change in changes}
    for user in users.values():
        message = mails[user.email]
        text, html = message.body, message.alternatives[0][0]
        ranking = text.split("The final ranking:")[1].split("Rating changes:")[0]
        # Best first, each at his place.
        listed = [line.split(". ", 1) for line in ranking.strip().splitlines()]
        assert [int(place) for place, _ in listed] == sorted(places.values())
        for place, rest in listed:
            name = rest.split(" ")[0]
            assert places[name] == int(place)
        ratings = text.split("Rating changes:")[1].split("See the whole game")[0]
        for change in changes:
            before = shown(change.mu_before, change.sigma_before)
            after = shown(change.mu_after, change.sigma_after)
            ladder = "All games" if change.ladder == 0 else "3 players"
            line = next(line for line in ratings.splitlines() if line.strip().startswith(change.user.username))
            assert f"{ladder}: {before} → {after} ({after - before:+d})" in line
            assert f"{ladder}: {before} → <strong>{after}</strong> ({after - before:+d})" in html
        assert f"{user.username} (you)" in ratings
        replay = f"https://elgrande.example.org/games/{game.pk}/?at=0"
        assert replay in text and f'href="{replay}"' in html
    # The link opens the replay at the setup.
    response = logged_in(users[0]).get(reverse("game", args=[game.pk]), {"at": 0})
    assert response.status_code == 200


def test_equal_scores_share_a_place_and_the_next_place_is_skipped(finished):
    game, users = finished
    state = GameState.from_json(game.state)
    state.scores = [40, 40, 31]
    seats = {seat.index: seat for seat in game.seats.select_related("user")}
    subject, text, html = composing.game_mail(
        "game_finished", user=users[2], game=game, state=state, seat=2, seats=seats
    )
    assert subject == f"Game {game.pk} is over: you placed 3rd"
    ranking = text.split("The final ranking:")[1].split("Rating changes:")[0].strip().splitlines()
    assert [line.split(".")[0].strip() for line in ranking] == ["1", "1", "3"]
    assert ranking[0].strip().startswith(f"1. {users[0].username}") and "40 points" in ranking[0]
    assert ranking[1].strip().startswith(f"1. {users[1].username}") and "40 points" in ranking[1]
    assert ranking[2].strip().startswith(f"3. {users[2].username} (you)") and "31 points" in ranking[2]
    assert '<li value="1">' in html and html.count('<li value="1">') == 2 and '<li value="3">' in html


def test_an_unrated_game_over_mail_has_no_rating_section(started, committed, mailoutbox):
    game, users = started(2, short_game=True)
    committed(play, game)
    mails = [message for message in mailoutbox if "is over" in message.subject]
    assert len(mails) == 2
    for message in mails:
        assert "Rating changes" not in message.body
        assert f"/games/{game.pk}/?at=0" in message.body
    assert Notification.objects.filter(game=game, kind="game_finished").count() == 2
