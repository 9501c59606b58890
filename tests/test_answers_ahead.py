"""Answers given ahead: a seat's standing "allow" to every veto question, answered at once as its
own move, told to the seat alone."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from games import clocks
from games.engine import to_act, visible_events
from games.models import Game, Move, Seat
from games.play import expiry, moving
from games.play.errors import Conflict
from tests.support.helpers import HTMX, find_position, logged_in, snapshot, state_of, user_at

pytestmark = pytest.mark.django_db


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
    game = start_game(num_players, seed=seed)
    for seat, move in history[:-1]:
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
        game.refresh_from_db()
    state = state_of(game)
    from games.engine import apply_move

    asked = apply_move(state, *history[-1]).action["awaiting"]
    return game, history[-1], asked


def ask(game, last):
    seat, move = last
    moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
    game.refresh_from_db()


def set_ahead(game, seat, on):
    return moving.set_answers_ahead(game, user=user_at(game, seat), on=on, seat_index=seat)


def play_html(game, seat):
    response = logged_in(user_at(game, seat)).get(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def test_a_question_of_one_holder_answered_ahead_passes_at_once_and_his_log_says_so(start_game):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    set_ahead(game, holder, True)
    before = game.version
    ask(game, last)
    assert holder not in game.to_act
    # The asking move and the answer: two versions, one transaction, no deadline waited for.
    assert game.version == before + 2
    answer = Move.objects.get(game=game, version=game.version)
    assert (answer.seat.index, answer.move, answer.automatic) == (holder, {"type": "allow"}, False)
    assert any(event["event"] == "allowed" for event in answer.events)
    assert "allows (answered ahead)" in play_html(game, holder)


def test_taken_back_the_next_question_waits_for_the_holder(start_game):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    set_ahead(game, holder, True)
    set_ahead(game, holder, False)
    assert not Seat.objects.get(game=game, index=holder).answers_ahead
    ask(game, last)
    assert game.to_act == [holder]
    assert to_act(state_of(game)) == [holder]


def test_set_while_the_question_waits_it_is_answered_at_once(start_game):
    game, last, asked = just_before(start_game, one_holder_asked)
    holder = asked[0]
    ask(game, last)
    assert game.to_act == [holder]
    set_ahead(game, holder, True)
    game.refresh_from_db()
    assert holder not in game.to_act
    assert Move.objects.get(game=game, version=game.version).move == {"type": "allow"}


def test_a_veto_on_veto_question_is_not_answered_ahead(start_game):
    game, last, asked = just_before(start_game, counter_question_asked)
    for seat in asked:
        set_ahead(game, seat, True)
    snapshot_before = game.version
    ask(game, last)
    assert game.version == snapshot_before + 1
    assert state_of(game).action["stage"] == "counter_veto"
    assert sorted(game.to_act) == sorted(asked)


def test_another_seat_learns_nothing_of_the_setting_before_or_after_the_answer(start_game):
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


def test_a_move_with_its_seats_loaded_before_the_setting_changed_reads_it_anew(start_game):
    """The move's path loads the seats before it locks the game, and the setting changes no
    version: taken back meanwhile, the question still waits for the holder; set meanwhile, it is
    answered."""
    for on in (False, True):
        game, (seat, move), asked = just_before(start_game, one_holder_asked)
        holder = asked[0]
        set_ahead(game, holder, not on)
        game = Game.objects.get(pk=game.pk)
        seats = list(clocks.with_vacation_hint(game.seats.all(), timezone.now()))  # as game_for_move
        set_ahead(game, holder, on)
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version, seats=seats)
        game.refresh_from_db()
        assert (holder in game.to_act) is not on


def test_a_question_asked_by_a_move_the_deadline_made_is_answered_ahead_too(start_game, monkeypatch):
    """The deadline sweep's path: the late seat's default move asks the question (here the move of
    the line found, in place of a random one), and the holder's answer follows in its transaction."""
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
    asking, answer = Move.objects.filter(game=game, version__in=[before + 1, before + 2]).order_by("version")
    assert (asking.seat.index, asking.automatic) == (seat, True)
    assert (answer.seat.index, answer.move, answer.automatic) == (holder, {"type": "allow"}, False)
    assert answer.events[0] == {"event": "answered_ahead", "seat": holder, "round": answer.events[0]["round"],
                                "private": True}
    assert holder not in game.to_act
