"""What changed on the map since a player last looked (games/reading/since_visit.py): the areas whose
caballeros changed by others' moves are hatched on her game page, exactly those, as her own seat
sees them; her own moves, a first look and a spectator mark nothing."""

import random
import re

import pytest
from django.core.cache import caches
from django.test import Client
from django.urls import reverse

from games.engine import view_for
from games.reading import since_visit
from games.reading.since_visit import _caballeros, _key
from tests.support.helpers import logged_in, play, state_of, user_at

pytestmark = pytest.mark.django_db


def changed(client, game):
    html = client.get(reverse("game", args=[game.pk])).content.decode()
    return set(re.findall(r'<g class="area[^"]*\bchanged\b[^"]*" data-area="(\w+)"', html)), html


def seen_by(game, seat):
    return _caballeros(view_for(state_of(game), seat))


def test_the_areas_others_changed_since_her_last_look_are_hatched_and_no_others(start_game):
    game = start_game(3, seed=4)
    alice = logged_in(user_at(game, 0))
    play(game, until=lambda state: state.round == 1 and state.phase == "action")
    game.refresh_from_db()
    assert changed(alice, game)[0] == set(), "a first look marks nothing"
    before = seen_by(game, 0)
    play(game, moves=12)
    game.refresh_from_db()
    after = seen_by(game, 0)
    expected = {area for area in after if after[area] != before[area]}
    assert expected, "the moves changed something on the map"
    marked, html = changed(alice, game)
    assert marked == expected
    assert "Hatched: the regions whose caballeros changed since your last visit." in html
    assert html.count('class="changed-since"') == len(expected)
    # Once seen, no longer new.
    assert changed(alice, game)[0] == set()


def test_her_next_look_compares_with_what_her_last_look_kept_or_else_replays(start_game, monkeypatch):
    """The areas her render kept are what the next one compares with, without replaying the game;
    when they are not kept (another process rendered it, or they were dropped), the replay gives
    the same marks."""
    game = start_game(3, seed=4)
    alice = logged_in(user_at(game, 0))
    play(game, until=lambda state: state.round == 1 and state.phase == "action")
    game.refresh_from_db()
    changed(alice, game)
    seen_version = game.seats.get(index=0).seen_version
    kept = caches["seat_areas"].get(_key(game, seen_version, 0))
    assert kept == seen_by(game, 0)
    before = kept
    play(game, moves=12)
    game.refresh_from_db()
    after = seen_by(game, 0)
    expected = {area for area in after if after[area] != before[area]}
    assert expected
    replayed = []
    real = since_visit.state_after
    monkeypatch.setattr(since_visit, "state_after", lambda *args: replayed.append(args) or real(*args))
    game.seats.filter(index=0).update(seen_version=seen_version)
    assert changed(alice, game)[0] == expected
    assert replayed == []
    caches["seat_areas"].clear()
    caches["default"].clear()  # the page of this version and last look, kept by the view cache
    game.seats.filter(index=0).update(seen_version=seen_version)
    assert changed(alice, game)[0] == expected
    assert len(replayed) == 1


def test_each_seat_reads_back_only_the_areas_its_own_render_kept(start_game):
    """Kept per seat: with caballeros in the closed Castillo, each seat's kept areas are its own
    view of them (its own count there), never another seat's."""
    game = start_game(3, seed=4)

    def castillo_seen_apart(state):
        seen = [_caballeros(view_for(state, seat))["castillo"] for seat in range(3)]
        return len(set(seen)) > 1

    play(game, until=castillo_seen_apart)
    game.refresh_from_db()
    for seat in range(3):
        changed(logged_in(user_at(game, seat)), game)
    kept = [caches["seat_areas"].get(_key(game, game.version, seat)) for seat in range(3)]
    assert kept == [seen_by(game, seat) for seat in range(3)]
    assert len({areas["castillo"] for areas in kept}) > 1


def test_her_own_move_marks_nothing_and_a_spectator_sees_no_marks(start_game):
    from games.engine import random_move, to_act
    from games.play import moving

    game = start_game(3, seed=4)
    play(game, until=lambda state: state.round == 1 and state.phase == "action")
    game.refresh_from_db()
    state = state_of(game)
    mover = to_act(state)[0]
    player = logged_in(user_at(game, mover))
    changed(player, game)
    moving.submit_move(
        game, user=user_at(game, mover), move=random_move(state, mover, random.Random(1)),
        expected_version=game.version)
    game.refresh_from_db()
    assert changed(player, game)[0] == set()
    play(game, moves=6)
    game.refresh_from_db()
    assert changed(Client(), game)[0] == set()


def test_the_position_then_is_the_replays_from_a_stored_round_start_or_without_one(start_game):
    from games.models import Snapshot
    from games.reading.replays import position, state_after

    game = start_game(3, seed=4)
    play(game, until=lambda state: state.round == 3)
    game.refresh_from_db()
    seats = list(game.seats.all())
    versions = list(game.moves.order_by("version").values_list("version", flat=True))
    assert not Snapshot.objects.filter(game=game).exists()
    first = state_after(game, versions[10], seats)  # none stored: the replay's walk, which stores them
    assert Snapshot.objects.filter(game=game, kind=Snapshot.Kind.ROUND).count() >= 3
    assert first.to_json() == position(game, at=11).state.to_json()
    for at in (1, 11, len(versions) // 2, len(versions) - 1):
        # From the nearest stored round start and the moves since.
        assert state_after(game, versions[at - 1], seats).to_json() == position(game, at=at).state.to_json(), at


def test_a_stored_move_that_no_longer_replays_is_said_so_and_marks_nothing(start_game, caplog):
    from games.models import Move
    from games.reading.replays import NotReplayable, state_after
    from games.reading.since_visit import changed_areas

    game = start_game(3, seed=4)
    play(game, until=lambda state: state.round == 3)
    game.refresh_from_db()
    seats = list(game.seats.all())
    versions = list(game.moves.order_by("version").values_list("version", flat=True))
    state_after(game, versions[-1], seats)  # stores the round starts
    # A move in the middle of round 2 (the last move began round 3) that these rules refuse.
    Move.objects.filter(game=game, version=versions[-3]).update(move={"type": "no such move"})
    with pytest.raises(NotReplayable):
        state_after(game, versions[-2], seats)
    assert f"stored move {versions[-3]} does not replay" in caplog.text
    own = seats[0]
    own.seen_version = versions[-2]
    others_moved = [{"version": versions[-1], "mover": 1}]
    assert changed_areas(game, seats, own, view_for(state_of(game), own.index), others_moved) == set()


def test_a_look_moves_the_seen_version_on_and_never_back(start_game):
    """`_mark_new` finds the newest version a look showed and `mark_seen` (its UPDATE written out)
    stores it, unless a later look, by another request, stored a newer one already."""
    from games.models import Seat
    from games.reading.selectors import _mark_new, mark_seen

    game = start_game(3, seed=4)
    play(game, moves=6)
    game.refresh_from_db()
    own = game.seats.get(index=0)
    Seat.objects.filter(pk=own.pk).update(seen_version=game.version + 5)
    mark_seen(own.pk, _mark_new([{"version": game.version, "mover": 1}], own))
    assert Seat.objects.get(pk=own.pk).seen_version == game.version + 5
    Seat.objects.filter(pk=own.pk).update(seen_version=0)
    own.seen_version = 0
    entries = [{"version": game.version - 1, "mover": 0}, {"version": game.version, "mover": 1}]
    assert _mark_new(entries, own) == game.version == own.seen_version
    assert Seat.objects.get(pk=own.pk).seen_version == 0
    mark_seen(own.pk, game.version)
    assert Seat.objects.get(pk=own.pk).seen_version == game.version
    assert [entry["new"] for entry in entries] == [False, True]
