"""The settings page: time zone and which mails the player wants."""

import re
import zoneinfo
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from accounts.models import User
from tests.support.helpers import logged_in

pytestmark = pytest.mark.django_db
FIELDS = {
    "time_zone": "Europe/Madrid",
    "notify_your_move": "on",
    "notify_reminder": "on",
    "notify_game_finished": "on",
    "digest": "daily",
}


def test_a_new_player_gets_every_mail_but_live_moves_one_by_one(make_user):
    user = User.objects.get(pk=make_user().pk)
    assert (user.notify_your_move, user.notify_reminder, user.notify_game_started) == (True, True, True)
    assert (user.notify_game_finished, user.notify_invitation) == (True, True)
    assert user.notify_live_your_move is False
    assert (user.digest, user.time_zone) == ("single", "UTC")


def test_the_settings_need_a_login(client):
    response = client.get(reverse("settings"))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]


def test_saving_the_time_zone_and_mail_preferences(make_user):
    user = make_user()
    client = logged_in(user)
    page = client.get(reverse("settings"))
    assert page.status_code == 200
    response = client.post(reverse("settings"), {"action": "settings", **FIELDS})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.time_zone == "Europe/Madrid"
    assert (user.notify_your_move, user.notify_reminder, user.notify_game_finished) == (True, True, True)
    assert (user.notify_live_your_move, user.notify_game_started, user.notify_invitation) == (False, False, False)
    assert user.digest == "daily"


@pytest.mark.parametrize("field, value", [("time_zone", "Mars/Olympus_Mons"), ("digest", "hourly")])
def test_a_setting_that_does_not_exist_is_refused_and_nothing_changes(make_user, field, value):
    user = make_user()
    response = logged_in(user).post(reverse("settings"), {"action": "settings", **FIELDS, field: value})
    assert response.status_code == 400
    assert field in response.context["settings_form"].errors
    user.refresh_from_db()
    assert (user.time_zone, user.digest, user.notify_game_started) == ("UTC", "single", True)


def test_an_unknown_form_changes_nothing(make_user):
    user = make_user()
    response = logged_in(user).post(reverse("settings"), {"action": "something", **FIELDS})
    assert response.status_code == 400
    user.refresh_from_db()
    assert user.time_zone == "UTC"


def test_times_are_shown_in_the_players_time_zone(make_user, client):
    player = make_user("felipe")
    User.objects.filter(pk=player.pk).update(date_joined=datetime(2026, 1, 31, 23, 30, tzinfo=UTC))
    viewer = make_user()
    assert "31 January 2026" in logged_in(viewer).get(reverse("profile", args=["felipe"])).content.decode()
    User.objects.filter(pk=viewer.pk).update(time_zone="Asia/Tokyo")
    assert "1 February 2026" in logged_in(viewer).get(reverse("profile", args=["felipe"])).content.decode()
    assert "31 January 2026" in client.get(reverse("profile", args=["felipe"])).content.decode()


def test_the_settings_say_whether_the_address_is_verified(make_user):
    assert "not verified" in logged_in(make_user(verified=False)).get(reverse("settings")).content.decode()
    assert "not verified" not in logged_in(make_user()).get(reverse("settings")).content.decode()


def test_the_header_links_to_profile_and_settings(make_user):
    page = logged_in(make_user("felipe")).get(reverse("lobby")).content.decode()
    assert f'href="{reverse("profile", args=["felipe"])}"' in page
    assert f'href="{reverse("settings")}"' in page


def test_a_time_zone_gone_from_the_tz_database_falls_back_to_utc(make_user):
    user = make_user()
    User.objects.filter(pk=user.pk).update(time_zone="Atlantis/Capital")
    assert logged_in(user).get(reverse("settings")).status_code == 200
    assert User.objects.get(pk=user.pk).zone.key == "UTC"


def test_the_time_zone_list_starts_with_the_common_zones_then_the_rest_once_each(make_user):
    user = make_user()
    User.objects.filter(pk=user.pk).update(time_zone="Asia/Kathmandu")
    page = logged_in(user).get(reverse("settings")).content.decode()
    select = re.search(r'<select name="time_zone"[^>]*>(.*?)</select>', page, re.S)[1]
    groups = re.findall(r'<optgroup label="([^"]+)">(.*?)</optgroup>', select, re.S)
    assert [label for label, _ in groups] == ["Common time zones", "All other time zones"]
    common, others = ([re.findall(r'<option value="([^"]+)"', options) for _, options in groups])
    assert common[:4] == ["UTC", "Europe/London", "Europe/Lisbon", "Europe/Madrid"] and len(common) < 25
    assert others == sorted(others) and len(common) + len(others) == len(zoneinfo.available_timezones())
    assert not set(common) & set(others)
    # The player's own zone, not a common one, is the one selected among the rest.
    assert re.findall(r'<option value="([^"]+)" selected>', select) == ["Asia/Kathmandu"]
    assert 'value="Europe/Madrid">Europe/Madrid</option>' in groups[0][1]
    assert 'value="America/Argentina/Buenos_Aires">America/Argentina/Buenos Aires</option>' in groups[0][1]
    logged_in(user).post(reverse("settings"), {"action": "settings", **FIELDS, "time_zone": "Europe/Rome"})
    user.refresh_from_db()
    assert user.time_zone == "Europe/Rome"


@pytest.mark.parametrize(
    "choice, notify_your_move, digest",
    [("single", True, "single"), ("daily", True, "daily"), ("none", False, "daily")],
)
def test_your_move_mails_are_one_choice_of_three_each_decision_a_daily_digest_or_none(
    make_user, choice, notify_your_move, digest
):
    user = make_user()
    User.objects.filter(pk=user.pk).update(digest="daily")
    fields = {key: value for key, value in FIELDS.items() if key != "notify_your_move"}
    response = logged_in(user).post(reverse("settings"), {"action": "settings", **fields, "digest": choice})
    assert response.status_code == 302
    user.refresh_from_db()
    # "None" keeps the kind chosen before, for the day they are switched on again; the reminders
    # are their own setting.
    assert (user.notify_your_move, user.digest, user.notify_reminder) == (notify_your_move, digest, True)


@pytest.mark.parametrize(
    "notify_your_move, digest, shown",
    [(True, "single", "single"), (True, "daily", "daily"), (False, "single", "none"), (False, "daily", "none")],
)
def test_an_existing_players_settings_show_as_the_choice_they_mean(make_user, notify_your_move, digest, shown):
    user = make_user()
    User.objects.filter(pk=user.pk).update(notify_your_move=notify_your_move, digest=digest)
    page = logged_in(user).get(reverse("settings"))
    assert page.context["settings_form"]["digest"].value() == shown
    assert re.search(rf'<input type="radio" name="digest" value="{shown}"[^>]* checked', page.content.decode())
