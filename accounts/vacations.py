"""Vacations: the rules for taking them, and the questions clocks and pages ask about them.

Dates are the player's own calendar days (their time zone from the settings); a vacation covers
its first and last day whole.
"""

from collections import defaultdict
from datetime import date, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .models import User, Vacation

DAYS_PER_YEAR = 21


def local_date(user, when=None):
    """The calendar day it is for `user` at `when` (now by default)."""
    when = when or timezone.now()
    return timezone.localtime(when, user.zone).date()


def latest_day(today):
    """The last day a vacation may reach: the end of next year. The yearly days are counted for
    the years to come, and a calendar's last day (31 December 9999) has no day after it."""
    return date(today.year + 1, 12, 31)


def days_by_year(start, end):
    """{year: days} of the range start..end, both included."""
    days = defaultdict(int)
    day = start
    while day <= end:
        year_end = min(end, date(day.year, 12, 31))
        days[day.year] += (year_end - day).days + 1
        day = year_end + timedelta(days=1)
    return dict(days)


def days_left(user, year):
    used = sum(days_by_year(v.start, v.end).get(year, 0) for v in _touching_year(user, year))
    return DAYS_PER_YEAR - used


def check(user, start, end, today):
    """Raise ValidationError, saying why, unless `user` may take a vacation start..end."""
    if end < start:
        raise ValidationError(_("The last day of a vacation cannot come before its first."))
    if start < today:
        raise ValidationError(_("A vacation cannot start in the past."))
    if end > latest_day(today):
        raise ValidationError(_("A vacation can be taken up to the end of next year, not later."))
    clash = Vacation.objects.filter(user=user, start__lte=end, end__gte=start).first()
    if clash is not None:
        raise ValidationError(_("This overlaps your vacation %(dates)s.") % {"dates": describe(clash)})
    for year, days in days_by_year(start, end).items():
        left = days_left(user, year)
        if days > left:
            raise ValidationError(
                ngettext(
                    "That is %(days)d vacation day in %(year)d, but you have only %(left)d of your "
                    "%(allowed)d left for that year.",
                    "That is %(days)d vacation days in %(year)d, but you have only %(left)d of your "
                    "%(allowed)d left for that year.",
                    days,
                )
                % {"days": days, "year": year, "left": left, "allowed": DAYS_PER_YEAR}
            )


def add(user, start, end, now=None):
    """Take a vacation, or raise ValidationError. The player's row is locked so that two requests
    at once cannot together go over the yearly days."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        check(user, start, end, local_date(user, now))
        return Vacation.objects.create(user=user, start=start, end=end)


def cancel(user, vacation_id, now=None):
    """Call off a vacation to come (its days come back), or end a running one today: today, begun,
    stays spent with the days before it. Given back, a vacation of today called off after the sweep
    had moved a deadline for it kept the deadline moved and cost no day, which could be done again
    every day. Past vacations, and one that ends today already, cannot be changed. Raises
    ValidationError."""
    today = local_date(user, now)
    with transaction.atomic():
        vacation = Vacation.objects.select_for_update().filter(user=user, pk=vacation_id).first()
        if vacation is None:
            raise ValidationError(_("You have no such vacation."))
        if vacation.end < today:
            raise ValidationError(_("That vacation is over; it cannot be changed any more."))
        if vacation.start > today:
            vacation.delete()
        elif vacation.end > today:
            vacation.end = today
            vacation.save(update_fields=["end"])
        else:
            raise ValidationError(_("This vacation ends today already: a day begun stays spent."))


def on_vacation(user, when=None):
    """Whether `user` is on vacation at the moment `when` (now by default)."""
    day = local_date(user, when)
    return Vacation.objects.filter(user=user, start__lte=day, end__gte=day).exists()


def vacation_until(user, when=None):
    """The last day of the vacation `user` is on at `when`, counting vacations that follow each
    other without a gap as one; None when not on vacation."""
    return vacations_until([user], when).get(user.pk)


def vacations_until(users, when=None):
    """{user id: last vacation day} for those of `users` on vacation at `when`, in one query."""
    users = list(users)
    if not users:
        return {}
    days = {user.pk: local_date(user, when) for user in users}
    earliest = min(days.values())
    by_user = defaultdict(list)
    for vacation in Vacation.objects.filter(user__in=days, end__gte=earliest).order_by("start"):
        by_user[vacation.user_id].append(vacation)
    until = {}
    for user_id, day in days.items():
        last = None
        for vacation in by_user[user_id]:
            if last is None and vacation.start <= day <= vacation.end:
                last = vacation.end
            elif last is not None and vacation.start == last + timedelta(days=1):
                last = vacation.end
        if last is not None:
            until[user_id] = last
    return until


def describe(vacation):
    if vacation.start == vacation.end:
        return _("on %(day)s") % {"day": date_format(vacation.start, "j F Y")}
    return _("from %(first)s to %(last)s") % {
        "first": date_format(vacation.start, "j F Y"),
        "last": date_format(vacation.end, "j F Y"),
    }


def _touching_year(user, year):
    return Vacation.objects.filter(user=user, start__lte=date(year, 12, 31), end__gte=date(year, 1, 1))
