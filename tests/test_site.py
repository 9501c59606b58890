from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import User


def test_home_page_says_what_the_site_is(client, db):
    response = client.get("/")
    assert response.status_code == 200
    assert b"El Grande" in response.content
    assert b"vendor/htmx.min.js" in response.content


def test_migrations_match_the_models(db):
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)


def test_sign_up_creates_user_and_logs_in(client, db, password):
    response = client.post(
        reverse("signup"),
        {"username": "isabel", "email": "isabel@example.org",
         "password1": password, "password2": password},
    )
    assert response.status_code == 302
    user = User.objects.get(username="isabel")
    assert user.email == "isabel@example.org"
    assert client.get("/").context["user"] == user


def test_sign_up_requires_an_email(client, db, password):
    response = client.post(
        reverse("signup"),
        {"username": "isabel", "email": "", "password1": password, "password2": password},
    )
    assert response.status_code == 200
    assert not User.objects.filter(username="isabel").exists()


def test_log_in_and_log_out(client, db, password):
    User.objects.create_user("felipe", "felipe@example.org", password)
    response = client.post(reverse("login"), {"username": "felipe", "password": password})
    assert response.status_code == 302
    assert client.get("/").context["user"].username == "felipe"
    client.post(reverse("logout"))
    assert not client.get("/").context["user"].is_authenticated


@pytest.mark.django_db
def test_the_user_model_is_the_custom_one():
    from django.contrib.auth import get_user_model

    assert get_user_model() is User
