"""Usernames that could pass for another player's, or for an address, are refused: at sign-up
and when staff rename a player in the admin (accounts/usernames.py)."""

import pytest
from django.urls import reverse

from accounts.models import User
from accounts.usernames import skeleton
from tests.support.helpers import logged_in

pytestmark = pytest.mark.django_db


def sign_up(client, password, username, email="newcomer@example.org"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": password, "password2": password},
    )


def refused(response, username):
    assert response.status_code == 200, username
    assert not User.objects.filter(email="newcomer@example.org").exists(), username
    return response.context["form"].errors["username"]


INVISIBLE = "A username may not contain an invisible character: it would read as another name."


@pytest.mark.parametrize(
    "username, message",
    [
        # A Cyrillic а, and then a capital I for the l.
        ("\u0430lice", "This username looks too much like “alice”, another player's. Please choose another."),
        ("aIice", "This username looks too much like “alice”, another player's. Please choose another."),
        ("\u0391LICE", "This username looks too much like “alice”, another player's. Please choose another."),
        # Fullwidth letters, which NFKC makes plain: the very name, taken.
        ("\uff41\uff4c\uff49\uff43\uff45", "A user with that username already exists."),
        # Alice's address, and any other.
        ("alice@example.org", "A username may not contain “@”: it would read as an email address."),
        ("support@elgrande.example", "A username may not contain “@”: it would read as an email address."),
        # Hangul fillers: letters to Unicode, printed as nothing. "alice" with one after it reads
        # as alice's name; a name of fillers alone as no name.
        ("alice\u3164", INVISIBLE),
        ("alice\u115f", INVISIBLE),
        ("al\u1160ice", INVISIBLE),
        ("\uffa0alice", INVISIBLE),
        ("\u3164\u3164\u3164", INVISIBLE),
    ],
)
def test_sign_up_refuses_a_name_that_could_pass_for_another(client, make_user, password, username, message):
    make_user("alice")  # alice@example.org
    assert refused(sign_up(client, password, username), username) == [message]


def test_a_name_is_stored_in_nfkc_form(client, password):
    sign_up(client, password, "\uff42\uff4f\uff42\u2168")  # fullwidth "bob", then the numeral Ⅸ
    user = User.objects.get(email="newcomer@example.org")
    assert user.username == "bobIX"


@pytest.mark.parametrize("username", ["alicia", "alice2", "Élise", "\u0430\u043b\u0438\u0441\u0430"])
def test_names_that_only_resemble_another_are_taken(client, make_user, password, username):
    make_user("alice")
    response = sign_up(client, password, username)
    assert response.status_code == 302, response.context and response.context["form"].errors
    assert User.objects.get(email="newcomer@example.org").username == username


def test_a_name_like_one_taken_before_the_check_existed_is_refused(client, password):
    # Players from before the skeletons were kept get theirs from the migration; a rename keeps it.
    user = User.objects.create_user("old-timer", "old@example.org", password)
    User.objects.filter(pk=user.pk).update(username_skeleton="")
    user.username = "0ld-timer"
    user.save(update_fields=["username"])
    assert User.objects.get(pk=user.pk).username_skeleton == skeleton("old-timer")
    assert refused(sign_up(client, password, "old-timer"), "old-timer") == [
        "This username looks too much like “0ld-timer”, another player's. Please choose another."
    ]


def test_the_admin_holds_a_rename_to_the_same_rules(make_user, password):
    admin = User.objects.create_superuser("admin", "admin@example.org", password)
    make_user("alice")
    player = make_user("felipe")
    client = logged_in(admin)
    change = reverse("admin:accounts_user_change", args=[player.pk])
    form = client.get(change).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update(date_joined_0="2026-01-01", date_joined_1="00:00:00", groups=[], user_permissions=[])
    for username, message in [
        ("\u0430lice", "This username looks too much like “alice”, another player's. Please choose another."),
        ("alice@example.org", "A username may not contain “@”: it would read as an email address."),
    ]:
        response = client.post(change, {**data, "username": username})
        assert response.status_code == 200
        assert response.context["adminform"].form.errors["username"] == [message]
        assert User.objects.get(pk=player.pk).username == "felipe"
    # Saving the player with their name unchanged is no rename; a fair new name is taken.
    response = client.post(change, {**data, "username": "felipe2"})
    assert response.status_code == 302
    assert User.objects.get(pk=player.pk).username_skeleton == skeleton("felipe2")


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_the_players_before_it_their_skeletons(password):
    from django.core.management import call_command

    for name in ("0ld-timer", "ΑLICE", "bob"):
        User.objects.create_user(name, f"{skeleton(name)}@example.org", password)
    call_command("migrate", "accounts", "0005", verbosity=0)
    call_command("migrate", "accounts", verbosity=0)
    stored = set(User.objects.values_list("username", "username_skeleton", "username_lower_skeleton"))
    # TR39 spells an m as "rn", which it looks like.
    assert stored == {("0ld-timer", "old-tirner", "old-tirner"), ("ΑLICE", "allce", "alice"), ("bob", "bob", "bob")}
