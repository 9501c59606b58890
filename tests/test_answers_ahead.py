"""Answers given ahead: a seat's standing "allow" to every veto question, answered as its own move
after a pause drawn at random (as a player at the table would answer), told to the seat alone."""

import os
import re
import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from games import clocks, deadlines
from games.engine import to_act, visible_events
from games.infra import work
from games.models import Game, Move, Seat
from games.play import answers_ahead, expiry, moving
from games.play.errors import Conflict
from tests.support.copied_rows import made_once
from tests.support.helpers import HTMX, find_position, logged_in, row_held, snapshot, state_of, user_at
from tests.support.processes import environment, processes, start_worker  # noqa: F401

pytestmark = pytest.mark.django_db

LEAST, MOST = 3, 12


class Clock:
    """The site's time (timezone.now), moved on by the test."""

    def __init__(self):
        self.now = timezone.now()

    def advance(self, seconds):
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    moved = Clock()
    monkeypatch.setattr(timezone, "now", lambda: moved.now)
    return moved


@pytest.fixture(autouse=True)
def answers_queued(queued_work, settings):
    """(game id, due time, delay) of the answers given ahead queued during a test; none is made
    unless the test makes it (`moving.answer_ahead`, as the task does)."""
    settings.ANSWERS_AHEAD_DELAY = (LEAST, MOST)
    queued = []
    queued_work[answers_ahead.ANSWER_AHEAD] = lambda game_id, due, delay: queued.append((game_id, due, delay))
    return queued


def one_holder_asked(state):
    """A veto question asked of one holder, not the taker."""
    action = state.action
    return (
        state.phase == "special"
        and action["stage"] == "veto"
        and len(action["awaiting"]) == 1
        and action["awaiting"] != [action["taker"]]
    )


def two_holders_asked(state):
    return state.phase == "special" and state.action["stage"] == "veto" and len(state.action["awaiting"]) == 2


def counter_question_asked(state):
    return state.phase == "special" and state.action["stage"] == "counter_veto"


def just_before(start_game, predicate, num_players=4):
    """A game one move before `predicate` holds: (game, that last move as (seat, move), the seats
    the question is asked of)."""
    seed, history = find_position(predicate, num_players, seeds=range(1, 400))

    def build():
        game = start_game(num_players, seed=seed)
        for seat, move in history[:-1]:
            moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
            game.refresh_from_db()
        return game

    # Built once per test process and copied into the later tests that start where it started
    # (tests/support/copied_rows.py): the fifty to a hundred and fifty moves through the services
    # were most of this file's processor time (bench/README.md).
    game = made_once(("answers ahead: just before", predicate, num_players), build)
    state = state_of(game)
    from games.engine import apply_move

    asked = apply_move(state, *history[-1]).action["awaiting"]
    return game, history[-1], asked


def ask(game, last):
    seat, move = last
    moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
    game.refresh_from_db()


def answer_when_due(game, clock):
    """What the queued task does once the pause is over: answers, as it would at its time."""
    game.refresh_from_db()
    clock.now = game.answers_ahead_due
    answered = moving.answer_ahead(game.pk, game.answers_ahead_due.timestamp())
    game.refresh_from_db()
    return answered


def waiting_for(html):
    """The names in the pending action's "Waiting for ..." line."""
    return re.search(r"Waiting for (.*?)\.\s", html, re.S).group(1)


def set_ahead(game, seat, on):
    return moving.set_answers_ahead(game, user=user_at(game, seat), on=on, seat_index=seat)


def play_html(game, seat):
    response = logged_in(user_at(game, seat)).get(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def test_a_question_of_one_holder_answered_ahead_waits_a_pause_then_passes_and_his_log_says_so(
    start_game, clock, answers_queued, django_capture_on_commit_callbacks
):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    other = next(seat for seat in range(game.num_players) if seat not in (holder, last[0]))
    set_ahead(game, holder, True)
    before = game.version
    with django_capture_on_commit_callbacks(execute=True):
        ask(game, last)
    # Saved with the question open: the others see it wait for him, as for any holder.
    assert game.version == before + 1
    assert game.to_act == [holder] and to_act(state_of(game)) == [holder]
    assert user_at(game, holder).username in waiting_for(play_html(game, other))
    # Answered after a pause drawn between the bounds, by a task queued for then.
    assert LEAST <= (game.answers_ahead_due - clock.now).total_seconds() <= MOST
    [(game_id, due, delay)] = answers_queued
    assert (game_id, due) == (game.pk, game.answers_ahead_due.timestamp())
    assert delay == pytest.approx((game.answers_ahead_due - clock.now).total_seconds())
    # Not before its time: a task run early queues itself again, for the time left.
    clock.advance(LEAST - 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert not moving.answer_ahead(game.pk, due)
    assert game.version == Game.objects.get(pk=game.pk).version
    assert answers_queued[1][:2] == (game.pk, due)
    assert answers_queued[1][2] == pytest.approx(delay - (LEAST - 1))
    # A task of another due time (the question's before, say) does nothing, even once that is due.
    clock.now = game.answers_ahead_due
    assert not moving.answer_ahead(game.pk, due - 1)
    game.refresh_from_db()
    assert game.to_act == [holder]
    clock.advance(-1)
    assert answer_when_due(game, clock)
    assert holder not in game.to_act and game.answers_ahead_due is None
    assert game.version == before + 2
    answer = Move.objects.get(game=game, version=game.version)
    assert (answer.seat.index, answer.move, answer.automatic) == (holder, {"type": "allow"}, False)
    assert any(event["event"] == "allowed" for event in answer.events)
    assert "allows (answered ahead)" in play_html(game, holder)
    assert "answered ahead" not in play_html(game, other)


def test_taken_back_the_next_question_waits_for_the_holder(start_game):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    set_ahead(game, holder, True)
    set_ahead(game, holder, False)
    assert not Seat.objects.get(game=game, index=holder).answers_ahead
    ask(game, last)
    assert game.to_act == [holder]
    assert to_act(state_of(game)) == [holder]


def test_taken_back_before_its_time_the_question_waits_for_the_holder(
    start_game, clock, answers_queued, django_capture_on_commit_callbacks
):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    set_ahead(game, holder, True)
    with django_capture_on_commit_callbacks(execute=True):
        ask(game, last)
    version, due = game.version, game.answers_ahead_due
    assert due is not None and answers_queued
    set_ahead(game, holder, False)
    game.refresh_from_db()
    # Nothing the others see changes: no version, the same deadline; only the due time goes.
    assert game.version == version and game.answers_ahead_due is None
    clock.now = due + timedelta(seconds=1)
    assert not moving.answer_ahead(game.pk)
    deadlines.sweep()
    game.refresh_from_db()
    assert game.version == version and game.to_act == [holder]
    assert not Move.objects.filter(game=game, version__gt=version).exists()


def test_set_while_the_question_waits_it_is_answered_after_the_pause(
    start_game, clock, answers_queued, django_capture_on_commit_callbacks
):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    ask(game, last)
    assert game.to_act == [holder] and game.answers_ahead_due is None
    version, deadline = game.version, game.deadline
    with django_capture_on_commit_callbacks(execute=True):
        set_ahead(game, holder, True)
    game.refresh_from_db()
    assert (game.version, game.deadline, game.to_act) == (version, deadline, [holder])
    assert LEAST <= (game.answers_ahead_due - clock.now).total_seconds() <= MOST
    assert [(game_id, due) for game_id, due, _ in answers_queued] == [(game.pk, game.answers_ahead_due.timestamp())]
    assert answer_when_due(game, clock)
    assert holder not in game.to_act
    answer = Move.objects.get(game=game, version=game.version)
    assert answer.move == {"type": "allow"} and answer.events[0]["event"] == "answered_ahead"


def test_a_lost_task_is_made_good_by_the_sweep_once_the_time_has_come(start_game, clock):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    set_ahead(game, holder, True)
    ask(game, last)  # its task is never run
    version, due = game.version, game.answers_ahead_due
    clock.now = due - timedelta(seconds=1)
    deadlines.sweep()
    game.refresh_from_db()
    assert game.version == version and game.to_act == [holder]
    clock.now = due + timedelta(seconds=1)
    deadlines.sweep()
    game.refresh_from_db()
    assert game.version == version + 1 and holder not in game.to_act and game.answers_ahead_due is None
    assert Move.objects.get(game=game, version=game.version).events[0]["event"] == "answered_ahead"
    # The task, late, and the next sweep find nothing due: one answer.
    assert not moving.answer_ahead(game.pk)
    deadlines.sweep()
    game.refresh_from_db()
    assert game.version == version + 1
    assert Move.objects.filter(game=game, seat__index=holder, version__gt=version).count() == 1


def test_the_pause_is_drawn_anew_for_each_question_not_from_the_games_seed(start_game, clock):
    pauses = []
    for _ in range(2):
        game, last, asked = just_before(start_game, one_holder_asked)
        set_ahead(game, asked[0], True)
        ask(game, last)
        pauses.append(game.answers_ahead_due - clock.now)
    # The same game (its seed, its moves) twice: two pauses.
    assert pauses[0] != pauses[1]


def test_two_holders_answering_ahead_each_wait_a_pause_of_their_own(start_game, clock):
    game, last, asked = just_before(start_game, two_holders_asked)
    for seat in asked:
        set_ahead(game, seat, True)
    before = game.version
    ask(game, last)
    assert sorted(game.to_act) == sorted(asked)
    deadline = game.deadline
    assert answer_when_due(game, clock)
    first = Move.objects.get(game=game, version=before + 2).seat.index
    # The second is still asked, with the question's deadline, and a pause of its own from now.
    assert game.to_act == [seat for seat in asked if seat != first] and game.deadline == deadline
    assert LEAST <= (game.answers_ahead_due - clock.now).total_seconds() <= MOST
    assert not moving.answer_ahead(game.pk)
    assert answer_when_due(game, clock)
    assert game.version == before + 3
    assert {Move.objects.get(game=game, version=v).seat.index for v in (before + 2, before + 3)} == set(asked)


def test_answered_by_hand_before_its_time_nothing_more_is_answered(start_game, clock):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    set_ahead(game, holder, True)
    ask(game, last)
    due = game.answers_ahead_due
    moving.submit_move(game, user=user_at(game, holder), move={"type": "allow"}, expected_version=game.version)
    game.refresh_from_db()
    version = game.version
    assert game.answers_ahead_due is None or game.answers_ahead_due != due
    clock.now = due + timedelta(seconds=1)
    moving.answer_ahead(game.pk)
    game.refresh_from_db()
    assert game.version == version
    assert not Move.objects.filter(game=game, version=version, events__0__event="answered_ahead").exists()


def test_the_holder_answering_ahead_gets_no_your_move_mail_for_the_question(
    start_game, django_capture_on_commit_callbacks
):
    from games.models import Notification

    game, last, asked = just_before(start_game, one_holder_asked)
    holder, twin_holder = asked[0], None
    twin, twin_last, twin_asked = just_before(start_game, one_holder_asked)
    twin_holder = twin_asked[0]
    set_ahead(game, holder, True)
    with django_capture_on_commit_callbacks(execute=True):
        ask(game, last)
        ask(twin, twin_last)
    mails = Notification.objects.filter(kind="your_move")
    assert mails.filter(game=twin, version=twin.version, user=user_at(twin, twin_holder)).exists()
    assert not mails.filter(game=game, user=user_at(game, holder), version=game.version).exists()


def test_a_veto_on_veto_question_is_not_answered_ahead(start_game):
    game, last, asked = just_before(start_game, counter_question_asked)
    for seat in asked:
        set_ahead(game, seat, True)
    snapshot_before = game.version
    ask(game, last)
    assert game.version == snapshot_before + 1
    assert state_of(game).action["stage"] == "counter_veto"
    assert sorted(game.to_act) == sorted(asked)


def test_another_seat_learns_nothing_of_the_setting_before_or_after_the_answer(start_game, clock):
    game, last, asked = just_before(start_game, two_holders_asked)
    ahead, other = asked
    version = game.version
    play_html(game, other)  # the first look marks what is new and moves the seat's seen version
    cache.clear()
    seen_before = play_html(game, other)
    page_before = logged_in(user_at(game, other)).get(reverse("game", args=[game.pk])).content.decode()
    set_ahead(game, ahead, True)
    game.refresh_from_db()
    # Nothing of the game changed: no new version for the pages to hear of.
    assert game.version == version
    cache.clear()
    assert _without_csrf(play_html(game, other)) == _without_csrf(seen_before)
    page_after = logged_in(user_at(game, other)).get(reverse("game", args=[game.pk])).content.decode()
    assert _without_csrf(page_after) == _without_csrf(page_before)
    # His own page shows it.
    assert "Take it back" in play_html(game, ahead)

    ask(game, last)
    # The question waits for both, as it would for two players answering by hand; the due time
    # of the answer given ahead changes nothing on the other's page (nor its deadline).
    assert sorted(game.to_act) == sorted(asked) and game.answers_ahead_due is not None
    play_html(game, other)  # the first look at the new position marks what is new
    cache.clear()
    waiting_play, waiting_page = play_html(game, other), logged_in(user_at(game, other)).get(
        reverse("game", args=[game.pk])).content.decode()
    assert user_at(game, ahead).username in waiting_for(waiting_play)
    Game.objects.filter(pk=game.pk).update(answers_ahead_due=None)
    cache.clear()
    assert _without_csrf(play_html(game, other)) == _without_csrf(waiting_play)
    assert _without_csrf(logged_in(user_at(game, other)).get(
        reverse("game", args=[game.pk])).content.decode()) == _without_csrf(waiting_page)
    Game.objects.filter(pk=game.pk).update(answers_ahead_due=timezone.now())
    assert moving.answer_ahead(game.pk)
    game.refresh_from_db()
    assert game.to_act == [other]
    answer = Move.objects.get(game=game, version=game.version)
    assert answer.seat.index == ahead and not answer.automatic
    # To the other holder, still to answer, the answer is one of a player who answered, no more.
    assert visible_events(answer.events, other) == []
    assert visible_events(answer.events, None) == []
    for html in (play_html(game, other), _spectator_html(game)):
        assert "answered ahead" not in html and "Take it back" not in html


def test_the_others_see_what_a_prompt_allow_shows(start_game):
    """The same question answered ahead and by hand: every other seat sees the same events."""
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    twin, twin_last, _ = just_before(start_game, one_holder_asked)
    set_ahead(game, holder, True)
    ask(game, last)
    Game.objects.filter(pk=game.pk).update(answers_ahead_due=timezone.now())
    assert moving.answer_ahead(game.pk)
    game.refresh_from_db()
    ask(twin, twin_last)
    moving.submit_move(twin, user=user_at(twin, holder), move={"type": "allow"}, expected_version=twin.version)
    twin.refresh_from_db()
    assert game.version == twin.version and game.state == twin.state
    for seat in range(game.num_players):
        if seat == holder:
            continue
        ours = [(m.automatic, visible_events(m.events, seat)) for m in game.moves.order_by("version")]
        theirs = [(m.automatic, visible_events(m.events, seat)) for m in twin.moves.order_by("version")]
        assert ours == theirs


def _spectator_html(game):
    from django.test import Client

    return Client().get(reverse("game_partial", args=[game.pk, "play"]), **HTMX).content.decode()


def _without_csrf(html):
    import re

    # The CSRF token is masked anew for every response (form fields and htmx headers).
    return re.sub(r"\b[A-Za-z0-9]{64}\b", "csrf-token", html)


def test_a_post_for_another_seat_is_refused_and_changes_nothing(start_game):
    game = start_game(3)
    client = logged_in(user_at(game, 0))
    before = snapshot(game)
    response = client.post(reverse("answers_ahead", args=[game.pk]), {"on": "1", "seat": "1"}, follow=True)
    assert "You can only act for your own seat." in response.content.decode()
    assert not Seat.objects.filter(game=game, answers_ahead=True).exists()
    assert snapshot(game) == before


def test_a_post_of_someone_without_a_seat_or_unreadable_is_refused(start_game, make_user):
    game = start_game(3)
    stranger = logged_in(make_user())
    response = stranger.post(reverse("answers_ahead", args=[game.pk]), {"on": "1", "seat": "0"}, follow=True)
    assert "You have no seat in this game." in response.content.decode()
    mine = logged_in(user_at(game, 0))
    response = mine.post(reverse("answers_ahead", args=[game.pk]), {"on": "yes", "seat": "0"}, follow=True)
    assert "This form could not be read" in response.content.decode()
    assert not Seat.objects.filter(game=game, answers_ahead=True).exists()


def test_a_finished_game_or_one_without_veto_cards_refuses_it(start_game):
    game = start_game(3)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    client = logged_in(user_at(game, 0))
    response = client.post(reverse("answers_ahead", args=[game.pk]), {"on": "1", "seat": "0"}, follow=True)
    assert "Only a running game takes answers given ahead." in response.content.decode()
    plain = start_game(3, veto=False)
    with pytest.raises(Conflict):
        set_ahead(plain, 0, True)
    assert not Seat.objects.filter(answers_ahead=True).exists()


def test_the_form_sets_it_and_takes_it_back(start_game):
    game = start_game(3)
    client = logged_in(user_at(game, 0))
    assert "Allow every veto question until I say otherwise" in play_html(game, 0)
    client.post(reverse("answers_ahead", args=[game.pk]), {"on": "1", "seat": "0"})
    assert Seat.objects.get(game=game, index=0).answers_ahead
    assert "Take it back" in play_html(game, 0)
    client.post(reverse("answers_ahead", args=[game.pk]), {"on": "0", "seat": "0"})
    assert not Seat.objects.get(game=game, index=0).answers_ahead


def test_the_seats_standing_offers_come_after_its_decision_and_the_setting_on_before_it(start_game):
    """The two offers with an "I am sure" tick each (the computer to play the seat, every veto
    question allowed ahead) follow the seat's decision, each in its own row: above it, two alike
    ticks stood between the player and the decision. The setting once on says so above it."""
    game = start_game(3)
    html = play_html(game, 0)
    decision = html.index('id="decision"')
    assert decision < html.index('class="seat-options"') < html.index('class="autopilot-offer"')
    assert html.index('class="autopilot-offer"') < html.index('class="answers-ahead"')
    assert html.count("I am sure") == 2
    logged_in(user_at(game, 0)).post(reverse("answers_ahead", args=[game.pk]), {"on": "1", "seat": "0"})
    html = play_html(game, 0)
    assert html.index("Take it back") < html.index('id="decision"') < html.index('class="autopilot-offer"')
    assert "Allow every veto question until I say otherwise" not in html and html.count("I am sure") == 1


def test_a_move_with_its_seats_loaded_before_the_setting_changed_reads_it_anew(start_game):
    """The move's path loads the seats before it locks the game, and the setting changes no
    version: taken back meanwhile, the question waits for the holder alone; set meanwhile, it is
    answered after its pause."""
    for on in (False, True):
        game, (seat, move), asked = just_before(start_game, one_holder_asked)
        holder = asked[0]
        set_ahead(game, holder, not on)
        game = Game.objects.get(pk=game.pk)
        seats = list(clocks.with_vacation_hint(game.seats.all(), timezone.now()))  # as game_for_move
        set_ahead(game, holder, on)
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version, seats=seats)
        game.refresh_from_db()
        assert game.to_act == [holder]
        assert (game.answers_ahead_due is not None) is on
        Game.objects.filter(pk=game.pk).update(answers_ahead_due=timezone.now())
        assert moving.answer_ahead(game.pk) is on
        game.refresh_from_db()
        assert (holder in game.to_act) is not on


def test_a_question_asked_by_a_move_the_deadline_made_is_answered_ahead_too(start_game, monkeypatch, clock):
    """The deadline sweep's path: the late seat's default move asks the question (here the move of
    the line found, in place of a random one), saved open with its due time, and the holder's answer
    follows after its pause."""
    game, (seat, move), asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    set_ahead(game, holder, True)
    default = expiry.default_move
    monkeypatch.setattr(
        expiry, "default_move", lambda state, **given: move if given["seat"] == seat else default(state, **given)
    )
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    before = game.version
    assert expiry.apply_default_moves(game.pk, version=game.version)
    game.refresh_from_db()
    assert game.to_act == [holder] and LEAST <= (game.answers_ahead_due - clock.now).total_seconds() <= MOST
    assert answer_when_due(game, clock)
    asking, answer = Move.objects.filter(game=game, version__in=[before + 1, before + 2]).order_by("version")
    assert (asking.seat.index, asking.automatic) == (seat, True)
    assert (answer.seat.index, answer.move, answer.automatic) == (holder, {"type": "allow"}, False)
    assert answer.events[0] == {"event": "answered_ahead", "seat": holder, "round": answer.events[0]["round"],
                                "private": True}
    assert holder not in game.to_act


def test_a_deadline_that_passes_before_the_pause_is_over_is_his_own_answer_not_a_timeout(start_game, clock):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    ask(game, last)
    set_ahead(game, holder, True)
    game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(deadline=clock.now - timedelta(seconds=1))
    before = game.version
    assert expiry.apply_default_moves(game.pk, version=game.version)
    answer = Move.objects.get(game=game, version=before + 1)
    assert (answer.seat.index, answer.move, answer.automatic) == (holder, {"type": "allow"}, False)
    assert answer.events[0]["event"] == "answered_ahead"
    assert Seat.objects.get(game=game, index=holder).timeouts == 0


@pytest.mark.django_db(transaction=True)
def test_the_embedded_worker_answers_once_the_pause_is_over(start_game, settings, queued_work):
    """The task itself, queued on the commit of the asking move, run by the embedded worker."""
    settings.REDIS_URL = ""
    answered_by_the_queue(start_game, settings, queued_work)
    assert work.embedded_worker(answers_ahead.ANSWER_AHEAD).idle.wait(10)


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
    reason="a real Celery worker needs REDIS_URL and a PostgreSQL DATABASE_URL (CI sets both)",
)
@pytest.mark.django_db(transaction=True)
def test_a_celery_worker_answers_once_the_pause_is_over(start_game, settings, queued_work, processes, tmp_path):  # noqa: F811
    worker = start_worker(processes, tmp_path, "ahead", environment())
    answered_by_the_queue(start_game, settings, queued_work)
    assert "Traceback" not in worker.output()


def answered_by_the_queue(start_game, settings, queued_work):
    settings.ANSWERS_AHEAD_DELAY = (0.3, 0.6)
    del queued_work[answers_ahead.ANSWER_AHEAD]
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    set_ahead(game, holder, True)
    asked_at = time.monotonic()
    ask(game, last)
    assert game.to_act == [holder]
    while holder in game.to_act and time.monotonic() < asked_at + 10:
        time.sleep(0.02)
        game.refresh_from_db()
    answered_after = time.monotonic() - asked_at
    assert holder not in game.to_act and answered_after >= 0.3
    answer = Move.objects.get(game=game, seat__index=holder, move={"type": "allow"})
    assert answer.events[0]["event"] == "answered_ahead" and game.answers_ahead_due is None


def test_the_setting_made_again_while_an_answer_is_due_does_not_put_it_off(start_game, clock):
    game, last, asked = just_before(start_game, two_holders_asked)
    first, second = asked
    set_ahead(game, first, True)
    ask(game, last)
    due = game.answers_ahead_due
    clock.advance(1)
    set_ahead(game, first, True)
    set_ahead(game, second, True)
    set_ahead(game, second, False)
    game.refresh_from_db()
    assert game.answers_ahead_due == due


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks that others skip need PostgreSQL")
def test_the_sweep_skips_an_answer_due_in_a_game_another_transaction_holds(start_game):
    game, last, asked = just_before(start_game, one_holder_asked)
    set_ahead(game, asked[0], True)
    ask(game, last)
    Game.objects.filter(pk=game.pk).update(answers_ahead_due=timezone.now() - timedelta(seconds=1))
    with row_held(game):
        started = time.monotonic()
        assert moving.answer_overdue_ahead(timezone.now()) == 0
        assert time.monotonic() - started < 2
    assert moving.answer_overdue_ahead(timezone.now()) == 1
    game.refresh_from_db()
    assert asked[0] not in game.to_act


def test_an_answer_given_ahead_ends_a_run_of_timeouts_as_a_move_of_his_own(start_game, clock):
    """Timed out once, then his answer given ahead, then timed out again: not two in a row."""
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    Seat.objects.filter(game=game, index=holder).update(timeouts=1)
    ask(game, last)
    set_ahead(game, holder, True)
    assert answer_when_due(game, clock)
    assert Seat.objects.get(game=game, index=holder).timeouts == 0


def test_an_answer_given_ahead_by_the_sweep_ends_a_run_of_timeouts_too(start_game, clock):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    Seat.objects.filter(game=game, index=holder).update(timeouts=1)
    ask(game, last)
    set_ahead(game, holder, True)
    game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(deadline=clock.now - timedelta(seconds=1))
    assert expiry.apply_default_moves(game.pk, version=game.version)
    assert Seat.objects.get(game=game, index=holder).timeouts == 0
