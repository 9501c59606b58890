"""Staff see the ratings in the admin without being able to change them; the migration that
brings the ladders rates the rated games finished before it, as the rebuild would."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import User
from ratings.models import Rating, RatingChange
from tests.support.helpers import logged_in
from tests.support.rated_games import play_rated, stored


@pytest.mark.django_db
def test_staff_see_the_ratings_but_cannot_change_them(make_user, password):
    players = [make_user("felipe"), make_user()]
    play_rated(players)
    client = logged_in(User.objects.create_superuser("admin", "admin@example.org", password))
    assert "felipe" in client.get(reverse("admin:ratings_rating_changelist")).content.decode()
    assert "felipe" in client.get(reverse("admin:ratings_ratingchange_changelist")).content.decode()
    rating = Rating.objects.get(user=players[0], ladder=0)
    assert client.get(reverse("admin:ratings_rating_add")).status_code == 403
    page = client.get(reverse("admin:ratings_rating_change", args=[rating.pk])).content.decode()
    assert 'name="mu"' not in page
    assert client.post(reverse("admin:ratings_rating_delete", args=[rating.pk]), {"post": "yes"}).status_code == 403
    assert Rating.objects.filter(pk=rating.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_the_migration_rates_the_rated_games_finished_before_it(make_user):
    play_rated([make_user(), make_user(), make_user()])
    ratings, changes = stored(Rating), stored(RatingChange)
    call_command("migrate", "ratings", "0001", verbosity=0)
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    call_command("migrate", "ratings", verbosity=0)
    assert (stored(Rating), stored(RatingChange)) == (ratings, changes)
