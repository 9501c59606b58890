import threading
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from games import services, tasks
from games.engine import apply_move, legal_moves, to_act
from games.models import Game, Move
from games.tasks import schedule_deadline
from tests.helpers import snapshot, state_of, user_at

pytestmark = pytest.mark.django_db


def overdue(game):
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    game.refresh_from_db()
    return game


def test_an_expired_decision_gets_a_default_move(start_game):
    game = overdue(start_game(3))
    seat, version = game.to_act[0], game.version
    assert tasks.expire_deadline(game.pk, version) is True
    game.refresh_from_db()
    [move] = Move.objects.filter(game=game)
    assert move.automatic and move.seat.index == seat
    assert move.move in legal_moves(services.replay(game, upto=version), seat)
    assert game.version == version + 1
    assert services.replay(game).to_json() == game.state


def test_expiry_does_nothing_once_the_game_moved_on(start_game):
    game = overdue(start_game(3))
    version = game.version
    services.submit_move(game, user_at(game, game.to_act[0]), {"type": "bid", "card": 5}, version)
    game = overdue(game)
    state = game.state
    assert tasks.expire_deadline(game.pk, version) is False
    game.refresh_from_db()
    assert game.state == state and game.version == version + 1


def test_expiry_is_safe_to_run_twice(start_game):
    game = overdue(start_game(3))
    version = game.version
    assert tasks.expire_deadline(game.pk, version) is True
    game.refresh_from_db()
    after_first = (game.version, game.state)
    assert tasks.expire_deadline(game.pk, version) is False
    game.refresh_from_db()
    assert (game.version, game.state) == after_first
    assert Move.objects.filter(game=game).count() == 1


def test_an_early_wake_up_changes_nothing_and_waits_again(
    start_game, scheduled_deadlines, django_capture_on_commit_callbacks
):
    game = start_game(3)
    version = game.version
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.expire_deadline(game.pk, version) is False
    game.refresh_from_db()
    assert game.version == version and not Move.objects.filter(game=game).exists()
    assert scheduled_deadlines[-1] == (game.pk, version, game.deadline)


def test_a_finished_or_missing_game_is_left_alone(start_game):
    assert tasks.expire_deadline(424242, 1) is False
    game = overdue(start_game(2))
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    before = snapshot(game)
    assert tasks.expire_deadline(game.pk, game.version) is False
    assert snapshot(game) == before


def test_an_unanswered_veto_window_is_taken_as_allowed(game_at):
    def veto_window_open(state):
        return any({"type": "allow"} in legal_moves(state, seat) for seat in to_act(state))

    game = overdue(game_at(veto_window_open, num_players=4))
    holders = [s for s in game.to_act if {"type": "allow"} in legal_moves(state_of(game), s)]
    assert tasks.expire_deadline(game.pk, game.version)
    moves = {m.seat.index: m.move for m in Move.objects.filter(game=game, automatic=True)}
    for seat in holders:
        assert moves[seat] == {"type": "allow"}


def test_every_seat_still_to_act_in_a_simultaneous_choice_gets_a_default_move(game_at):
    game = overdue(game_at(lambda state: len(to_act(state)) >= 2, num_players=4))
    waiting = list(game.to_act)
    assert tasks.expire_deadline(game.pk, game.version)
    automatic = Move.objects.filter(game=game, automatic=True).order_by("version")
    assert [m.seat.index for m in automatic] == waiting
    game.refresh_from_db()
    assert services.replay(game).to_json() == game.state


def test_the_others_in_a_simultaneous_choice_keep_their_running_deadline(game_at):
    game = game_at(lambda state: len(to_act(state)) >= 2, num_players=4)
    deadline = game.deadline
    first = game.to_act[0]
    state = state_of(game)
    move = legal_moves(state, first)[0]
    services.submit_move(game, user_at(game, first), move, game.version)
    game.refresh_from_db()
    assert set(game.to_act) < set(to_act(state))
    assert game.deadline == deadline


def test_a_new_decision_gets_the_full_time_per_move(start_game):
    game = start_game(3, time_per_move=300)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + timedelta(seconds=10))
    game.refresh_from_db()
    services.submit_move(game, user_at(game, game.to_act[0]), {"type": "bid", "card": 5}, game.version)
    game.refresh_from_db()
    assert timedelta(seconds=290) < game.deadline - timezone.now() <= timedelta(seconds=300)


def test_with_redis_the_deadline_is_a_celery_countdown(settings, monkeypatch):
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    queued = []
    monkeypatch.setattr(tasks.expire_deadline, "apply_async", lambda args, countdown: queued.append((args, countdown)))
    schedule_deadline(7, 3, timezone.now() + timedelta(minutes=2))
    [(args, countdown)] = queued
    assert args == (7, 3)
    assert 115 < countdown <= 120


@pytest.mark.django_db(transaction=True)
def test_embedded_the_deadline_fires_in_the_web_process(start_game, settings):
    settings.REDIS_URL = ""
    game = start_game(3)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + timedelta(seconds=0.3))
    game.refresh_from_db()
    version = game.version
    schedule_deadline(game.pk, version, game.deadline)
    for _ in range(50):
        time.sleep(0.1)
        if Move.objects.filter(game=game, automatic=True).exists():
            break
    game.refresh_from_db()
    assert Move.objects.filter(game=game, automatic=True).count() == 1
    assert game.version == version + 1


def test_the_catch_up_command_moves_every_overdue_game(start_game):
    late, early = overdue(start_game(3)), start_game(3)
    out = StringIO()
    call_command("expire_deadlines", stdout=out)
    assert "1 game(s)" in out.getvalue()
    assert Move.objects.filter(game=late, automatic=True).exists()
    assert not Move.objects.filter(game=early).exists()


def test_the_embedded_scheduler_runs_expiries_in_deadline_order_despite_failures(monkeypatch):
    ran = []
    done = threading.Event()

    def expire(game_id, version):
        ran.append(game_id)
        if game_id == 2:
            raise RuntimeError("this expiry fails")
        if len(ran) == 3:
            done.set()

    monkeypatch.setattr(tasks, "expire_deadline", expire)
    scheduler = tasks.EmbeddedScheduler()
    scheduler.add(0.3, 3, 1)
    scheduler.add(0.1, 1, 1)
    scheduler.add(0.2, 2, 1)
    assert done.wait(5)
    assert ran == [1, 2, 3]


def test_a_long_deadline_is_queued_in_steps_no_longer_than_the_broker_keeps_a_message(settings, monkeypatch):
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    queued = []
    monkeypatch.setattr(tasks.expire_deadline, "apply_async", lambda args, countdown: queued.append(countdown))
    schedule_deadline(7, 3, timezone.now() + timedelta(days=7))
    assert queued == [tasks.MAX_COUNTDOWN]
    assert tasks.MAX_COUNTDOWN < settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]


def test_a_late_players_whole_turn_is_played_out_at_one_deadline(game_at):
    game = overdue(game_at(lambda state: state.phase == "court", num_players=3))
    before = state_of(game)
    seat = before.current_player
    assert tasks.expire_deadline(game.pk, game.version)
    game.refresh_from_db()
    state = state_of(game)
    automatic = list(Move.objects.filter(game=game, automatic=True).order_by("version"))
    assert {m.seat.index for m in automatic} == {seat}
    assert automatic[0].move["type"] == "court"
    # The court move, a card (the seat chooses first, among every card on offer, so this is a
    # real choice, not the last card taken for it) and the action's two parts, in either order.
    assert before.taken == [None] * before.num_players and len(before.display) > 1
    types = [m.move["type"] for m in automatic]
    assert types[:2] == ["court", "take_card"] and sorted(types[2:]) == ["place", "special"]
    assert not (state.round == before.round and state.current_player == seat and seat in to_act(state))
    assert services.replay(game).to_json() == game.state
    # Each of these moves is stored with the events it made, not the last one's.
    replayed = services.replay(game, upto=automatic[0].version - 1)
    for stored in automatic:
        replayed = apply_move(replayed, seat, stored.move)
        assert stored.events == replayed.events and stored.round == replayed.round
    assert [m.events[0]["event"] for m in automatic[:2]] == ["court", "take_card"]


def test_resuming_queues_the_deadline_of_every_running_game(start_game, scheduled_deadlines, make_user):
    running = start_game(3)
    finished = start_game(2)
    Game.objects.filter(pk=finished.pk).update(status=Game.Status.FINISHED)
    services.create_game(make_user(), num_players=4)  # open: no deadline yet
    scheduled_deadlines.clear()
    tasks.resume_deadlines()
    assert scheduled_deadlines == [(running.pk, running.version, running.deadline)]


def test_the_served_site_resumes_deadlines_once_on_its_first_http_request(monkeypatch):
    import asyncio

    from elgrande_site.asgi import ResumeDeadlinesOnFirstRequest

    resumed, served = [], []

    async def app(scope, receive, send):
        served.append(scope["type"])

    monkeypatch.setattr("elgrande_site.asgi.resume_deadlines", lambda: resumed.append(True))
    wrapped = ResumeDeadlinesOnFirstRequest(app)
    for kind in ("websocket", "http", "http"):
        asyncio.run(wrapped({"type": kind}, None, None))
    assert resumed == [True]
    assert served == ["websocket", "http", "http"]
