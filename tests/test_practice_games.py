"""Practice games: computer players in seats, their moves made off the requests (retried, falling
back, exactly once), their ratings, and the greedy player standing in for a seat whose time ran out."""

import random
from datetime import timedelta

import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.bots import choose_move
from games.computer import players as computer
from games.engine import GameState, legal_moves, random_move, to_act, view_for
from games.models import Game, Move, Notification, Seat
from games.play import computer_moves, expiry, lifecycle, moving
from games.play.errors import GameError
from ratings.models import Rating, RatingChange
from ratings.rating import differences
from tests.support.games import practice, user_at_seat
from tests.support.helpers import find_position, logged_in, state_of

pytestmark = pytest.mark.django_db


def play_out(game, creator, rng, queued=None, most=5000):
    """Play the game to its end: the queued computer moves through `computer_moves.play` (as the
    worker would), the creator's with random legal moves. Returns how many computer moves."""
    made = 0
    for _ in range(most):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return made
        state = GameState.from_json(game.state)
        human = user_at_seat(game, creator)
        if human in to_act(state):
            moving.submit_move(game, user=creator, move=random_move(state, human, rng), expected_version=game.version)
        else:
            assert computer_moves.play(game.pk, game.version), "a computer seat should have acted"
            made += 1
    raise AssertionError("the game did not end")


# ---- creating ------------------------------------------------------------------------------------


def test_computer_seats_are_taken_at_once_and_a_full_practice_game_starts(
    make_user, queued_computer_moves, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        game, creator = practice(make_user, ("random", "greedy", "greedy", "strong"))
    assert game.status == Game.Status.ACTIVE and game.practice and not game.rated
    seats = {seat.user.username: seat.computer for seat in game.seats.select_related("user")}
    assert seats == {
        creator.username: "",
        "Computer (random)": "random",
        "Computer (greedy)": "greedy",
        "Computer (greedy) 2": "greedy",
        "Computer (strong)": "strong",
    }
    if any(Seat.objects.get(game=game, index=index).computer for index in game.to_act):
        assert queued_computer_moves == [(game.pk, game.version)]


def test_a_practice_game_with_a_free_seat_waits_for_a_person(make_user):
    game, creator = practice(make_user, ("greedy",), num_players=3)
    assert game.status == Game.Status.OPEN and game.seats.count() == 2
    lifecycle.join_game(game, user=make_user())
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_the_same_computer_accounts_serve_every_game(make_user):
    first, _ = practice(make_user, ("strong",))
    second, _ = practice(make_user, ("strong", "strong"))
    users = get_user_model().objects.filter(computer_level="strong")
    assert sorted(users.values_list("username", flat=True)) == ["Computer (strong)", "Computer (strong) 2"]
    assert first.seats.get(computer="strong").user.username == "Computer (strong)"
    assert {seat.user.username for seat in second.seats.filter(computer="strong")} == {
        "Computer (strong)", "Computer (strong) 2"
    }


def test_computer_accounts_cannot_log_in_and_have_no_address(make_user):
    practice(make_user, ("greedy",))
    bot = User.objects.get(username="Computer (greedy)")
    assert bot.is_computer and not bot.has_usable_password() and not bot.email
    assert not Client().login(username=bot.username, password="")
    response = Client().post(reverse("account_login"), {"login": bot.username, "password": "x"})
    assert "_auth_user_id" not in response.client.session


def test_the_create_form_gives_seats_to_computer_players(client, make_user):
    client.force_login(make_user())
    response = client.post(reverse("new_game"), {
        "num_players": "3", "short_game": "True", "time_per_move": "120",
        "computer_greedy": "1", "computer_strong": "1", "computer_random": "",
    })
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()
    assert sorted(game.seats.exclude(computer="").values_list("computer", flat=True)) == ["greedy", "strong"]
    assert game.status == Game.Status.ACTIVE and game.practice


@pytest.mark.parametrize(
    "data, field",
    [
        ({"computer_greedy": "3"}, "__all__"),  # 3 players: at most 2 computers
        ({"computer_greedy": "1", "computer_random": "1", "computer_strong": "1"}, "__all__"),
        ({"computer_strong": "-1"}, "computer_strong"),
        ({"computer_random": "two"}, "computer_random"),
        ({"computer_greedy": "5"}, "computer_greedy"),
        ({"computer_greedy": "1", "rated": "on"}, "rated"),
    ],
)
def test_the_create_form_refuses_bad_computer_seats(client, make_user, data, field):
    client.force_login(make_user())
    response = client.post(
        reverse("new_game"), {"num_players": "3", "short_game": "False", "time_per_move": "86400", **data}
    )
    assert response.context["form"].errors.keys() == {field}
    assert not Game.objects.exists() and not User.objects.exclude(computer_level="").exists()


def test_the_services_refuse_unknown_levels_and_too_many_computers(make_user):
    user = make_user()
    for computers, num_players in ((["clever"], 3), (["greedy", "greedy"], 2)):
        with pytest.raises(GameError):
            lifecycle.create_game(user, num_players=num_players, computers=computers)
    with pytest.raises(GameError):
        lifecycle.create_game(user, num_players=3, computers=["greedy"], rated=True)
    assert not Game.objects.exists()


def test_practice_games_are_marked_in_the_lobby_and_the_archive(make_user):
    game, creator = practice(make_user, ("greedy", "greedy"))
    lobby = logged_in(creator).get(reverse("lobby")).content.decode()
    assert "practice game" in lobby and 'class="badge computer"' in lobby
    play_out(game, creator, random.Random(3))
    plain = lifecycle.create_game(creator, num_players=2, short_game=True)
    from tests.support.helpers import play
    lifecycle.join_game(plain, user=make_user())

    play(plain)
    archive = Client().get(reverse("archive")).content.decode()
    assert "practice game" in archive
    only = Client().get(reverse("archive"), {"practice": "yes"}).context["page"].rows
    assert [row["game"].pk for row in only] == [game.pk]
    others = Client().get(reverse("archive"), {"practice": "no"}).context["page"].rows
    assert [row["game"].pk for row in others] == [plain.pk]
    assert Client().get(reverse("archive_json"), {"practice": "yes"}).json()["games"][0]["practice"] is True


# ---- their moves ---------------------------------------------------------------------------------


def test_a_computer_move_is_made_once_and_a_duplicate_task_does_nothing(
    make_user, queued_computer_moves, django_capture_on_commit_callbacks
):
    game, creator = practice(make_user, ("greedy", "greedy"))
    rng = random.Random(1)
    while not any(Seat.objects.get(game=game, index=index).computer for index in game.to_act):
        seat = game.to_act[0]
        with django_capture_on_commit_callbacks(execute=True):
            moving.submit_move(
                game, user=creator, move=random_move(state_of(game), seat, rng), expected_version=game.version
            )
        game.refresh_from_db()
    if not queued_computer_moves:  # the computers were to act from the start
        assert game.version == 1
    version = game.version
    assert not queued_computer_moves or queued_computer_moves[-1] == (game.pk, version)
    assert computer_moves.play(game.pk, version)
    assert not computer_moves.play(game.pk, version), "the same task again must change nothing"
    assert Move.objects.filter(game=game, version__gt=version).count() == 1
    move = Move.objects.get(game=game, version=version + 1)
    assert move.seat.computer and not move.automatic


def test_a_crashing_decision_is_tried_again_then_played_by_the_greedy_player(make_user, monkeypatch, settings):
    game, _ = practice(make_user, ("strong", "strong"))
    settings.BOT_RETRIES = 2
    tried = []

    def crash_strong(view, level, rng, budget):
        tried.append(level)
        if level == "strong":
            raise RuntimeError("injected crash")
        return choose_move(view, level, rng, budget=budget)

    monkeypatch.setattr(computer, "choose_move", crash_strong)
    state = state_of(game)
    seat = to_act(state)[0]
    move = computer.decide(state, seat, "strong", "test")
    assert tried == ["strong", "strong", "strong", "greedy"]
    assert move == choose_move(view_for(state, seat), "greedy", random.Random("test-3"))


def test_when_every_player_crashes_the_engines_random_play_moves(make_user, monkeypatch):
    game, creator = practice(make_user, ("greedy", "greedy"))

    def crash(view, level, rng, budget):
        raise RuntimeError("injected crash")

    monkeypatch.setattr(computer, "choose_move", crash)
    state = state_of(game)
    seat = to_act(state)[0]
    move = computer.decide(state, seat, "greedy", "s")
    # The engine's own random play, with the seed kept for it: the last resort, and nothing else.
    assert move == random_move(state, seat, random.Random("s-last"))
    assert move in legal_moves(state, seat)


def test_an_illegal_answer_counts_as_a_crash(make_user, monkeypatch, settings):
    game, _ = practice(make_user, ("random", "random"))
    tried = []

    def illegal_when_random(view, level, rng, budget):
        tried.append(level)
        return {"type": "bid", "card": 99} if level == "random" else choose_move(view, level, rng, budget=budget)

    monkeypatch.setattr(computer, "choose_move", illegal_when_random)
    settings.BOT_RETRIES = 1
    state = state_of(game)
    seat = to_act(state)[0]
    move = computer.decide(state, seat, "random", "s")
    # The illegal answer is tried again, then the first fallback answers, as after a crash.
    assert tried == ["random", "random", "greedy"]
    assert move == choose_move(view_for(state, seat), "greedy", random.Random("s-2"))
    assert move in legal_moves(state, seat)


def test_a_decision_left_to_computer_players_alone_is_swept_soon_as_a_timeout(make_user):
    game, creator = practice(make_user, ("greedy", "greedy"))
    rng = random.Random(4)
    while not all(Seat.objects.get(game=game, index=index).computer for index in game.to_act):
        moving.submit_move(
            game, user=creator, move=random_move(state_of(game), game.to_act[0], rng), expected_version=game.version
        )
        game.refresh_from_db()
    assert game.deadline <= timezone.now() + timedelta(seconds=settings.BOT_MOVE_DELAY + settings.BOT_STALL_SECONDS)
    # Its worker died: nothing played it. The sweep does, once the short deadline passed.
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    version = game.version
    assert expiry.apply_default_moves(game.pk, version=version)
    moves = Move.objects.filter(game=game, version__gt=version)
    assert moves.exists() and all(move.automatic and move.seat.computer for move in moves)
    assert not Seat.objects.filter(game=game).exclude(computer="").filter(timeouts__gt=0).exists()
    assert not Seat.objects.filter(game=game, autopilot=True).exists()


def test_a_persons_decision_keeps_the_games_time_per_move(make_user):
    game, creator = practice(make_user, ("greedy",), num_players=2, time_per_move=86400)
    state = state_of(game)
    if all(Seat.objects.get(game=game, index=index).computer for index in to_act(state)):
        computer_moves.play(game.pk, game.version)
        game.refresh_from_db()
    assert game.deadline >= timezone.now() + timedelta(hours=23)


# ---- ratings and mail ----------------------------------------------------------------------------


def test_a_practice_game_rates_its_computer_players_only(make_user, django_capture_on_commit_callbacks):
    game, creator = practice(make_user, ("greedy", "random"))
    with django_capture_on_commit_callbacks(execute=True):
        play_out(game, creator, random.Random(5))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and not game.rated
    bots = set(User.objects.exclude(computer_level="").values_list("pk", flat=True))
    assert set(RatingChange.objects.filter(game=game).values_list("user_id", flat=True)) == bots
    assert not Rating.objects.filter(user=creator).exists()
    assert set(Rating.objects.filter(ladder=3).values_list("user_id", flat=True)) == bots
    assert differences(django_apps) == []
    ladder = Client().get(reverse("ladders")).content.decode()
    assert "Computer (greedy)" in ladder and creator.username not in ladder


def test_computer_players_get_no_mail(make_user, django_capture_on_commit_callbacks):
    game, creator = practice(make_user, ("greedy", "greedy"), time_per_move=86400)
    with django_capture_on_commit_callbacks(execute=True):
        play_out(game, creator, random.Random(6))
    assert Notification.objects.filter(user=creator).exists()
    assert not Notification.objects.filter(user__computer_level__gt="").exists()


# ---- the default move: the greedy player --------------------------------------------------------


def test_a_single_timeout_plays_a_random_legal_move_not_the_greedy_players(start_game):
    """One timeout is the random default move, seeded by the game and version (the sweep's
    budget, bench/sweep.py); only the autopilot plays as the greedy player."""
    from games.engine import random_move

    game = start_game(3, seed=11)
    state = state_of(game)
    seat = to_act(state)[0]
    rng = f"{game.seed}-{game.version}"
    expected = random_move(state, seat, random.Random(rng))
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert expiry.apply_default_moves(game.pk, version=game.version)
    assert Move.objects.get(game=game, version=game.version + 1).move == expected
    assert Move.objects.get(game=game, version=game.version + 1).automatic
    # The greedy player would not have thrown this bid away (so the test tells the two apart).
    assert choose_move(view_for(state, seat), "greedy", random.Random(rng)) != expected


def test_the_autopilots_first_bid_is_the_greedy_players(start_game):
    from tests.support.games import on_autopilot

    game, seat, _ = on_autopilot(start_game)
    first = Move.objects.filter(game=game, seat__index=seat, autopilot=True).order_by("version").first()
    before = moving.replay(game, upto=first.version - 1)
    rng = random.Random(f"{game.seed}-autopilot-{first.version - 1}")
    assert first.move == choose_move(view_for(before, seat), "greedy", rng)


def test_a_veto_window_is_still_answered_allow(make_user):
    seed, history = find_position(
        lambda state: any({"type": "allow"} in legal_moves(state, seat) for seat in to_act(state)), 3
    )
    from games.engine import apply_move as apply
    from games.engine import new_game

    state = new_game(num_players=3, seed=seed)
    for seat, move in history:
        state = apply(state, seat, move)
    holder = next(seat for seat in to_act(state) if {"type": "allow"} in legal_moves(state, seat))
    assert moving.default_move(state, seat=holder, rng=random.Random(1)) == {"type": "allow"}


def test_the_game_page_and_the_computer_players_profile_say_what_they_are(make_user):
    game, creator = practice(make_user, ("strong",), num_players=2)
    page = logged_in(creator).get(reverse("game", args=[game.pk])).content.decode()
    assert "A computer player, level strong" in page and 'class="badge practice"' in page
    profile = Client().get(reverse("profile", args=["Computer (strong)"]))
    assert profile.status_code == 200
    assert "A computer player of the site, level “strong”" in profile.content.decode()
    mine = logged_in(creator).get(reverse("profile", args=[creator.username])).content.decode()
    assert "A computer player of the site" not in mine


def test_a_seat_taken_back_from_the_autopilot_while_a_computer_acts_queues_its_move(
    make_user, queued_computer_moves, django_capture_on_commit_callbacks
):
    """Taking a seat back raises the version: the computer's task queued for the version before
    does nothing, so the new version must have a task of its own, or the game waits for the sweep."""
    game, creator = practice(make_user)
    rng = random.Random(3)
    for _ in range(200):
        game.refresh_from_db()
        state = GameState.from_json(game.state)
        computers_act = any(Seat.objects.get(game=game, index=index).computer for index in to_act(state))
        if computers_act and Move.objects.filter(game=game).exists():
            break
        if computers_act:
            computer_moves.play(game.pk, game.version)
        else:
            human = user_at_seat(game, creator)
            moving.submit_move(game, user=creator, move=random_move(state, human, rng), expected_version=game.version)
    Seat.objects.filter(game=game, user=creator).update(autopilot=True, timeouts=2)
    queued_computer_moves.clear()
    with django_capture_on_commit_callbacks(execute=True):
        game = moving.take_back_seat(game, user=creator)
    assert queued_computer_moves == [(game.pk, game.version)]
    assert computer_moves.play(game.pk, game.version)
