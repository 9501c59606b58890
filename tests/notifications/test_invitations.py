"""Inviting to a private game by mail, from the game page: by username or by email address, only by
its creator while it is open; the mail carries the invitation link."""

from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from games import notifications, services
from games.models import Game, MailOptOut, Notification
from tests.accounts.mail import links
from tests.helpers import logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_game(make_user):
    creator = make_user("carmen")
    return services.create_game(creator, num_players=3, private=True), creator


def invite(client, game, who):
    return client.post(reverse("invite", args=[game.pk]), {"who": who})


def test_the_creator_sees_the_invitation_form_on_a_private_open_game(private_game, make_user):
    game, creator = private_game
    form_action = f'action="{reverse("invite", args=[game.pk])}"'
    assert form_action in logged_in(creator).get(reverse("game", args=[game.pk])).content.decode()
    guest = make_user()
    services.join_game(game, guest, game.invite_token)
    assert form_action not in logged_in(guest).get(reverse("game", args=[game.pk])).content.decode()


def test_inviting_a_player_by_username_mails_the_link_that_lets_them_join(private_game, make_user, mailoutbox):
    game, creator = private_game
    diego = make_user("diego")
    response = invite(logged_in(creator), game, "Diego")
    assert response.status_code == 302
    (message,) = mailoutbox
    assert message.to == [diego.email]
    assert message.subject == f"[El Grande] carmen invites you to game {game.pk}"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    (html, _), = message.alternatives
    link = next(link for link in links(message.body) if "/invitation/" in link)
    assert f'href="{link}"' in html

    client = logged_in(diego)
    client.get(urlsplit(link).path)
    client.post(reverse("join", args=[game.pk]))
    assert game.seats.filter(user=diego).exists()


def test_inviting_by_the_verified_address_of_a_player_mails_that_player(private_game, make_user, mailoutbox):
    game, creator = private_game
    diego = make_user("diego")
    client = logged_in(creator)
    response = invite(client, game, "DIEGO@example.org")
    (notification,) = Notification.objects.filter(kind="invitation")
    assert notification.user == diego
    assert [m.to for m in mailoutbox] == [[diego.email]]
    # The creator is not told whose address it was.
    page = client.get(response["Location"]).content.decode()
    assert "Invitation sent to DIEGO@example.org." in page
    assert "diego" not in page.replace("DIEGO@example.org", "")


def test_inviting_an_address_without_an_account_mails_it_and_its_unsubscribe_stops_further_ones(
    private_game, mailoutbox
):
    game, creator = private_game
    client = logged_in(creator)
    invite(client, game, "friend@example.net")
    (message,) = mailoutbox
    assert message.to == ["friend@example.net"]
    assert "Hello,\n\ncarmen invites you" in message.body
    unsubscribe = message.extra_headers["List-Unsubscribe"].strip("<>")
    Client(enforce_csrf_checks=True).post(urlsplit(unsubscribe).path, {"List-Unsubscribe": "One-Click"})
    assert MailOptOut.objects.filter(address="friend@example.net").exists()

    other = services.create_game(creator, num_players=2, private=True)
    response = invite(client, other, "Friend@Example.net")
    assert response.status_code == 400
    assert "Friend@Example.net does not take invitations by mail" in response.content.decode()
    assert len(mailoutbox) == 1


def test_inviting_twice_the_same_person_sends_one_mail(private_game, make_user, mailoutbox):
    game, creator = private_game
    make_user("diego")
    client = logged_in(creator)
    invite(client, game, "diego")
    response = invite(client, game, "diego")
    assert len(mailoutbox) == 1
    assert "diego was already invited." in client.get(response["Location"]).content.decode()


@pytest.mark.parametrize(
    "who, message",
    [
        ("", "Name a player or an email address"),
        ("nobody-here", "There is no player called “nobody-here”, and it is not an email address."),
        ("carmen", "carmen already has a seat in this game."),
        # Refused before any look-up: PostgreSQL refuses a NUL in a query, and SQLite a
        # case-insensitive look-up of 100,000 characters.
        ("bo\x00b", "Null characters are not allowed."),
        ("x" * 100_000, "Ensure this value has at most 254 characters (it has 100000)."),
    ],
)
def test_a_bad_invitation_is_refused_with_a_400_and_sends_nothing(private_game, mailoutbox, who, message):
    game, creator = private_game
    response = invite(logged_in(creator), game, who)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert mailoutbox == [] and not Notification.objects.exists()


def test_inviting_a_computer_player_says_how_computer_players_take_seats(private_game, mailoutbox):
    from games import computer

    game, creator = private_game
    name = computer.computer_user("greedy").username
    response = invite(logged_in(creator), game, name)
    assert response.status_code == 400
    assert (f"{name} is a computer player: computer players take their seats when a game is created, on the "
            "new-game form.") in response.content.decode()
    assert mailoutbox == [] and not Notification.objects.exists()


def test_a_player_who_switched_invitations_off_is_not_mailed(private_game, make_user, mailoutbox):
    game, creator = private_game
    diego = make_user("diego")
    diego.notify_invitation = False
    diego.save()
    response = invite(logged_in(creator), game, "diego")
    assert response.status_code == 400
    assert "diego does not take invitations by mail" in response.content.decode()
    assert mailoutbox == []


def test_only_the_creator_of_a_private_open_game_may_invite(private_game, make_user, mailoutbox):
    game, creator = private_game
    make_user("diego")
    # A stranger is answered as for a game that does not exist: he may not see this one.
    assert invite(logged_in(make_user()), game, "diego").status_code == 404
    public = services.create_game(creator, num_players=2)
    assert invite(logged_in(creator), public, "diego").status_code == 403
    Game.objects.filter(pk=game.pk).update(status=Game.Status.CANCELLED)
    assert invite(logged_in(creator), game, "diego").status_code == 403
    anonymous = invite(Client(), game, "diego")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("account_login"))
    assert mailoutbox == []


def test_a_game_sends_a_bounded_number_of_invitations(private_game, monkeypatch, mailoutbox):
    game, creator = private_game
    monkeypatch.setattr(notifications, "INVITATIONS_PER_GAME", 2)
    client = logged_in(creator)
    for n in range(2):
        assert invite(client, game, f"friend{n}@example.net").status_code == 302
    response = invite(client, game, "friend9@example.net")
    assert response.status_code == 400 and "at most 2 invitations" in response.content.decode()
    assert len(mailoutbox) == 2


def test_an_invitation_still_queued_when_the_game_is_cancelled_is_not_sent(private_game, monkeypatch, mailoutbox):
    from games import tasks

    game, creator = private_game
    queued = []
    monkeypatch.setattr(tasks, "queue_notification", queued.append)
    invite(logged_in(creator), game, "friend@example.net")
    services.cancel_game(game, creator)
    tasks.send_notification(queued[0])
    assert mailoutbox == []
    assert Notification.objects.get(pk=queued[0]).status == Notification.Status.DROPPED
