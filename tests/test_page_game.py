"""The running game's page reads its game, seats and players by SELECTs written out
(games/reading/page_game.py): it must give what `selectors.viewable_game(request, pk, defer=LARGE)`
gives, the reader's chat marks and the 404 of a game the reader may not see included; and the play
partial's `selectors.game_for_play` what the ORM's query of it gave, without the chat marks."""

from datetime import UTC, timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.db.models import Prefetch
from django.http import Http404
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Block, Vacation
from games import clocks
from games.access import game_or_404
from games.models import ChatMute, Game, Seat
from games.reading.page_game import LARGE, load_large, log_moves, viewable_page_game
from games.reading.selectors import game_for_play, vacation_spans, viewable_game
from tests.support.helpers import logged_in, play, user_at

pytestmark = pytest.mark.django_db


def request_of(user):
    request = RequestFactory().get("/")
    request.user, request.session = user, {}
    return request


def seen(game, marks=("muted", "blocked")):
    fields = {field.attname: getattr(game, field.attname) for field in game._meta.concrete_fields
              if field.name not in LARGE}
    seats = [
        ({field.attname: getattr(seat, field.attname) for field in seat._meta.concrete_fields},
         seat.user.pk if seat.user else None, seat.user.username if seat.user else None,
         *(getattr(seat, mark) for mark in marks), seat.game is game)
        for seat in game.seats.all()
    ]
    return fields, seats, sorted(game.get_deferred_fields())


def orm_game_for_play(request, pk):
    """The play partial's game as the ORM read it before the SELECT was written out."""
    seats = clocks.with_vacation_hint(Seat.objects.select_related("user"), timezone.now())
    return game_or_404(request, Game.objects.defer(*LARGE).prefetch_related(Prefetch("seats", queryset=seats)), pk)


def test_the_page_reads_what_viewable_game_reads(start_game, make_user):
    game = start_game(4)
    reader, muted, blocked = (user_at(game, index) for index in (0, 1, 2))
    ChatMute.objects.create(user=reader, muted_user=muted)
    Block.objects.create(blocker=reader, blocked=blocked)
    # Another reader's mutes are not this one's.
    ChatMute.objects.create(user=make_user(), muted_user=user_at(game, 3))
    for user in (reader, muted, make_user(), AnonymousUser()):
        request = request_of(user)
        expected = seen(viewable_game(request, game.pk, defer=LARGE))
        assert seen(viewable_page_game(request, game.pk)) == expected
    marks = [(seat[3], seat[4]) for seat in seen(viewable_page_game(request_of(reader), game.pk))[1]]
    assert marks == [(False, False), (True, False), (False, True), (False, False)]
    # The seats as read: no further query to list them or their players.
    page_game = viewable_page_game(request_of(reader), game.pk)
    with CaptureQueriesContext(connection) as captured:
        [seat.user.username for seat in page_game.seats.all()]
    assert len(captured) == 0


def test_a_private_game_or_none_is_not_found(start_game, make_user):
    game = start_game(3, private=True)
    with pytest.raises(Http404):
        viewable_page_game(request_of(make_user()), game.pk)
    with pytest.raises(Http404):
        viewable_page_game(request_of(AnonymousUser()), game.pk)
    assert viewable_page_game(request_of(user_at(game, 1)), game.pk).pk == game.pk
    with pytest.raises(Http404):
        viewable_page_game(request_of(user_at(game, 1)), game.pk + 1000)
    assert logged_in(make_user()).get(reverse("game", args=[game.pk])).status_code == 404


def test_only_a_player_who_may_be_away_is_asked_about_vacations(clock, start_game):
    """`maybe_away` as clocks.with_vacation_hint has it, so the page's vacations are read only for
    those players, and the spans are the same as when every player is asked."""
    game = start_game(3, time_per_move=3 * 86400)
    away = user_at(game, 1)
    today = timezone.now().astimezone(UTC).date()
    Vacation.objects.create(user=away, start=today, end=today + timedelta(days=2))
    Vacation.objects.create(user=user_at(game, 2), start=today + timedelta(days=5), end=today + timedelta(days=6))
    page_game = viewable_page_game(request_of(AnonymousUser()), game.pk)
    hinted = clocks.with_vacation_hint(Seat.objects.filter(game=game), timezone.now())
    hinted = {seat.pk: seat.maybe_away for seat in hinted}
    assert {seat.pk: seat.maybe_away for seat in page_game.seats.all()} == hinted
    assert [seat.maybe_away for seat in page_game.seats.all()] == [False, True, False]
    seats = list(page_game.seats.all())
    assert game.clocks_stop_for_vacations
    everyone = clocks.vacation_spans([seat.user for seat in seats], timezone.now())
    assert vacation_spans(page_game, seats) == everyone and away.pk in everyone


def test_the_play_partial_reads_what_the_orm_read(clock, start_game, make_user):
    """`game_for_play`: the same game, seats, players and `maybe_away` as the ORM's query, no chat
    marks (only the chat reads them), no query to list the seats, and the same 404s."""
    game = start_game(3, time_per_move=3 * 86400)
    today = timezone.now().astimezone(UTC).date()
    Vacation.objects.create(user=user_at(game, 1), start=today, end=today + timedelta(days=2))
    ChatMute.objects.create(user=user_at(game, 0), muted_user=user_at(game, 2))
    for user in (user_at(game, 0), user_at(game, 1), make_user(), AnonymousUser()):
        request = request_of(user)
        read = game_for_play(request, game.pk)
        assert seen(read, marks=("maybe_away",)) == seen(orm_game_for_play(request, game.pk), marks=("maybe_away",))
        assert [seat.maybe_away for seat in read.seats.all()] == [False, True, False]
        assert not any(hasattr(seat, "muted") or hasattr(seat, "blocked") for seat in read.seats.all())
        with CaptureQueriesContext(connection) as captured:
            [seat.user.username for seat in read.seats.all()]
        assert len(captured) == 0
    private = start_game(3, private=True)
    for user in (make_user(), AnonymousUser()):
        with pytest.raises(Http404):
            game_for_play(request_of(user), private.pk)
    assert game_for_play(request_of(user_at(private, 2)), private.pk).pk == private.pk
    with pytest.raises(Http404):
        game_for_play(request_of(user_at(game, 0)), game.pk + 1000)


def test_the_large_columns_read_later_are_what_the_orm_reads(start_game, make_user):
    """`load_large`: a game read without its state and first events gets them as
    refresh_from_db(fields=LARGE) does, with nothing left deferred; a game gone since is no game."""
    game = start_game(3)
    for user in (user_at(game, 0), AnonymousUser()):
        read, orm = game_for_play(request_of(user), game.pk), game_for_play(request_of(user), game.pk)
        assert sorted(read.get_deferred_fields()) == sorted(LARGE)
        load_large(read)
        orm.refresh_from_db(fields=LARGE)
        assert read.get_deferred_fields() == set() == orm.get_deferred_fields()
        assert (read.state, read.first_events) == (orm.state, orm.first_events)
        assert isinstance(read.state, dict) and read.state and isinstance(read.first_events, list)
    gone = game_for_play(request_of(user_at(game, 0)), game.pk)
    Game.objects.filter(pk=game.pk).delete()
    with pytest.raises(Game.DoesNotExist):
        load_large(gone)


def test_the_logs_moves_are_what_the_orm_reads(start_game):
    """`log_moves`: the moves from a round on, oldest first, with their events, flags (booleans,
    which SQLite stores as numbers), seat and version, as the ORM's `values_list` gave them."""
    game = start_game(3, seed=4)
    play(game, until=lambda state: state.round == 3)
    game.moves.filter(version=game.moves.order_by("version")[3].version).update(automatic=True, autopilot=True)
    for since in (0, 2, 3, 4):
        orm = list(
            game.moves.filter(round__gte=since).order_by("version")
            .values_list("events", "automatic", "autopilot", "seat_id", "version")
        )
        assert log_moves(game, since) == orm
        read = log_moves(game, since)
        assert all(type(automatic) is bool and type(autopilot) is bool for _, automatic, autopilot, *_ in read)
    assert any(automatic for _, automatic, *_ in log_moves(game, 0))
    assert log_moves(game, 4) == [] and log_moves(game, 0)
