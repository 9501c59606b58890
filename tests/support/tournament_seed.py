"""Tournaments to look at, for the browser test (run in the live site's process environment:
`manage.py shell -c "from tests.support.tournament_seed import seed; seed()"`): a finished Swiss
tournament of seven (tests/tournaments/factory.py) and one open for sign-up. Every player's
password is PASSWORD; "alba" entered both."""

from datetime import timedelta

from allauth.account.models import EmailAddress
from django.utils import timezone

from accounts.models import User
from tests.support.browser import PASSWORD
from tests.support.tournament_factory import played_tournament
from tournaments import services


def player(name=None):
    user = User.objects.create_user(name, f"{name}@example.org", PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    return user


def seed():
    played, users = played_tournament(player, names=[
        "alba", "bruno", "chiara", "duarte", "elodie", "fabrizio_de_la_vega_y_montoya", "gaspard"])
    upcoming = services.create_tournament(
        User.objects.get(username="organiser"), name="Winter Swiss", table_size=4, rounds=3,
        signup_closes_at=timezone.now() + timedelta(days=5),
        description="Sign up by Friday; the first round is seated by rating.",
    )
    for user in users[:5]:
        services.sign_up(upcoming, user)
    return played, upcoming
