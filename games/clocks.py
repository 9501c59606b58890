"""Clocks: when a decision's deadline falls, with the vacations of the players who must act.

A vacation stops a player's clocks in every slow game whose creator allows vacations
(`Game.clocks_stop_for_vacations`); live games are never paused. Vacations are calendar days in
the vacationer's own time zone, the first and last day whole, and vacations that follow each
other without a gap count as one.
"""

from collections import defaultdict
from datetime import UTC, datetime, time, timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import Vacation
from accounts.vacations import local_date

# How far back a run of vacations without gaps can reach: 21 days a year, so at most the end of
# one year's and the start of the next's.
LONGEST_RUN = timedelta(days=2 * 21)


def with_vacation_hint(seats, now):
    """Seats (a queryset) with `maybe_away`: whether their player has a vacation around the day of
    `now` in any time zone, so that `vacation_spans` need only be asked about those (a subquery
    on the vacations' (user, end) index instead of a query of its own)."""
    earliest_end, latest_start = vacation_hint_days(now)
    around = Vacation.objects.filter(user=OuterRef("user"), start__lte=latest_start, end__gte=earliest_end)
    return seats.annotate(maybe_away=Exists(around))


def vacation_hint_days(now):
    """(earliest end, latest start) of a vacation that makes its player `maybe_away` at `now`: one
    day either side of the day of `now` in UTC, as the player's own day may be a day ahead or
    behind. The page's own read of the seats (games/reading/page_game.py) asks the same."""
    today = now.astimezone(UTC).date()
    return today - timedelta(days=1), today + timedelta(days=1)


def vacation_spans(users, when):
    """{user id: (start, end)} as aware datetimes, for those of `users` on vacation at `when`:
    from the first midnight of the run of vacations to the midnight after its last day. One query."""
    users = {user.pk: user for user in users}
    if not users:
        return {}
    days = {pk: local_date(user, when) for pk, user in users.items()}
    by_user = defaultdict(list)
    earliest = min(days.values()) - LONGEST_RUN
    # Plain tuples: the sweep asks this for every overdue game.
    rows = Vacation.objects.filter(user_id__in=list(users), end__gte=earliest).order_by("start")
    for user_id, start, end in rows.values_list("user_id", "start", "end"):
        by_user[user_id].append((start, end))
    spans = {}
    for pk, day in days.items():
        run = None
        for start, end in by_user[pk]:
            if run is not None and start <= run[1] + timedelta(days=1):
                run = (run[0], max(run[1], end))
            elif run is not None and run[0] <= day <= run[1]:
                break
            else:
                run = (start, end)
        if run is not None and run[0] <= day <= run[1]:
            zone = users[pk].zone
            spans[pk] = (_midnight(run[0], zone), _midnight(run[1] + timedelta(days=1), zone))
    return spans


def new_deadline(game, away, now):
    """The deadline of a decision starting at `now`: the game's time per move, started for a
    player on vacation only when his vacation ends. `away`: the `vacation_spans` of the seats to
    act. With several seats to act (secret choices, a veto question) the one deadline waits for
    the latest of them."""
    deadline = now + timedelta(seconds=game.time_per_move)
    if game.clocks_stop_for_vacations:
        for _start, end in away:
            deadline = max(deadline, end + timedelta(seconds=game.time_per_move))
    return deadline


def deadline_after_vacations(game, away):
    """When the running deadline falls instead because some of the seats still to act are on a
    vacation (`away`: their `vacation_spans`) that began before it: the end of the vacation plus
    the time they had left when it began (the latest of them). None when nobody's vacation stops
    this game's clock.

    The sweep moves a passed deadline there; the game page counts down to it beforehand."""
    if not game.clocks_stop_for_vacations or game.deadline is None:
        return None
    full = timedelta(seconds=game.time_per_move)
    pushed = [
        end + min(game.deadline - start, full)
        for start, end in away
        # A vacation that started after the deadline had passed came too late to stop it.
        if start < game.deadline
    ]
    return max(pushed, default=None)


def vacations_of_acting(seats, acting, spans):
    """The vacation spans, out of `spans` (`vacation_spans`: by user id), of those of `seats`
    whose index is in `acting`: what `new_deadline`, `deadline_after_vacations` and
    `deadline_shown` take as `away`."""
    return [spans[seat.user_id] for seat in seats if seat.index in acting and seat.user_id in spans]


def deadline_shown(game, seats, spans):
    """The deadline a page counts down to and reminders go by: the stored one, or the later one
    where the vacations of the game's seats to act move it (`spans`: `vacation_spans` of some of
    `seats`' players), which the sweep stores only once the stored one has passed."""
    postponed = deadline_after_vacations(game, vacations_of_acting(seats, game.to_act, spans))
    return max(game.deadline, postponed) if postponed else game.deadline


def vacations_shown(spans, viewer_zone):
    """{user id: the last day of their vacation, in the viewer's calendar}, from `vacation_spans`."""
    last_moment = timedelta(microseconds=1)
    return {pk: timezone.localtime(end - last_moment, viewer_zone).date() for pk, (_, end) in spans.items()}


def your_move_prefix():
    """The page title's prefix while the reader has a move to make (static/clocks.js too)."""
    return gettext("● Your move – ")


def left_patterns():
    """The countdown's patterns in the active language, as time_left_text and static/clocks.js
    fill them in: %(days)d, %(hours)d, %(minutes)02d and the like."""
    return {
        "days": gettext("%(days)d d %(hours)d h left"),
        "hours": gettext("%(hours)d h %(minutes)02d min left"),
        "minutes": gettext("%(minutes)d min %(seconds)02d s left"),
    }
def countdown(deadline, now=None):
    """What templates/games/partials/countdown.html shows of a deadline, which static/clocks.js
    then counts down: {"deadline", "seconds" left, "left" in words}. The game page's clock and the
    lobby's "my games" both say the time left this one way."""
    seconds = max(0, int((deadline - (now or timezone.now())).total_seconds()))
    return {"deadline": deadline, "seconds": seconds, "left": time_left_text(seconds)}


def time_left_text(seconds):
    """The time left in words, as every countdown of the site says it (static/clocks.js, which
    counts them down, says it the same way)."""
    seconds = int(seconds)
    if seconds <= 0:
        return gettext("time is up")
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    values = {"days": days, "hours": hours, "minutes": minutes, "seconds": seconds}
    patterns = left_patterns()
    if days:
        return patterns["days"] % values
    if hours:
        return patterns["hours"] % values
    return patterns["minutes"] % values


def _midnight(day, zone):
    return datetime.combine(day, time(0), tzinfo=zone)
