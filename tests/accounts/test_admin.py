import pytest
from django.urls import reverse

from accounts.models import User, Vacation
from tests.support.helpers import logged_in

pytestmark = pytest.mark.django_db


def test_staff_see_players_settings_and_vacations_in_the_admin(make_user, password):
    admin = User.objects.create_superuser("admin", "admin@example.org", password)
    player = make_user("felipe")
    Vacation.objects.create(user=player, start="2099-01-01", end="2099-01-03")
    client = logged_in(admin)
    page = client.get(reverse("admin:accounts_user_change", args=[player.pk]))
    assert page.status_code == 200 and 'name="time_zone"' in page.content.decode()
    assert "felipe" in client.get(reverse("admin:accounts_vacation_changelist")).content.decode()


def test_staff_see_a_vacation_but_may_not_write_or_delete_one_past_the_rules(make_user, password):
    admin = User.objects.create_superuser("admin", "admin@example.org", password)
    player = make_user("felipe")
    vacation = Vacation.objects.create(user=player, start="2099-01-01", end="2099-01-03")
    client = logged_in(admin)
    assert client.get(reverse("admin:accounts_vacation_add")).status_code == 403
    forged = {"user": player.pk, "start": "2099-01-01", "end": "9999-12-31"}
    assert client.post(reverse("admin:accounts_vacation_add"), forged).status_code == 403
    change = reverse("admin:accounts_vacation_change", args=[vacation.pk])
    page = client.get(change)
    assert page.status_code == 200 and 'name="end"' not in page.content.decode()
    assert client.post(change, forged).status_code == 403
    assert Vacation.objects.get().end.isoformat() == "2099-01-03"
    # Deleted once begun, its days would be given back (the settings page ends it instead).
    delete = client.post(reverse("admin:accounts_vacation_delete", args=[vacation.pk]), {"post": "yes"})
    assert delete.status_code == 403 and Vacation.objects.filter(pk=vacation.pk).exists()


def test_the_admin_login_goes_through_the_same_backend(client, password):
    User.objects.create_superuser("admin", "admin@example.org", password)
    client.post(reverse("admin:login"), {"username": "admin", "password": password})
    assert client.get(reverse("admin:index")).status_code == 200
