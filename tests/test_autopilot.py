"""Autopilot: after two timeouts in a row a seat moves at once, until its player plays again."""

import random

import pytest
from django.urls import reverse
from django.utils import timezone

from games.engine import random_move
from games.models import Game, Move, Seat
from games.play import lifecycle, moving
from games.play.errors import Conflict, NotAllowed, StaleVersion
from tests.support.games import on_autopilot, others_move_until_only, time_out
from tests.support.helpers import logged_in, state_of, user_at

pytestmark = pytest.mark.django_db


def seat_of(game, index):
    return Seat.objects.get(game=game, index=index)


def test_a_single_timeout_only_counts(start_game):
    game = start_game(3)
    seat = game.to_act[0]
    time_out(game)
    assert (seat_of(game, seat).timeouts, seat_of(game, seat).autopilot) == (1, False)


def test_two_timeouts_in_a_row_put_the_seat_on_autopilot_and_the_log_says_so(start_game):
    game, seat, _ = on_autopilot(start_game)
    assert seat_of(game, seat).autopilot
    last_timeout = Move.objects.filter(game=game, seat__index=seat, autopilot=False).last()
    assert last_timeout.automatic
    assert last_timeout.events[-1] == {"event": "autopilot_on", "seat": seat, "round": last_timeout.round}
    html = logged_in(user_at(game, (seat + 1) % 3)).get(reverse("game", args=[game.pk])).content.decode()
    name = user_at(game, seat).username
    assert f"{name} (" in html and "twice in a row and is on autopilot" in html


def test_a_move_of_his_own_between_two_timeouts_starts_the_count_again(start_game):
    game = start_game(3, seed=7)
    rng = random.Random(1)
    seat = game.to_act[0]
    time_out(game)
    others_move_until_only(game, seat, rng)
    moving.submit_move(
        game, user=user_at(game, seat), move=random_move(state_of(game), seat, rng), expected_version=game.version
    )
    game.refresh_from_db()
    assert seat_of(game, seat).timeouts == 0
    others_move_until_only(game, seat, rng)
    time_out(game)
    assert (seat_of(game, seat).timeouts, seat_of(game, seat).autopilot) == (1, False)


def test_a_seat_on_autopilot_moves_at_once_whenever_it_must_act(start_game):
    game, seat, rng = on_autopilot(start_game)
    before = Move.objects.filter(game=game, seat__index=seat).count()
    for _ in range(40):
        if game.status != Game.Status.ACTIVE:
            break
        assert seat not in game.to_act
        other = game.to_act[0]
        moving.submit_move(
            game, user=user_at(game, other), move=random_move(state_of(game), other, rng), expected_version=game.version
        )
        game.refresh_from_db()
    autopiloted = Move.objects.filter(game=game, seat__index=seat)[before:]
    assert autopiloted and all(move.automatic and move.autopilot for move in autopiloted)
    assert moving.replay(game).to_json() == game.state
    html = logged_in(user_at(game, other)).get(reverse("game_partial", args=[game.pk, "log"])).content.decode()
    assert "On autopilot: the site chose for" in html


def test_a_move_of_the_player_takes_his_seat_off_autopilot(start_game):
    game = start_game(3)
    seat = game.to_act[0]
    Seat.objects.filter(game=game, index=seat).update(autopilot=True, timeouts=2)
    moving.submit_move(
        game,
        user=user_at(game, seat),
        move=random_move(state_of(game), seat, random.Random(0)),
        expected_version=game.version,
    )
    assert (seat_of(game, seat).timeouts, seat_of(game, seat).autopilot) == (0, False)
    move = Move.objects.get(game=game, seat__index=seat)
    assert not move.automatic
    assert move.events[0] == {"event": "autopilot_off", "seat": seat, "round": move.round}
    html = logged_in(user_at(game, seat)).get(reverse("game", args=[game.pk])).content.decode()
    assert "is back from autopilot and plays again" in html


def test_the_player_takes_his_seat_back_from_the_game_page(start_game):
    game, seat, _ = on_autopilot(start_game)
    client = logged_in(user_at(game, seat))
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Play myself again" in page and reverse("take_back_seat", args=[game.pk]) in page
    version = game.version
    response = client.post(reverse("take_back_seat", args=[game.pk]))
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.version == version + 1
    assert (seat_of(game, seat).timeouts, seat_of(game, seat).autopilot) == (0, False)
    last = Move.objects.filter(game=game).last()
    assert last.events[-1] == {"event": "autopilot_off", "seat": seat, "round": game.round}
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Play myself again" not in page and "is back from autopilot" in page


def test_only_a_seat_on_autopilot_can_be_taken_back_and_only_by_its_player(start_game, make_user):
    game, seat, _ = on_autopilot(start_game)
    other = next(index for index in range(3) if index != seat and not seat_of(game, index).autopilot)
    with pytest.raises(Conflict):
        moving.take_back_seat(game, user=user_at(game, other))
    with pytest.raises(NotAllowed):
        moving.take_back_seat(game, user=make_user())
    assert seat_of(game, seat).autopilot
    client = logged_in(user_at(game, other))
    response = client.post(reverse("take_back_seat", args=[game.pk]), follow=True)
    assert "Your seat is not on autopilot." in response.content.decode()


def test_seats_all_on_autopilot_play_the_game_to_its_end_in_one_transaction(start_game):
    game = start_game(3)
    Seat.objects.filter(game=game).update(autopilot=True)
    time_out(game)
    assert game.status == Game.Status.FINISHED and game.deadline is None
    assert moving.replay(game).to_json() == game.state
    assert Move.objects.filter(game=game, autopilot=True).count() > 100


def test_the_autopilot_makes_a_bounded_number_of_moves_at_a_time(start_game, monkeypatch):
    monkeypatch.setattr(moving, "AUTOPILOT_MOVES_AT_MOST", 5)
    game = start_game(3)
    Seat.objects.filter(game=game).update(autopilot=True)
    time_out(game)
    assert game.status == Game.Status.ACTIVE
    assert Move.objects.filter(game=game, autopilot=True).count() == 5
    # The game waits with a deadline: the sweep carries on from there.
    assert game.deadline > timezone.now()
    time_out(game)
    assert Move.objects.filter(game=game, autopilot=True).count() > 5


def test_everyone_sees_the_autopilot_badge_on_the_game_page_and_in_the_lobby(start_game):
    game, seat, _ = on_autopilot(start_game)
    viewer = logged_in(user_at(game, (seat + 1) % 3))
    badge = '<span class="badge autopilot"'
    page = viewer.get(reverse("game", args=[game.pk])).content.decode()
    assert page.count(badge) == 1
    player = page.split(f'data-seat="{seat}"')[1].split("</div>")[0]
    assert badge in player
    lobby = viewer.get(reverse("lobby")).content.decode()
    assert lobby.count(badge) == 1
    assert f'{user_at(game, seat).username} <span class="badge autopilot">autopilot</span>' in lobby


# ---- the player hands his seat to the computer himself -------------------------------------------


def test_a_seat_to_act_handed_to_the_computer_is_played_at_once(start_game):
    game = start_game(3, seed=7)
    seat = game.to_act[0]
    version = game.version
    moving.hand_seat_to_computer(game, user=user_at(game, seat), expected_version=version)
    game.refresh_from_db()
    assert seat_of(game, seat).autopilot and seat_of(game, seat).timeouts == 0
    played = Move.objects.filter(game=game, seat__index=seat)
    assert played.exists() and all(move.autopilot and move.automatic for move in played)
    assert seat not in game.to_act and game.version > version
    assert {"event": "autopilot_chosen", "seat": seat, "round": 1} in game.first_events
    html = logged_in(user_at(game, (seat + 1) % 3)).get(reverse("game", args=[game.pk])).content.decode()
    assert "lets the computer play their seat" in html


def test_a_seat_handed_over_out_of_turn_is_played_when_it_must_act(start_game):
    game = start_game(3, seed=7)
    rng = random.Random(2)
    seat = next(index for index in range(3) if index not in game.to_act)
    version = game.version
    moving.hand_seat_to_computer(game, user=user_at(game, seat), expected_version=version)
    game.refresh_from_db()
    assert game.version == version + 1 and not Move.objects.filter(game=game).exists()
    while not Move.objects.filter(game=game, seat__index=seat).exists():
        other = next(s for s in game.to_act if s != seat)
        moving.submit_move(
            game, user=user_at(game, other), move=random_move(state_of(game), other, rng), expected_version=game.version
        )
        game.refresh_from_db()
    assert all(move.autopilot for move in Move.objects.filter(game=game, seat__index=seat))
    assert seat not in game.to_act


def test_the_seat_is_handed_over_and_taken_back_from_the_game_page(start_game):
    game = start_game(3, seed=7)
    seat = next(index for index in range(3) if index not in game.to_act)
    client = logged_in(user_at(game, seat))
    url = reverse("game", args=[game.pk])
    page = client.get(url).content.decode()
    assert "Let the computer play my seat" in page and reverse("hand_seat_to_computer", args=[game.pk]) in page
    response = client.post(reverse("hand_seat_to_computer", args=[game.pk]), {"expected_version": game.version})
    assert response.status_code == 302
    assert seat_of(game, seat).autopilot
    page = client.get(url).content.decode()
    assert "The computer plays your seat" in page and "Let the computer play my seat" not in page
    assert "Play myself again" in page
    client.post(reverse("take_back_seat", args=[game.pk]))
    game.refresh_from_db()
    assert not seat_of(game, seat).autopilot
    assert game.first_events[-1] == {"event": "autopilot_off", "seat": seat, "round": game.round}
    assert "Let the computer play my seat" in client.get(url).content.decode()


def test_only_a_seated_player_may_hand_over_only_his_own_seat(start_game, make_user):
    game = start_game(3, seed=7)
    version = game.version
    with pytest.raises(NotAllowed):
        moving.hand_seat_to_computer(game, user=make_user(), expected_version=version)
    spectator = logged_in(make_user())
    page = spectator.get(reverse("game", args=[game.pk])).content.decode()
    assert "Let the computer play my seat" not in page
    hand_over = reverse("hand_seat_to_computer", args=[game.pk])
    response = spectator.post(hand_over, {"expected_version": version}, follow=True)
    assert "You have no seat in this game." in response.content.decode()
    # The form names no seat: a player's post only ever hands over his own.
    player = user_at(game, 0)
    logged_in(player).post(reverse("hand_seat_to_computer", args=[game.pk]), {"expected_version": version, "seat": 1})
    assert [seat_of(game, index).autopilot for index in range(3)] == [True, False, False]
    game.refresh_from_db()
    assert game.version > version


def test_a_stale_or_unreadable_post_hands_nothing_over(start_game):
    game = start_game(3, seed=7)
    seat = next(index for index in range(3) if index not in game.to_act)
    stale = game.version - 1
    with pytest.raises(StaleVersion):
        moving.hand_seat_to_computer(game, user=user_at(game, seat), expected_version=stale)
    client = logged_in(user_at(game, seat))
    response = client.post(reverse("hand_seat_to_computer", args=[game.pk]), {"expected_version": stale}, follow=True)
    assert "The game has moved on" in response.content.decode()
    response = client.post(reverse("hand_seat_to_computer", args=[game.pk]), {"expected_version": "x"}, follow=True)
    assert "names no version of the game" in response.content.decode()
    game.refresh_from_db()
    assert not seat_of(game, seat).autopilot and game.version == stale + 1


def test_a_seat_on_autopilot_or_a_finished_game_is_not_handed_over(start_game, make_user):
    creator = make_user()
    waiting = lifecycle.create_game(creator, num_players=3)
    with pytest.raises(Conflict, match="not started"):
        moving.hand_seat_to_computer(waiting, user=creator, expected_version=waiting.version)
    assert not Seat.objects.get(game=waiting, user=creator).autopilot
    game, seat, _ = on_autopilot(start_game)
    game.refresh_from_db()
    with pytest.raises(Conflict, match="already"):
        moving.hand_seat_to_computer(game, user=user_at(game, seat), expected_version=game.version)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    other = next(index for index in range(3) if index != seat)
    version = game.version
    with pytest.raises(Conflict, match="over"):
        moving.hand_seat_to_computer(game, user=user_at(game, other), expected_version=version)
    assert not seat_of(game, other).autopilot
    game.refresh_from_db()
    assert game.version == version


def test_in_a_practice_game_the_computer_moves_on_for_the_handed_over_seat(
    make_user, queued_computer_moves, django_capture_on_commit_callbacks
):
    from games.play import computer_moves
    from tests.support.games import practice, user_at_seat

    game, creator = practice(make_user)
    seat = user_at_seat(game, creator)
    while seat not in game.to_act:
        assert computer_moves.play(game.pk, game.version)
        game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        moving.hand_seat_to_computer(game, user=creator, expected_version=game.version)
    game.refresh_from_db()
    assert seat not in game.to_act and Move.objects.filter(game=game, seat__index=seat, autopilot=True).exists()
    # The computer players' move is queued, and when made the autopilot answers for the seat too.
    assert queued_computer_moves[-1] == (game.pk, game.version)
    for _ in range(20):
        made = Move.objects.filter(game=game, seat__index=seat).count()
        assert computer_moves.play(game.pk, game.version)
        game.refresh_from_db()
        if Move.objects.filter(game=game, seat__index=seat).count() > made:
            break
    else:
        raise AssertionError("the autopilot never moved again for the seat")
    assert seat not in game.to_act or game.status == Game.Status.FINISHED


def test_the_others_in_a_simultaneous_choice_keep_their_deadline_when_a_seat_is_handed_over(game_at):
    from games.engine import to_act

    game = game_at(lambda state: len(to_act(state)) >= 2, num_players=4)
    deadline, waiting = game.deadline, list(game.to_act)
    moving.hand_seat_to_computer(game, user=user_at(game, waiting[0]), expected_version=game.version)
    game.refresh_from_db()
    assert waiting[0] not in game.to_act and set(game.to_act) < set(waiting)
    assert game.deadline == deadline
