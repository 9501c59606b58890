"""Vacations: 21 days a calendar year, no overlap, nothing in the past; and the questions asked of them."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts import vacations
from accounts.models import Vacation
from tests.support.helpers import logged_in

pytestmark = pytest.mark.django_db
NOW = datetime(2030, 3, 10, 12, 0, tzinfo=UTC)


def add(user, start, end):
    return vacations.add(user, start, end, now=NOW)


def test_a_vacation_is_taken_with_both_ends_included(make_user):
    user = make_user()
    vacation = add(user, date(2030, 4, 1), date(2030, 4, 7))
    assert vacation.days == 7
    assert vacations.days_left(user, 2030) == 14


def test_21_days_a_year_may_be_taken_but_not_one_more(make_user):
    user = make_user()
    add(user, date(2030, 4, 1), date(2030, 4, 14))
    add(user, date(2030, 6, 1), date(2030, 6, 7))
    assert vacations.days_left(user, 2030) == 0
    with pytest.raises(ValidationError, match="1 vacation day in 2030, but you have only 0 of your 21 left"):
        add(user, date(2030, 8, 1), date(2030, 8, 1))
    assert Vacation.objects.filter(user=user).count() == 2


def test_a_vacation_over_new_year_takes_from_both_years(make_user):
    user = make_user()
    add(user, date(2030, 12, 21), date(2031, 1, 10))
    assert (vacations.days_left(user, 2030), vacations.days_left(user, 2031)) == (10, 11)
    with pytest.raises(ValidationError, match="in 2031, but you have only 11"):
        add(user, date(2031, 5, 1), date(2031, 5, 12))


@pytest.mark.parametrize(
    "start, end, message",
    [
        (date(2030, 3, 9), date(2030, 3, 12), "cannot start in the past"),
        (date(2030, 4, 5), date(2030, 4, 1), "cannot come before its first"),
        (date(2030, 4, 5), date(2030, 4, 9), "overlaps your vacation from 1 April 2030 to 5 April 2030"),
        (date(2030, 3, 25), date(2030, 4, 1), "overlaps your vacation"),
        (date(2030, 4, 2), date(2030, 4, 3), "overlaps your vacation"),
    ],
)
def test_a_vacation_may_not_be_in_the_past_backwards_or_overlap_another(make_user, start, end, message):
    user = make_user()
    add(user, date(2030, 4, 1), date(2030, 4, 5))
    with pytest.raises(ValidationError, match=message):
        add(user, start, end)
    assert Vacation.objects.filter(user=user).count() == 1


def test_a_vacation_may_reach_the_end_of_next_year_but_not_beyond(make_user):
    user = make_user()
    add(user, date(2031, 12, 25), date(2031, 12, 31))
    with pytest.raises(ValidationError, match="up to the end of next year, not later"):
        add(user, date(2031, 12, 20), date(2032, 1, 1))
    assert Vacation.objects.filter(user=user).count() == 1


def test_vacations_may_follow_each_other_and_others_may_overlap_mine(make_user):
    me, other = make_user(), make_user()
    add(me, date(2030, 4, 1), date(2030, 4, 5))
    add(me, date(2030, 4, 6), date(2030, 4, 8))
    add(other, date(2030, 4, 1), date(2030, 4, 5))
    assert Vacation.objects.count() == 3


def test_today_is_the_players_own_day(make_user):
    user = make_user()
    user.time_zone = "Pacific/Auckland"  # already 11 March there
    user.save()
    with pytest.raises(ValidationError, match="in the past"):
        add(user, date(2030, 3, 10), date(2030, 3, 10))
    add(user, date(2030, 3, 11), date(2030, 3, 11))


def test_on_vacation_and_until_when(make_user):
    user = make_user()
    add(user, date(2030, 4, 1), date(2030, 4, 5))
    add(user, date(2030, 4, 6), date(2030, 4, 8))
    add(user, date(2030, 4, 10), date(2030, 4, 12))
    during = datetime(2030, 4, 3, 9, tzinfo=UTC)
    assert vacations.on_vacation(user, during)
    # Two vacations back to back are one absence; the one after a gap is not part of it.
    assert vacations.vacation_until(user, during) == date(2030, 4, 8)
    assert not vacations.on_vacation(user, datetime(2030, 4, 9, 9, tzinfo=UTC))
    assert vacations.vacation_until(user, datetime(2030, 4, 9, 9, tzinfo=UTC)) is None
    assert vacations.on_vacation(user, datetime(2030, 4, 12, 23, 59, tzinfo=UTC))
    assert not vacations.on_vacation(user, datetime(2030, 4, 13, 0, 0, tzinfo=UTC))


def test_a_vacation_follows_the_players_time_zone(make_user):
    user = make_user()
    user.time_zone = "America/New_York"
    user.save()
    add(user, date(2030, 4, 1), date(2030, 4, 1))
    # 1 April 02:00 UTC is still 31 March in New York; 2 April 02:00 UTC is still 1 April there.
    assert not vacations.on_vacation(user, datetime(2030, 4, 1, 2, tzinfo=UTC))
    assert vacations.on_vacation(user, datetime(2030, 4, 2, 2, tzinfo=UTC))


def test_vacations_of_many_players_in_one_query(make_user):
    users = [make_user() for _ in range(4)]
    add(users[0], date(2030, 4, 1), date(2030, 4, 5))
    add(users[2], date(2030, 4, 3), date(2030, 4, 4))
    add(users[2], date(2030, 4, 5), date(2030, 4, 9))
    add(users[3], date(2030, 5, 1), date(2030, 5, 2))
    when = datetime(2030, 4, 3, 12, tzinfo=UTC)
    with CaptureQueriesContext(connection) as queries:
        until = vacations.vacations_until(users, when)
    assert until == {users[0].pk: date(2030, 4, 5), users[2].pk: date(2030, 4, 9)}
    assert len(queries) == 1


def test_calling_off_a_vacation_to_come_gives_the_days_back(make_user):
    user = make_user()
    vacation = add(user, date(2030, 4, 1), date(2030, 4, 5))
    vacations.cancel(user, vacation.pk, now=NOW)
    assert not Vacation.objects.exists()
    assert vacations.days_left(user, 2030) == 21


def test_ending_a_running_vacation_keeps_the_days_spent(make_user):
    user = make_user()
    vacation = add(user, date(2030, 3, 10), date(2030, 3, 20))
    vacations.cancel(user, vacation.pk, now=NOW + timedelta(days=3))
    vacation.refresh_from_db()
    # Today, begun, stays spent: the vacation ends with it.
    assert (vacation.start, vacation.end) == (date(2030, 3, 10), date(2030, 3, 13))
    assert not vacations.on_vacation(user, NOW + timedelta(days=4))


def test_a_vacation_of_today_cannot_be_called_off_for_its_day_back(make_user):
    """A vacation taken for today just before a deadline, which the sweep then moved, called off
    after: its day came back while the deadline stayed moved, and that could be done every day."""
    user = make_user()
    today = vacations.local_date(user, NOW + timedelta(days=3))
    vacation = add(user, today, today)
    left = vacations.days_left(user, today.year)
    with pytest.raises(ValidationError, match="ends today already"):
        vacations.cancel(user, vacation.pk, now=NOW + timedelta(days=3))
    assert Vacation.objects.filter(pk=vacation.pk).exists() and vacations.days_left(user, today.year) == left


def test_a_past_vacation_or_another_players_cannot_be_changed(make_user):
    user, other = make_user(), make_user()
    vacation = add(user, date(2030, 3, 10), date(2030, 3, 12))
    with pytest.raises(ValidationError, match="You have no such vacation"):
        vacations.cancel(other, vacation.pk, now=NOW)
    with pytest.raises(ValidationError, match="is over"):
        vacations.cancel(user, vacation.pk, now=NOW + timedelta(days=5))
    vacation.refresh_from_db()
    assert vacation.end == date(2030, 3, 12)


# Through the settings page, with real dates: those of the player's today.


def today_for(user):
    return vacations.local_date(user)


def test_taking_a_vacation_in_the_settings(make_user):
    user = make_user()
    client = logged_in(user)
    start = today_for(user) + timedelta(days=30)
    response = client.post(
        reverse("settings"), {"action": "add-vacation", "start": start, "end": start + timedelta(days=2)}, follow=True
    )
    assert response.status_code == 200
    assert list(Vacation.objects.filter(user=user).values_list("start", "end")) == [(start, start + timedelta(days=2))]
    assert "Vacation taken" in response.content.decode()


@pytest.mark.parametrize(
    "first_day, length, message",
    [
        (lambda today: today - timedelta(days=1), 2, "cannot start in the past"),
        (lambda today: date(today.year + 1, 2, 1), 22, "22 vacation days in"),
        # The calendar's last day has no day after it: counting its year's days failed with a 500.
        (lambda today: date(9999, 12, 20), 12, "up to the end of next year, not later"),
        (lambda today: date(9999, 12, 31), 1, "up to the end of next year, not later"),
    ],
)
def test_the_settings_refuse_a_vacation_with_a_clear_message(make_user, first_day, length, message):
    user = make_user()
    client = logged_in(user)
    start = first_day(today_for(user))
    response = client.post(
        reverse("settings"), {"action": "add-vacation", "start": start, "end": start + timedelta(days=length - 1)}
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Vacation.objects.exists()
    # The form posts to the page's vacation section, so that the browser shows its error there,
    # not the top of a long page.
    assert f'action="{reverse("settings")}#vacations" class="vacation-form"' in response.content.decode()
    assert 'id="vacations"' in response.content.decode()
    today = today_for(user)
    bounds = f'min="{today.isoformat()}" max="{today.year + 1}-12-31"'
    assert response.content.decode().count(bounds) == 2


def test_the_settings_refuse_a_date_that_is_not_one(make_user):
    client = logged_in(make_user())
    response = client.post(reverse("settings"), {"action": "add-vacation", "start": "someday", "end": "2030-13-01"})
    assert response.status_code == 400
    assert set(response.context["vacation_form"].errors) == {"start", "end"}
    assert not Vacation.objects.exists()


def test_calling_off_a_vacation_in_the_settings(make_user):
    user, other = make_user(), make_user()
    start = today_for(user) + timedelta(days=10)
    vacation = Vacation.objects.create(user=user, start=start, end=start)
    refused = logged_in(other).post(reverse("cancel_vacation", args=[vacation.pk]))
    assert refused.status_code == 400 and "You have no such vacation" in refused.content.decode()
    assert Vacation.objects.exists()
    logged_in(user).post(reverse("cancel_vacation", args=[vacation.pk]))
    assert not Vacation.objects.exists()
