"""Which mails the site decides to send, and when: your move (once for decisions in a row, again
when play comes back after a while; slow games at once, live games only when asked), game
started, game finished, reminders, the daily digest."""

import random
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts import vacations
from games import deadlines
from games.engine import apply_move, legal_moves, new_game, random_move, to_act
from games.mail import composing, decisions, digests, reminders
from games.models import HALF_REMINDER_PENDING, LAST_REMINDER_PENDING, Game, Move, Notification
from games.play import lifecycle, moving
from tests.support.helpers import find_position, logged_in, state_of
from tests.support.notifications import a_turn_that_comes_back_to_its_player, bid, play_until, sent_to

pytestmark = pytest.mark.django_db


def test_the_start_mails_each_player_their_first_decision_in_one_mail(started, mailoutbox):
    game, users = started(3)
    state = state_of(game)
    first = to_act(state)
    assert len(mailoutbox) == 3
    for seat, user in users.items():
        (message,) = sent_to(mailoutbox, user)
        if seat in first:
            assert message.subject == f"[El Grande] Game {game.pk} has started: your bid"
        else:
            assert message.subject == f"[El Grande] Game {game.pk} has started"
    # No separate "your move" mail for the first decision.
    assert not Notification.objects.filter(kind="your_move").exists()


def test_your_move_is_mailed_when_a_seat_newly_has_to_act(started, committed, mailoutbox):
    game, users = started(3)
    mailoutbox.clear()
    next_bidder = bid(game, users, committed)
    (message,) = mailoutbox
    assert message.to == [users[next_bidder].email]
    assert message.subject == f"[El Grande] Game {game.pk}, round 1: your bid"


def first_turn_not_taken_by_the_last_bidder():
    """A seed whose first turn (played as `play_until` plays) is not the last bidder's: the last
    bidder goes on acting, so has no new "your move" for the court move."""
    for seed in range(1, 100):
        state, rng = new_game(num_players=3, seed=seed), random.Random(seed)
        while state.phase == "bid":
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
        if state.current_player != seat:
            return seed
    raise LookupError("no such seed")


def test_decisions_in_a_row_make_one_mail(started, committed, mailoutbox):
    game, users = started(3, seed=first_turn_not_taken_by_the_last_bidder())
    state = play_until(game, users, committed, lambda s: s.phase == "court")
    player, turn_began = state.current_player, game.version
    mailoutbox.clear()
    (message,) = Notification.objects.filter(user=users[player], kind="your_move", version=game.version)
    assert message.subject == f"Game {game.pk}, round 1: your court move"
    # The player's decisions, as long as nobody else has to act in between.
    made = 0
    while to_act(state) == [player]:
        made += 1
        committed(
            moving.submit_move,
            game,
            user=users[player],
            move=random_move(state, player, random.Random(1)),
            expected_version=game.version,
        )
        state = state_of(game)
    assert made >= 2
    assert sent_to(mailoutbox, users[player]) == []
    assert Notification.objects.filter(user=users[player], kind="your_move", version__gte=turn_began).count() == 1


@pytest.mark.parametrize("away, mailed", [(timedelta(minutes=16), True), (timedelta(minutes=2), False)])
def test_a_turn_that_comes_back_to_its_player_after_others_took_a_while_mails_them_again(
    started, committed, mailoutbox, away, mailed
):
    game, users = started(3, seed=a_turn_that_comes_back_to_its_player())
    state = play_until(game, users, committed, lambda s: s.phase != "bid" and s.current_player not in to_act(s))
    player, others, waiting_since = state.current_player, to_act(state), game.version
    assert others and player not in others
    # The others answer `away` after the player's last move.
    Move.objects.filter(game=game).update(created_at=timezone.now() - away)
    mailoutbox.clear()
    state = play_until(game, users, committed, lambda s: player in to_act(s))
    assert state.current_player == player and state.round == 1
    assert len(sent_to(mailoutbox, users[player])) == (1 if mailed else 0)
    again = Notification.objects.filter(user=users[player], kind="your_move", version__gt=waiting_since)
    assert again.count() == (1 if mailed else 0)
    if mailed:
        assert f"Game {game.pk}, round 1: " in sent_to(mailoutbox, users[player])[0].subject


def test_live_games_mail_your_move_only_to_players_who_asked(started, committed, mailoutbox):
    game, users = started(3, time_per_move=120)
    state = state_of(game)
    bidder = to_act(state)[0]
    order_after = [seat for seat in range(3) if seat != bidder]
    for seat in order_after:
        users[seat].notify_live_your_move = seat == order_after[0]
        users[seat].save()
    mailoutbox.clear()
    committed(
        moving.submit_move,
        game,
        user=users[bidder],
        move=legal_moves(state, bidder)[0],
        expected_version=game.version,
    )
    next_bidder = to_act(state_of(game))[0]
    expected = 1 if users[next_bidder].notify_live_your_move else 0
    assert len(sent_to(mailoutbox, users[next_bidder])) == expected
    assert Notification.objects.filter(kind="your_move").count() == 0


def test_a_player_who_switched_your_move_off_or_has_no_verified_address_gets_none(
    started, committed, mailoutbox, make_user
):
    game, users = started(3)
    for user in users.values():
        user.notify_your_move = False
        user.save()
    mailoutbox.clear()
    play_until(game, users, committed, lambda s: s.phase == "court")
    assert mailoutbox == []

    unverified = make_user(verified=False)
    other = make_user()
    game = lifecycle.create_game(unverified, num_players=2)
    committed(lifecycle.join_game, game, user=other)
    assert [message.to for message in mailoutbox] == [[other.email]]


def test_the_end_mails_the_ranking(started, committed, mailoutbox):
    game, users = started(2, short_game=True)
    state = play_until(game, users, committed, lambda s: s.is_over)
    game.refresh_from_db()
    for seat, user in users.items():
        finished = [m for m in sent_to(mailoutbox, user) if "is over" in m.subject]
        (message,) = finished
        place = next(place for place, s, _ in game.standings if s == seat)
        assert message.subject == f"[El Grande] Game {game.pk} is over: you placed {composing.PLACES[place]}"
        for place, s, score in game.standings:
            assert f"{place}. {users[s].username}" in message.body
            assert f"{score} point" in message.body
    assert state.is_over


def test_deciding_twice_about_one_save_records_and_sends_one_mail(started, committed, mailoutbox):
    game, users = started(3)
    state = state_of(game)
    bidder = to_act(state)[0]
    previous = list(game.to_act)
    committed(
        moving.submit_move,
        game,
        user=users[bidder],
        move=legal_moves(state, bidder)[0],
        expected_version=game.version,
    )
    game.refresh_from_db()
    count = len(mailoutbox)
    decisions.game_saved(game, state_of(game), previous)
    assert len(mailoutbox) == count
    assert Notification.objects.filter(kind="your_move", version=game.version).count() == 1


# ---- reminders --------------------------------------------------------------------------------


def test_reminders_come_halfway_and_with_less_than_12_hours_left_once_each(started, mailoutbox):
    game, users = started(3, time_per_move=3 * 24 * 3600)
    mailoutbox.clear()
    deadline = game.deadline
    (bidder,) = game.to_act
    assert reminders.send_due_reminders(deadline - timedelta(hours=37)) == 0
    assert mailoutbox == []

    reminders.send_due_reminders(deadline - timedelta(hours=35))
    (message,) = mailoutbox
    assert message.to == [users[bidder].email]
    assert message.subject == f"[El Grande] Game {game.pk}, round 1: your bid (half your time is gone)"
    reminders.send_due_reminders(deadline - timedelta(hours=20))
    assert len(mailoutbox) == 1

    reminders.send_due_reminders(deadline - timedelta(hours=11))
    assert len(mailoutbox) == 2
    assert mailoutbox[1].subject.endswith("your bid (less than 12 hours left)")
    reminders.send_due_reminders(deadline - timedelta(hours=1))
    assert len(mailoutbox) == 2


def test_no_reminder_while_the_player_has_the_game_open_and_one_once_he_has_left(started, mailoutbox):
    from django.core.cache import cache

    from games.infra import presence

    cache.clear()
    game, users = started(3, time_per_move=3 * 24 * 3600)
    mailoutbox.clear()
    deadline = game.deadline
    (bidder,) = game.to_act
    halfway = deadline - timedelta(hours=35)
    # His page is open (it refreshed a moment ago): he sees the clock, no mail; the game stays
    # among those the sweeps read.
    presence.seen(game.pk, users[bidder].pk, now=halfway.timestamp() - 1)
    assert reminders.send_due_reminders(halfway) == 0
    assert mailoutbox == [] and Game.objects.filter(pk=game.pk).filter(HALF_REMINDER_PENDING).exists()
    # Another player's open page keeps nothing back.
    presence.seen(game.pk, users[(bidder + 1) % 3].pk, now=halfway.timestamp() + 3599)
    # Closed: the next sweep reminds him, once.
    presence.seen(game.pk, users[bidder].pk, open=False, now=halfway.timestamp() + 60)
    assert reminders.send_due_reminders(halfway + timedelta(hours=1)) == 1
    (message,) = mailoutbox
    assert message.to == [users[bidder].email] and message.subject.endswith("(half your time is gone)")
    reminders.send_due_reminders(halfway + timedelta(hours=2))
    assert len(mailoutbox) == 1
    cache.clear()


def test_the_seats_of_a_simultaneous_choice_are_reminded_once_while_they_answer_one_by_one(
    started, committed, mailoutbox
):
    seed, history = find_position(lambda state: len(to_act(state)) >= 3, num_players=4)
    game, users = started(4, seed=seed, time_per_move=3 * 24 * 3600)
    for seat, move in history:
        committed(moving.submit_move, game, user=users[seat], move=move, expected_version=game.version)
        game.refresh_from_db()
    waiting, deadline = list(game.to_act), game.deadline
    mailoutbox.clear()
    reminders.send_due_reminders(deadline - timedelta(hours=35))
    assert sorted(m.to[0] for m in mailoutbox) == sorted(users[seat].email for seat in waiting)
    first = waiting[0]
    committed(
        moving.submit_move,
        game,
        user=users[first],
        move=legal_moves(state_of(game), first)[0],
        expected_version=game.version,
    )
    game.refresh_from_db()
    assert game.deadline == deadline and set(game.to_act) == set(waiting) - {first}
    # A new version of the same decision, with the same deadline: nobody is reminded again.
    reminders.send_due_reminders(deadline - timedelta(hours=34))
    assert len(mailoutbox) == len(waiting)


def test_a_decided_reminder_keeps_its_game_out_of_the_sweeps_reading_until_its_deadline_changes(
    started, committed, mailoutbox, django_assert_num_queries
):
    seed, history = find_position(lambda state: len(to_act(state)) >= 3, num_players=4)
    game, users = started(4, seed=seed, time_per_move=3 * 24 * 3600)
    for seat, move in history:
        committed(moving.submit_move, game, user=users[seat], move=move, expected_version=game.version)
        game.refresh_from_db()
    deadline = game.deadline
    pending = Game.objects.filter(pk=game.pk)
    assert pending.filter(HALF_REMINDER_PENDING).exists() and pending.filter(LAST_REMINDER_PENDING).exists()
    mailoutbox.clear()
    reminders.send_due_reminders(deadline - timedelta(hours=35))
    assert len(mailoutbox) == len(game.to_act)
    assert not pending.filter(HALF_REMINDER_PENDING).exists() and pending.filter(LAST_REMINDER_PENDING).exists()
    first = game.to_act[0]
    committed(
        moving.submit_move, game, user=users[first], move=legal_moves(state_of(game), first)[0],
        expected_version=game.version,
    )
    game.refresh_from_db()
    assert game.deadline == deadline
    # A new version of the same decision: the next sweeps read no game (the games' query finds
    # none, and the retries' is the other), where they read this one at every new version.
    with django_assert_num_queries(2):
        assert reminders.send_due_reminders(deadline - timedelta(hours=34)) == 0
    # The last reminder, then neither.
    reminders.send_due_reminders(deadline - timedelta(hours=11))
    assert len(mailoutbox) == 2 * len(game.to_act) + 1
    assert not pending.filter(HALF_REMINDER_PENDING).exists() and not pending.filter(LAST_REMINDER_PENDING).exists()
    # Whatever changes the deadline puts the game back among those to look at.
    pending.update(deadline=deadline + timedelta(days=1))
    assert pending.filter(HALF_REMINDER_PENDING).exists() and pending.filter(LAST_REMINDER_PENDING).exists()


def test_reminders_go_by_the_deadline_a_vacation_moves_as_the_game_page_does(
    started, mailoutbox, monkeypatch
):
    game, users = started(3, time_per_move=3 * 24 * 3600)
    (bidder,) = game.to_act
    # The deadline at noon on 5 March (UTC, the players' time zone); the bidder's vacation is
    # that whole day. When it began, 12 hours were left: his clock stops, and the deadline moves
    # to noon on 6 March (what the page counts down to from the start of the vacation, and what
    # the sweep stores once noon on 5 March has passed).
    deadline = datetime(2026, 3, 5, 12, tzinfo=UTC)
    moved = datetime(2026, 3, 6, 12, tzinfo=UTC)
    Game.objects.filter(pk=game.pk).update(deadline=deadline)
    game.refresh_from_db()
    vacations.add(users[bidder], date(2026, 3, 5), date(2026, 3, 5), now=datetime(2026, 3, 1, tzinfo=UTC))
    mailoutbox.clear()

    # 11 hours before the stored deadline, on vacation: 35 hours before the one that counts.
    # No "less than 12 hours left"; "half your time is gone", with the deadline that counts.
    on_vacation = datetime(2026, 3, 5, 1, tzinfo=UTC)
    reminders.send_due_reminders(on_vacation)
    (message,) = mailoutbox
    assert message.to == [users[bidder].email]
    assert message.subject.endswith("(half your time is gone)"), message.subject
    assert "Your deadline: Friday 6 March, 12:00 UTC (UTC)" in message.body
    assert not Notification.objects.filter(kind="reminder_last").exists()
    # As the page says it to him.
    monkeypatch.setattr(timezone, "now", lambda: on_vacation)
    page = logged_in(users[bidder]).get(reverse("game", args=[game.pk])).content.decode()
    assert f'datetime="{moved.isoformat()}"' in page

    # The stored deadline passes during the vacation: the sweep moves it, playing nobody.
    monkeypatch.setattr(timezone, "now", lambda: deadline + timedelta(minutes=1))
    assert deadlines.sweep() == 1
    game.refresh_from_db()
    assert game.deadline == moved and not Move.objects.filter(game=game).exists()
    reminders.send_due_reminders(deadline + timedelta(minutes=2))
    assert len(mailoutbox) == 1, "the same deadline: not reminded again"

    # Back from vacation, with less than 12 hours left of the moved deadline.
    reminders.send_due_reminders(moved - timedelta(hours=11))
    assert len(mailoutbox) == 2
    assert mailoutbox[1].subject.endswith("(less than 12 hours left)")
    assert "Your deadline: Friday 6 March, 12:00 UTC (UTC)" in mailoutbox[1].body


def test_a_one_day_game_gets_only_the_halfway_reminder(started, mailoutbox):
    game, _ = started(3, time_per_move=24 * 3600)
    mailoutbox.clear()
    reminders.send_due_reminders(game.deadline - timedelta(hours=13))
    assert mailoutbox == []
    reminders.send_due_reminders(game.deadline - timedelta(hours=11))
    reminders.send_due_reminders(game.deadline - timedelta(hours=1))
    assert [m.subject.endswith("(half your time is gone)") for m in mailoutbox] == [True]


def test_live_games_and_players_who_switched_reminders_off_get_none(started, mailoutbox):
    live, _ = started(3, time_per_move=300)
    slow, users = started(3)
    for user in users.values():
        user.notify_reminder = False
        user.save()
    mailoutbox.clear()
    reminders.send_due_reminders(live.deadline - timedelta(seconds=10))
    reminders.send_due_reminders(slow.deadline - timedelta(hours=1))
    assert mailoutbox == []


# ---- the daily digest -------------------------------------------------------------------------


def test_digest_players_get_one_daily_mail_instead_of_single_ones(started, committed, mailoutbox):
    game, users = started(3)
    started(2)
    for user in users.values():
        user.digest = "daily"
        user.time_zone = "America/New_York"
        user.save()
    mailoutbox.clear()
    play_until(game, users, committed, lambda s: s.phase == "court")
    assert mailoutbox == []

    current = state_of(game).current_player
    # 11:30 UTC is 06:30 in New York, before the digest hour; 12:30 UTC is 07:30 there.
    morning = datetime(2026, 11, 23, 11, 30, tzinfo=UTC)
    assert digests.send_digests(morning) == 0
    assert digests.send_digests(morning + timedelta(hours=1)) == 1
    (message,) = mailoutbox
    assert message.to == [users[current].email]
    assert message.subject == "[El Grande] A game waits for your move"
    assert f"Game {game.pk}, round 1: your court move" in message.body
    assert f"https://elgrande.example.org/games/{game.pk}/play/" in message.body
    assert "America/New_York" in message.body
    assert digests.send_digests(morning + timedelta(hours=8)) == 0
    assert len(mailoutbox) == 1
    assert digests.send_digests(morning + timedelta(days=1, hours=1)) == 1


def test_a_digest_lists_every_waiting_game_and_none_goes_to_players_with_nothing_waiting(started, mailoutbox):
    first, first_users = started(2)
    second, second_users = started(2)
    for users in (first_users, second_users):
        for user in users.values():
            user.digest = "daily"
            user.save()
    waiting_in_first = first_users[first.to_act[0]]
    # The same player also waits in the second game.
    second.seats.filter(index=second.to_act[0]).update(user=waiting_in_first)
    mailoutbox.clear()
    # Three other players are in these games, none of them to act: no digest for them.
    assert digests.send_digests(datetime(2026, 11, 23, 9, tzinfo=UTC)) == 1
    (message,) = mailoutbox
    assert message.to == [waiting_in_first.email]
    assert message.subject == "[El Grande] 2 games wait for your move"
    assert f"Game {first.pk}," in message.body and f"Game {second.pk}," in message.body


def test_celery_beat_runs_the_digest_task_which_sends_the_digests_due_now(settings, started, mailoutbox):
    from django.utils import timezone

    from elgrande_site.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["daily-digests"]
    assert entry["schedule"] <= 60 * 60
    app.loader.import_default_modules()
    task = app.tasks[entry["task"]]

    game, users = started(2)
    now = timezone.now()
    # A time zone where it is now past the digest hour, and one where it is before.
    zones = [f"Etc/GMT{offset:+d}" if offset else "UTC" for offset in range(-12, 13)]
    hours = {zone: timezone.localtime(now, ZoneInfo(zone)).hour for zone in zones}
    late = next(zone for zone, hour in hours.items() if digests.DIGEST_HOUR <= hour)
    early = next(zone for zone, hour in hours.items() if hour < digests.DIGEST_HOUR)
    waiting, other = users[game.to_act[0]], next(u for s, u in users.items() if s != game.to_act[0])
    for user, zone in ((waiting, late), (other, early)):
        user.digest, user.time_zone = "daily", zone
        user.save()
    mailoutbox.clear()
    task()
    assert [m.to for m in mailoutbox] == [[waiting.email]]
    waiting.time_zone = early
    waiting.save()
    mailoutbox.clear()
    task()
    assert mailoutbox == []


def test_a_sweep_with_no_reminder_due_does_a_few_queries_however_many_games_run(
    started, mailoutbox, django_assert_max_num_queries
):
    games = [started(3, time_per_move=3 * 24 * 3600)[0] for _ in range(4)]
    latest = max(game.deadline for game in games)
    reminders.send_due_reminders(latest - timedelta(hours=30))
    assert len(mailoutbox) - 4 * 3 == 4  # after the start mails, one reminder per game
    # Every reminder due is sent; the next sweeps look at none of these games again.
    with django_assert_max_num_queries(3):
        assert reminders.send_due_reminders(latest - timedelta(hours=29)) == 0


def zone_past_the_digest_hour(now):
    zones = [f"Etc/GMT{offset:+d}" if offset else "UTC" for offset in range(-12, 13)]
    return next(z for z in zones if now.astimezone(ZoneInfo(z)).hour >= digests.DIGEST_HOUR)


def test_the_deadline_sweep_sends_the_reminders_due_and_embedded_the_digests_once_an_hour(
    started, settings, mailoutbox
):
    from games import deadlines

    settings.REDIS_URL = ""
    game, users = started(3, time_per_move=3 * 24 * 3600)
    (bidder,) = game.to_act
    now = game.deadline - timedelta(hours=35)
    users[bidder].digest, users[bidder].time_zone = "daily", zone_past_the_digest_hour(now)
    users[bidder].save()
    mailoutbox.clear()
    assert deadlines.sweep(now) == 0
    subjects = sorted(m.subject for m in mailoutbox)
    assert subjects == sorted([
        "[El Grande] A game waits for your move",
        f"[El Grande] Game {game.pk}, round 1: your bid (half your time is gone)",
    ])
    deadlines.sweep(now + timedelta(minutes=1))
    assert len(mailoutbox) == 2


def test_a_failing_mail_step_is_logged_and_does_not_stop_the_deadline_sweep(start_game, monkeypatch, caplog):
    from games import deadlines
    from games.models import Game

    game, reminded = start_game(3), start_game(3)
    Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(days=2))
    # A reminder due in another game: the sweep's reminders step has work, and fails.
    Game.objects.filter(pk=reminded.pk).update(
        deadline=timezone.now() + timedelta(seconds=reminded.time_per_move / 4)
    )

    def broken(now):
        raise RuntimeError("mail is broken")

    monkeypatch.setattr(reminders, "send_reminders", broken)
    assert deadlines.sweep() == 1
    assert any("the mail part of the sweep failed" in r.getMessage() for r in caplog.records)


def test_a_game_whose_players_want_no_reminder_is_passed_over_by_the_next_sweeps(
    started, mailoutbox, django_assert_max_num_queries
):
    game, users = started(3, time_per_move=3 * 24 * 3600)
    for user in users.values():
        user.notify_reminder = False
        user.save()
    mailoutbox.clear()
    reminders.send_due_reminders(game.deadline - timedelta(hours=30))
    assert mailoutbox == []
    with django_assert_max_num_queries(3):
        reminders.send_due_reminders(game.deadline - timedelta(hours=29))


def test_a_player_whose_new_address_is_not_verified_yet_gets_no_mail_at_either(started, committed, mailoutbox):
    from allauth.account.models import EmailAddress

    game, users = started(3)
    state = state_of(game)
    bidder = to_act(state)[0]
    for user in users.values():
        # The old address stays verified; the new one, now the account's, is not yet.
        user.email = f"new-{user.email}"
        user.save()
        EmailAddress.objects.create(user=user, email=user.email, verified=False)
    mailoutbox.clear()
    committed(
        moving.submit_move,
        game,
        user=users[bidder],
        move=legal_moves(state, bidder)[0],
        expected_version=game.version,
    )
    assert mailoutbox == []


def test_a_save_where_the_same_players_go_on_deciding_mails_nobody_and_asks_nothing(
    started, committed, mailoutbox, django_assert_num_queries
):
    game, users = started(3)
    state = play_until(game, users, committed, lambda s: s.phase == "card")
    game.refresh_from_db()
    with django_assert_num_queries(0):
        decisions.game_saved(game, state, previous_to_act=list(to_act(state)))


def test_a_timeout_mails_the_players_whose_decision_comes_next_and_says_nothing_of_a_start(
    started, committed, mailoutbox
):
    from games import deadlines
    from games.models import Game

    game, users = started(3)
    (late,) = game.to_act
    Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(days=2))
    mailoutbox.clear()
    assert committed(deadlines.sweep) == 1
    game.refresh_from_db()
    (next_seat,) = game.to_act
    assert next_seat != late
    assert [(m.to, m.subject) for m in mailoutbox] == [
        ([users[next_seat].email], f"[El Grande] Game {game.pk}, round 1: your bid")
    ]


def test_a_sweeps_batch_mails_the_verified_player_and_decides_the_game_of_players_without_an_address_alike(
    started, committed, mailoutbox
):
    from allauth.account.models import EmailAddress

    from games import deadlines
    from games.models import Game, MailToDecide

    unverified, _ = started(3)
    mailed, users = started(3)
    for game in (unverified, mailed):
        Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(days=2))
    # Nobody in the first game has a verified address: its mails are decided from plain rows.
    EmailAddress.objects.filter(user__seats__game=unverified).update(verified=False)
    mailoutbox.clear()
    assert committed(deadlines.sweep) == 2
    mailed.refresh_from_db()
    (next_seat,) = mailed.to_act
    assert [(m.to, m.subject) for m in mailoutbox] == [
        ([users[next_seat].email], f"[El Grande] Game {mailed.pk}, round 1: your bid")
    ]
    assert not MailToDecide.objects.filter(game__in=[unverified, mailed]).exists()
    assert not Notification.objects.filter(game=unverified).exclude(kind="game_started").exists()


def test_a_batch_whose_players_get_no_mail_reads_a_few_columns_of_their_seats_and_nothing_of_their_accounts(
    started, committed, mailoutbox
):
    from allauth.account.models import EmailAddress
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import deadlines
    from games.models import Game, MailToDecide

    games = [started(3)[0] for _ in range(2)]
    for game in games:
        Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(days=2))
    EmailAddress.objects.update(verified=False)
    mailoutbox.clear()
    with CaptureQueriesContext(connection) as queries:
        assert committed(deadlines.sweep) == 2
    seat_reads = [
        query["sql"] for query in queries
        if query["sql"].startswith("SELECT") and "games_seat" in query["sql"] and "account_emailaddress" in query["sql"]
    ]
    # One read of what decides whether anyone may be mailed, for both games; no password, name
    # or setting of any player read, and no second read for seats to mail.
    assert len(seat_reads) == 1
    assert "password" not in seat_reads[0] and "username" not in seat_reads[0]
    assert mailoutbox == []
    assert not MailToDecide.objects.filter(game__in=games).exists()
