from io import StringIO

import pytest
from django.core.management import call_command


def test_home_page_says_what_the_site_is(client, db):
    response = client.get("/")
    assert response.status_code == 200
    assert b"El Grande" in response.content
    assert b"vendor/htmx.min.js" in response.content


def test_migrations_match_the_models(db):
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)


@pytest.mark.django_db
def test_the_user_model_is_the_custom_one():
    from django.contrib.auth import get_user_model

    from accounts.models import User

    assert get_user_model() is User
