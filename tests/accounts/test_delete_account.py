"""Deleting an account: nothing personal stays, finished games keep the seat as "deleted player"."""

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse

from accounts.deletion import AccountInUse, delete_account
from accounts.models import User, Vacation
from games.models import Game
from games.play import lifecycle
from games.play.errors import NotAllowed
from tests.support.helpers import logged_in, play, user_at

pytestmark = pytest.mark.django_db


def finished_game(start_game):
    game = start_game(2, short_game=True)
    play(game)
    game.refresh_from_db()
    return game


def test_deleting_keeps_the_row_but_nothing_personal(start_game, password):
    game = finished_game(start_game)
    user = user_at(game, 0)
    Vacation.objects.create(user=user, start="2099-01-01", end="2099-01-02")
    delete_account(user)
    user = User.objects.get(pk=user.pk)
    assert user.username == f"deleted-{user.pk}"
    assert (user.email, user.first_name, user.last_name) == ("", "", "")
    assert not user.has_usable_password() and not user.check_password(password)
    assert not user.is_active and user.deleted_at is not None
    assert not EmailAddress.objects.filter(user=user).exists()
    assert not Vacation.objects.filter(user=user).exists()
    assert game.seats.filter(user=user).exists()


def test_a_deleted_player_shows_as_such_in_their_finished_games(client, start_game):
    game = finished_game(start_game)
    user, opponent = user_at(game, 0), user_at(game, 1)
    name = user.username
    delete_account(user)
    page = client.get(game.get_absolute_url()).content.decode()
    assert "deleted player" in page and opponent.username in page
    assert name not in page and f"deleted-{user.pk}" not in page
    lobby = client.get(reverse("lobby")).content.decode()
    assert "deleted player" in lobby and f"deleted-{user.pk}" not in lobby


def test_a_deleted_player_cannot_log_in_and_has_no_profile(client, make_user, password):
    user = make_user("felipe")
    delete_account(user)
    client.post(reverse("account_login"), {"login": "felipe", "password": password})
    client.post(reverse("account_login"), {"login": "felipe@example.org", "password": password})
    assert not client.get(reverse("lobby")).context["user"].is_authenticated
    assert client.get(reverse("profile", args=[f"deleted-{user.pk}"])).status_code == 404


def test_the_name_and_address_are_free_again(client, make_user, password):
    delete_account(make_user("felipe"))
    client.post(
        reverse("account_signup"),
        {"username": "felipe", "email": "felipe@example.org", "password1": password, "password2": password},
    )
    assert User.objects.filter(username="felipe", deleted_at__isnull=True).exists()


def test_deleting_is_refused_while_playing_a_running_game(start_game):
    game = start_game(3)
    user = user_at(game, 1)
    with pytest.raises(AccountInUse, match=f"You are playing in game {game.pk}"):
        delete_account(user)
    user.refresh_from_db()
    assert user.is_active and user.deleted_at is None and EmailAddress.objects.filter(user=user).exists()


def test_deleting_leaves_waiting_games_and_cancels_those_created(make_user):
    user, other = make_user(), make_user()
    created = lifecycle.create_game(user, num_players=3)
    joined = lifecycle.create_game(other, num_players=3)
    lifecycle.join_game(joined, user=user)
    delete_account(user)
    created.refresh_from_db()
    assert created.status == Game.Status.CANCELLED
    assert not joined.seats.filter(user=user).exists()


def test_deleting_through_the_site_needs_the_password_and_logs_out(make_user, password):
    user = make_user("felipe")
    client = logged_in(user)
    refused = client.post(reverse("delete_account"), {"password": "not-my-password"})
    assert refused.status_code == 400 and "That is not your password" in refused.content.decode()
    assert User.objects.get(pk=user.pk).deleted_at is None
    response = client.post(reverse("delete_account"), {"password": password}, follow=True)
    assert "Your account is deleted" in response.content.decode()
    assert not response.context["user"].is_authenticated
    assert User.objects.get(pk=user.pk).deleted_at is not None


def test_deletion_ends_the_players_other_sessions(make_user, password):
    user = make_user("felipe")
    elsewhere = logged_in(user)
    logged_in(user).post(reverse("delete_account"), {"password": password})
    assert not elsewhere.get(reverse("lobby")).context["user"].is_authenticated


def test_the_site_says_why_deleting_waits_for_running_games(start_game, password):
    game = start_game(2)
    user = user_at(game, 0)
    client = logged_in(user)
    page = client.get(reverse("delete_account")).content.decode()
    assert f"game {game.pk}" in page and 'name="password"' not in page
    refused = client.post(reverse("delete_account"), {"password": password})
    assert refused.status_code == 400
    assert User.objects.get(pk=user.pk).deleted_at is None


@pytest.mark.parametrize(
    ("language", "said"),
    [("fr", "Parties en cours où vous jouez\u00a0: <a href=\"/games/{n}/\">partie {n}</a>"),
     ("it", "Partite in corso in cui giochi: <a href=\"/games/{n}/\">partita {n}</a>")],
)
def test_the_running_games_that_wait_the_deletion_are_named_in_a_sentence_that_reads(start_game, language, said):
    """Not "Vous jouez dans partie 5" nor "Stai giocando in partita 5"."""
    game = start_game(2)
    user = user_at(game, 0)
    user.language = language
    user.save(update_fields=["language"])
    page = logged_in(user).get(reverse("delete_account")).content.decode()
    assert said.format(n=game.pk) in page


def test_a_deleted_account_cannot_take_a_seat(make_user):
    # The player's own page, loaded before the deletion, still posts the join.
    user, creator = make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    delete_account(user)
    with pytest.raises(NotAllowed, match="This account has been deleted"):
        lifecycle.join_game(game, user=user)
    assert not game.seats.filter(user=user).exists()


def test_a_deleted_account_cannot_create_a_game(make_user):
    user = make_user()
    delete_account(user)
    with pytest.raises(NotAllowed, match="This account has been deleted"):
        lifecycle.create_game(user, num_players=3)
    assert not Game.objects.filter(creator=user).exists()


def test_deleting_blanks_the_players_table_talk_and_stored_mails(client, start_game):
    from games.models import ChatMessage, Notification
    from games.play import chat

    game = start_game(2, short_game=True)
    user, opponent = user_at(game, 0), user_at(game, 1)
    name = user.username
    mine = chat.post_message(game, game.seats.get(user=user), "my secret plan for Castilla")
    theirs = chat.post_message(game, game.seats.get(user=opponent), "good luck")
    play(game)
    game.refresh_from_db()

    versions = iter(range(9000, 9010))

    def mail(to, status, **fields):
        return Notification.objects.create(
            game=game, version=next(versions), kind="your_move", status=status, subject=f"Hello {to.username}",
            text=f"Hello {to.username}, it is your move.", html=f"<p>Hello {to.username}</p>", **fields
        )

    sent = mail(user, Notification.Status.SENT, user=user)
    waiting = mail(user, Notification.Status.PENDING, user=user)
    # A confirmation of the player's address kept to be tried again, addressed by address alone.
    kept = mail(user, Notification.Status.FAILED, user=None, address=user.email.upper())
    other = mail(opponent, Notification.Status.PENDING, user=opponent)
    delete_account(user)

    assert ChatMessage.objects.get(pk=mine.pk).text == ""
    assert ChatMessage.objects.get(pk=theirs.pk).text == "good luck"
    page = client.get(game.get_absolute_url()).content.decode()
    assert "my secret plan" not in page and name not in page
    for row in (sent, waiting, kept):
        row.refresh_from_db()
        assert (row.subject, row.text, row.html, row.address) == ("", "", "", "")
    # The mails the game itself made for the player (its start, its end...) too.
    assert not Notification.objects.filter(user=user).exclude(subject="", text="", html="").exists()
    assert sent.status == Notification.Status.SENT
    assert waiting.status == kept.status == Notification.Status.DROPPED
    other.refresh_from_db()
    assert other.subject == f"Hello {opponent.username}" and other.status == Notification.Status.PENDING
    # The game itself stays: its moves and its result.
    assert game.moves.exists() and game.status == Game.Status.FINISHED
