"""Inviting to a private game by mail, from the game page: by username or by email address, only by
its creator while it is open; the mail carries the invitation link."""

from urllib.parse import quote, urlsplit

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from games.mail import invitations, outbox
from games.models import Game, MailOptOut, Notification
from games.play import lifecycle
from tests.support.helpers import logged_in
from tests.support.mail_links import links

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_game(make_user):
    creator = make_user("carmen")
    return lifecycle.create_game(creator, num_players=3, private=True), creator


def invite(client, game, who):
    return client.post(reverse("invite", args=[game.pk]), {"who": who})


def test_the_creator_sees_the_invitation_form_on_a_private_open_game(private_game, make_user):
    game, creator = private_game
    form_action = f'action="{reverse("invite", args=[game.pk])}"'
    assert form_action in logged_in(creator).get(reverse("game", args=[game.pk])).content.decode()
    guest = make_user()
    lifecycle.join_game(game, user=guest, token=game.invite_token)
    assert form_action not in logged_in(guest).get(reverse("game", args=[game.pk])).content.decode()


def test_inviting_a_player_by_username_mails_the_link_that_lets_them_join(private_game, make_user, mailoutbox):
    game, creator = private_game
    diego = make_user("diego")
    response = invite(logged_in(creator), game, "Diego")
    assert response.status_code == 302
    (message,) = mailoutbox
    assert message.to == [diego.email]
    # Not the inviter's name, which may be made to look like an address or a site.
    assert message.subject == "[El Grande] An invitation to a game of El Grande"
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
    assert "Invitation sent to DIEGO@example.org, unless" in page
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

    other = lifecycle.create_game(creator, num_players=2, private=True)
    response = invite(client, other, "Friend@Example.net")
    assert response.status_code == 302
    assert len(mailoutbox) == 1


def test_inviting_twice_the_same_person_sends_one_mail(private_game, make_user, mailoutbox):
    game, creator = private_game
    make_user("diego")
    client = logged_in(creator)
    invite(client, game, "diego")
    response = invite(client, game, "diego")
    assert len(mailoutbox) == 1
    assert "Invitation sent to diego, unless they were invited" in client.get(response["Location"]).content.decode()


@pytest.mark.parametrize(
    "who, message",
    [
        ("", "Name a player or an email address"),
        ("nobody-here", "There is no player called “nobody-here”, and it is not an email address."),
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
    from games.computer import players as computer

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
    assert response.status_code == 302
    assert mailoutbox == [] and not Notification.objects.exists()


def test_only_the_creator_of_a_private_open_game_may_invite(private_game, make_user, mailoutbox):
    game, creator = private_game
    make_user("diego")
    # A stranger is answered as for a game that does not exist: he may not see this one.
    assert invite(logged_in(make_user()), game, "diego").status_code == 404
    public = lifecycle.create_game(creator, num_players=2)
    assert invite(logged_in(creator), public, "diego").status_code == 403
    Game.objects.filter(pk=game.pk).update(status=Game.Status.CANCELLED)
    assert invite(logged_in(creator), game, "diego").status_code == 403
    anonymous = invite(Client(), game, "diego")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("account_login"))
    assert mailoutbox == []


def test_a_game_sends_a_bounded_number_of_invitations(private_game, monkeypatch, mailoutbox):
    game, creator = private_game
    monkeypatch.setattr(invitations, "INVITATIONS_PER_GAME", 2)
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
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    invite(logged_in(creator), game, "friend@example.net")
    lifecycle.cancel_game(game, user=creator)
    tasks.send_notification(queued[0])
    assert mailoutbox == []
    assert Notification.objects.get(pk=queued[0]).status == Notification.Status.DROPPED


def answer(client, game, who):
    """What the inviter is told, with the invitee as typed taken out: (status, messages)."""
    response = client.post(reverse("invite", args=[game.pk]), {"who": who}, follow=True)
    said = [str(message).replace(who, "WHO") for message in response.context["messages"]]
    return response.redirect_chain, response.status_code, said


def test_inviting_by_username_or_by_address_tells_the_inviter_nothing_of_whose_address_it_is(
    private_game, make_user, mailoutbox
):
    game, creator = private_game
    client = logged_in(creator)
    diego = make_user("diego")
    seated = make_user("seated")
    lifecycle.join_game(game, user=seated, token=game.invite_token)
    quiet = make_user("quiet")
    quiet.notify_invitation = False
    quiet.save()
    MailOptOut.objects.create(address="gone@example.net")
    answers = [
        answer(client, game, "diego"),
        # The same player again, by address: invited before.
        answer(client, game, "diego@example.org"),
        answer(client, game, "someone@example.net"),
        answer(client, game, "seated"),
        answer(client, game, "seated@example.org"),
        answer(client, game, "quiet"),
        answer(client, game, "quiet@example.org"),
        answer(client, game, "gone@example.net"),
    ]
    assert answers[0][:2] == ([(reverse("game", args=[game.pk]), 302)], 200) and answers[0][2] == [
        "Invitation sent to WHO, unless they were invited to this game before, have a seat in it, or do not "
        "take invitations by mail."
    ]
    assert all(each == answers[0] for each in answers), answers
    assert sorted(m.to[0] for m in mailoutbox) == [diego.email, "someone@example.net"]


def test_only_a_confirmed_account_invites_by_address(make_user, mailoutbox):
    creator = make_user("carmen", verified=False)
    game = lifecycle.create_game(creator, num_players=3, private=True)
    make_user("diego")
    client = logged_in(creator)
    for who in ("friend@example.net", "diego@example.org"):
        response = invite(client, game, who)
        assert response.status_code == 403
        assert "Confirm your email address before you invite by address" in response.content.decode()
    assert mailoutbox == [] and not Notification.objects.exists()
    # By username it mails the player's own, confirmed, address.
    assert invite(client, game, "diego").status_code == 302
    assert [m.to for m in mailoutbox] == [["diego@example.org"]]


def test_an_account_sends_a_bounded_number_of_invitations_a_day(private_game, settings, mailoutbox):
    from datetime import timedelta

    from django.utils import timezone

    game, creator = private_game
    other = lifecycle.create_game(creator, num_players=2, private=True)
    settings.INVITATIONS_PER_DAY = 2
    client = logged_in(creator)
    assert invite(client, game, "friend1@example.net").status_code == 302
    assert invite(client, other, "friend2@example.net").status_code == 302
    refused = invite(client, other, "friend3@example.net")
    assert refused.status_code == 400 and "at most 2 invitations a day" in refused.content.decode()
    assert len(mailoutbox) == 2
    # A day later, it may again.
    Notification.objects.update(created_at=timezone.now() - timedelta(days=1, seconds=1))
    assert invite(client, other, "friend3@example.net").status_code == 302
    assert len(mailoutbox) == 3


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="invitations sent at once need PostgreSQL's row locks")
def test_invitations_sent_at_once_stay_within_the_games_bound(make_user, monkeypatch, settings):
    from tests.support.games import race

    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    settings.INVITATIONS_PER_DAY = 1000
    creator = make_user("carmen")
    game = lifecycle.create_game(creator, num_players=3, private=True)

    outcomes = race(
        [lambda n=n: invitations.invite(game, creator, f"friend{n}@example.net") for n in range(45)]
    )

    sent = [outcome for outcome in outcomes if isinstance(outcome, str)]
    refused = [outcome for outcome in outcomes if not isinstance(outcome, str)]
    assert len(sent) == invitations.INVITATIONS_PER_GAME == 30
    assert all(isinstance(error, ValueError) and "at most 30 invitations" in str(error) for error in refused), refused
    assert Notification.objects.filter(game=game, kind="invitation").count() == 30
    assert len(queued) == 30


# ---- an invitation to someone without an account: sign-up, confirmation, back to the game -----------


def sign_up_from_the_invitation(make_user, mailoutbox, password):
    """carmen invites an address without an account; its owner follows the link, signs up from the
    game page and gets the confirmation mail. Returns (game, the invitee's client, the mail's link
    to confirm, the invitation's path)."""
    creator_game = lifecycle.create_game(make_user("carmen"), num_players=2, private=True)
    invite(logged_in(creator_game.creator), creator_game, "friend@example.net")
    (invitation,) = mailoutbox
    invitation_path = urlsplit(next(link for link in links(invitation.body) if "/invitation/" in link)).path
    invitee = Client()
    assert invitee.get(invitation_path)["Location"] == reverse("game", args=[creator_game.pk])
    page = invitee.get(reverse("game", args=[creator_game.pk])).content.decode()
    signup = f'{reverse("account_signup")}?next={invitation_path}'
    assert f'href="{signup}"' in page
    response = invitee.post(
        signup,
        {"username": "amiga", "email": "friend@example.net", "password1": password, "password2": password,
         "next": invitation_path},
    )
    # Sign-up ends on "check your mail", not logged in.
    assert response["Location"] == reverse("account_email_verification_sent")
    assert "_auth_user_id" not in invitee.session
    confirmation = mailoutbox[-1]
    assert confirmation.to == ["friend@example.net"]
    (link,) = [link for link in links(confirmation.body) if "/accounts/confirm-email/" in link]
    return creator_game, invitee, link, invitation_path


def test_the_invitation_to_an_address_without_account_speaks_of_no_settings(private_game, make_user, mailoutbox):
    game, creator = private_game
    invite(logged_in(creator), game, "friend@example.net")
    (message,) = mailoutbox
    (html, _), = message.alternatives
    for body in (message.body, html):
        assert "your settings" not in body and "mail settings" not in body
        assert "invited this address to a game" in body and "No more invitations to this address" in body
        assert "New to the site?" in body
    # A member's invitation still names the setting it comes by, and says nothing of signing up.
    make_user("diego")
    invite(logged_in(creator), game, "diego")
    member_mail = mailoutbox[-1]
    assert "your settings ask for" in member_mail.body and "New to the site?" not in member_mail.body


def test_the_invitee_signs_up_and_the_confirmation_brings_them_back_to_the_game_to_join(
    make_user, mailoutbox, password
):
    game, invitee, link, invitation_path = sign_up_from_the_invitation(make_user, mailoutbox, password)
    confirm = urlsplit(link)
    assert confirm.query == f"next={quote(invitation_path, safe='')}"
    page = invitee.get(f"{confirm.path}?{confirm.query}").content.decode()
    assert f'name="next" value="{invitation_path}"' in page
    # The confirmation logs in (the same browser as the sign-up) and goes back to the game: the
    # pending log-in remembers where, even from a post that does not say it.
    response = invitee.post(confirm.path, follow=True)
    assert response.redirect_chain[0][0] == invitation_path
    assert response.request["PATH_INFO"] == reverse("game", args=[game.pk])
    assert invitee.session["_auth_user_id"]
    assert f'action="{reverse("join", args=[game.pk])}"' in response.content.decode()
    invitee.post(reverse("join", args=[game.pk]))
    game.refresh_from_db()
    assert game.seats.filter(user__username="amiga").exists() and game.status == Game.Status.ACTIVE


def test_confirmed_in_another_browser_the_link_still_leads_to_the_game(make_user, mailoutbox, password):
    game, _, link, invitation_path = sign_up_from_the_invitation(make_user, mailoutbox, password)
    elsewhere = Client()
    confirm = urlsplit(link)
    response = elsewhere.post(confirm.path, {"next": invitation_path}, follow=True)
    # Not logged in there (allauth logs in only the browser that signed up), but the private game
    # opens, through its invitation link, with the way to log in and join.
    assert response.redirect_chain[0][0] == invitation_path
    assert response.status_code == 200 and "_auth_user_id" not in elsewhere.session
    page = response.content.decode()
    assert f'?next={reverse("game", args=[game.pk])}"' in page
    login = elsewhere.post(
        reverse("account_login"), {"login": "amiga", "password": password, "next": reverse("game", args=[game.pk])}
    )
    assert login["Location"] == reverse("game", args=[game.pk])
    elsewhere.post(reverse("join", args=[game.pk]))
    assert game.seats.filter(user__username="amiga").exists()


def test_a_sign_up_without_next_confirms_as_before_and_an_outside_next_is_dropped(client, password, mailoutbox):
    client.post(
        reverse("account_signup"),
        {"username": "isabel", "email": "isabel@example.org", "password1": password, "password2": password,
         "next": "https://evil.example/"},
    )
    (link,) = [link for link in links(mailoutbox[-1].body) if "/accounts/confirm-email/" in link]
    assert urlsplit(link).query == ""
    response = client.post(urlsplit(link).path)
    assert response["Location"] == reverse("lobby")
