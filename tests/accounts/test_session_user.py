"""The session's user, read by the site's backend (accounts/backends.py) with a SELECT written out:
the same user as Django's ORM would give, the same refusals, sessions of logins made before it
still logged in, and a wrong password checked once."""

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.backends import AuthenticationBackend
from accounts.models import User

pytestmark = pytest.mark.django_db

ALLAUTHS = "allauth.account.auth_backends.AuthenticationBackend"


def reader(client):
    return client.get(reverse("lobby")).context["user"]


def test_the_user_read_is_the_one_the_orm_reads(make_user):
    user = make_user()
    user.first_name, user.language, user.time_zone = "Isabel", "fr", "Europe/Madrid"
    user.save()
    with CaptureQueriesContext(connection) as queries:
        read = AuthenticationBackend().get_user(user.pk)
    assert len(queries) == 1
    orm = User.objects.get(pk=user.pk)
    assert type(read) is User and read.pk == orm.pk
    fields = [field.attname for field in User._meta.concrete_fields]
    assert [getattr(read, name) for name in fields] == [getattr(orm, name) for name in fields]
    assert read.get_session_auth_hash() == orm.get_session_auth_hash() and read.zone == orm.zone
    assert not read._state.adding and read._state.db == "default"


def test_an_unknown_or_inactive_user_is_nobody(make_user):
    user = make_user()
    assert AuthenticationBackend().get_user(user.pk + 1000) is None
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert AuthenticationBackend().get_user(user.pk) is None


def test_a_login_is_recorded_with_the_sites_backend_and_reads_the_user(client, make_user, password):
    user = make_user()
    client.post(reverse("account_login"), {"login": user.username, "password": password})
    assert client.session[BACKEND_SESSION_KEY] == "accounts.backends.AuthenticationBackend"
    assert reader(client) == user


def test_a_session_of_a_login_made_before_stays_logged_in(client, make_user):
    user = make_user()
    client.force_login(user, backend=ALLAUTHS)
    assert client.session[BACKEND_SESSION_KEY] == ALLAUTHS
    assert reader(client) == user


def test_a_deactivated_players_session_is_logged_out(client, make_user):
    user = make_user()
    client.force_login(user, backend="accounts.backends.AuthenticationBackend")
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert reader(client).is_anonymous


def test_a_changed_password_logs_out_the_other_sessions(client, make_user):
    user = make_user()
    client.force_login(user, backend="accounts.backends.AuthenticationBackend")
    user.set_password("another one entirely")
    user.save()
    assert reader(client).is_anonymous


def test_a_wrong_password_is_checked_once(client, make_user, monkeypatch):
    user = make_user()
    checked = []
    check = User.check_password
    monkeypatch.setattr(User, "check_password", lambda self, raw: checked.append(raw) or check(self, raw))
    response = client.post(reverse("account_login"), {"login": user.username, "password": "not it"})
    assert response.status_code == 200 and isinstance(reader(client), AnonymousUser)
    assert checked == ["not it"]


def test_an_id_past_the_column_is_nobody_as_the_orm_has_it(make_user):
    # The SELECT written out would fail there (SQLite cannot take the number, PostgreSQL refuses it).
    from django.contrib.auth.backends import ModelBackend

    make_user()
    for user_id in (2**63, -(2**63) - 1):
        assert ModelBackend().get_user(user_id) is None
        assert AuthenticationBackend().get_user(user_id) is None


def test_a_user_read_along_answers_without_a_select_of_its_own_and_only_within(make_user):
    from accounts.backends import read_along, users_read_along

    user, other = make_user(), make_user("other")
    whole = User.objects.get(pk=user.pk)
    read_along([whole])  # outside: offered to nobody
    with CaptureQueriesContext(connection) as queries:
        assert AuthenticationBackend().get_user(user.pk) == user
    assert len(queries) == 1
    with users_read_along():
        read_along([whole])
        with CaptureQueriesContext(connection) as queries:
            assert AuthenticationBackend().get_user(user.pk) is whole
            # Another user than those read along is read as ever.
            assert AuthenticationBackend().get_user(other.pk) == other
        assert len(queries) == 1
    with CaptureQueriesContext(connection) as queries:
        assert AuthenticationBackend().get_user(user.pk) == user
    assert len(queries) == 1


def test_an_inactive_user_read_along_is_nobody(make_user):
    from accounts.backends import read_along, users_read_along

    user = make_user()
    User.objects.filter(pk=user.pk).update(is_active=False)
    with users_read_along():
        read_along([User.objects.get(pk=user.pk)])
        assert AuthenticationBackend().get_user(user.pk) is None
