"""Private facts on channels the page-content tests do not reach: the stored events of Move rows
(a veto question's retake step, legacy private entries), every partial of a private game for
strangers, and profiles and lobby lists of private games for those who do not sit in them."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import strip_tags

from games.models import Game, Move
from games.play import lifecycle, moving
from games.records.old_logs import legacy_events
from tests.support.helpers import HTMX, find_position, logged_in, play, state_of, user_at
from tests.support.page_positions import hidden_retake_in_question

pytestmark = pytest.mark.django_db

PARTIALS = ("play", "board", "decision", "log")


def every_url(game):
    return (
        [reverse("game", args=[game.pk])]
        + [reverse("game_partial", args=[game.pk, name]) for name in PARTIALS]
        + [reverse("game_partial", args=[game.pk, "log"]) + "?all=1"]
    )


def texts(client, game):
    """{url: the text a reader gets there}, every page and partial, the whole log included."""
    out = {}
    for url in every_url(game):
        response = client.get(url, **HTMX)
        assert response.status_code == 200, url
        out[url] = strip_tags(response.content.decode())
    return out


def test_a_veto_question_about_retaking_a_hidden_card_names_the_card_to_its_taker_alone(start_game, make_user):
    # Played through the services, so the question's event is stored on a Move row and read back
    # by the log (the page-content test puts states without moves).
    seed, history = find_position(hidden_retake_in_question, 3, veto=True)
    game = start_game(3, seed=seed, veto=True)
    for seat, move in history:
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
        game.refresh_from_db()
    state = state_of(game)
    [(_, taker, card)] = [step for step in state.action["steps"] if step[0] == "retake"]
    assert state.played[taker][-1] != card
    question = Move.objects.filter(game=game).order_by("version").last().events
    assert any(event["event"] == "veto_question" for event in question)
    secret = f"takes back power card {card}."
    vague = "takes back a played power card."

    own = texts(logged_in(user_at(game, taker)), game)
    assert secret in own[reverse("game_partial", args=[game.pk, "decision"])]
    readers = {seat: logged_in(user_at(game, seat)) for seat in range(3) if seat != taker}
    readers["logged out"] = Client()
    readers["stranger"] = logged_in(make_user())
    for who, client in readers.items():
        for url, text in texts(client, game).items():
            assert secret not in text, f"{who} reads the hidden retaken card at {url}"
        whole_log = client.get(reverse("game_partial", args=[game.pk, "log"]) + "?all=1", **HTMX)
        assert vague in strip_tags(whole_log.content.decode()), who


def test_a_legacy_private_entry_stays_with_its_seat_in_the_setup_and_in_a_moves_events(start_game, make_user):
    game = start_game(3)
    play(game, moves=1)
    secret_setup = "You take back power card 4 (legacy setup)."
    secret_move = "You take back power card 7 (legacy move)."
    log = [
        {"round": 0, "text": "Red sits at seat 1."},
        {"round": 0, "text": secret_setup, "private": True, "seat": 1},
        {"round": 0, "text": "Without a seat (legacy)", "private": True},
    ]
    Game.objects.filter(pk=game.pk).update(first_events=legacy_events(log))
    move = Move.objects.filter(game=game).get()
    move.events = move.events + legacy_events([{"round": 1, "text": secret_move, "private": True, "seat": 1}])
    move.save(update_fields=["events"])
    game.refresh_from_db()

    own = logged_in(user_at(game, 1)).get(reverse("game_partial", args=[game.pk, "log"]) + "?all=1")
    assert secret_setup in own.content.decode() and secret_move in own.content.decode()
    readers = {0: logged_in(user_at(game, 0)), 2: logged_in(user_at(game, 2))}
    readers.update({"logged out": Client(), "stranger": logged_in(make_user())})
    for who, client in readers.items():
        for url, text in texts(client, game).items():
            assert "Red sits at seat 1." in text or "?all=1" not in url
            for secret in (secret_setup, secret_move, "Without a seat (legacy)"):
                assert secret not in text, f"{who} reads {secret!r} at {url}"


def test_a_private_game_gives_strangers_no_page_partial_log_or_move(client, start_game, make_user):
    game = start_game(3, private=True)
    stranger = logged_in(make_user())
    for reader in (client, stranger):
        for url in every_url(game):
            assert reader.get(url, **HTMX).status_code == 404, url
            assert reader.get(url).status_code == 404, url
        response = reader.post(reverse("move", args=[game.pk]), {"move": '{"type": "bid", "card": 1}',
                                                                  "expected_version": game.version}, **HTMX)
        # Refused as the page is, not with "You have no seat", which says that the game exists.
        assert response.status_code == 404
        assert "seat" not in response.content.decode().lower()
    # A mail's link leads the logged out to the log-in page, and answers a stranger as it answers
    # a game that does not exist: the link does not tell whether the game is there.
    assert "/login/" in client.get(reverse("play_link", args=[game.pk]))["Location"]
    missing = Game.objects.order_by("-pk").first().pk + 1000
    assert "/login/" in client.get(reverse("play_link", args=[missing]))["Location"]
    hidden = stranger.get(reverse("play_link", args=[game.pk]))
    nowhere = stranger.get(reverse("play_link", args=[missing]))
    assert hidden.status_code == nowhere.status_code == 404
    # The same page, but for the CSRF token, masked anew in every response.
    token = re.compile(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]+"')
    # The address asked for (in the language switcher's "next") is the visitor's own, nothing new.
    hidden_page = hidden.content.decode().replace(reverse("play_link", args=[game.pk]), "ASKED")
    nowhere_page = nowhere.content.decode().replace(reverse("play_link", args=[missing]), "ASKED")
    assert token.sub("", hidden_page) == token.sub("", nowhere_page)
    # Its players go on to the decision.
    played = logged_in(user_at(game, 1)).get(reverse("play_link", args=[game.pk]))
    assert played["Location"] == reverse("game", args=[game.pk]) + "#decision"


def test_profiles_and_lobby_lists_keep_private_games_to_their_players(client, start_game, make_user):
    running = start_game(3, private=True)
    finished = start_game(2, short_game=True, private=True)
    play(finished)
    finished.refresh_from_db()
    assert finished.status == Game.Status.FINISHED
    stranger = logged_in(make_user())
    for game in (running, finished):
        url = reverse("profile", args=[user_at(game, 0).username])
        for reader in (client, stranger):
            response = reader.get(url)
            assert response.context["in_play"] == [] and response.context["finished_rows"] == []
            assert f"/games/{game.pk}/" not in response.content.decode()
        mine = logged_in(user_at(game, 1)).get(url)
        assert [row["game"].pk for row in mine.context["in_play"] + mine.context["finished_rows"]] == [game.pk]
    for reader in (client, stranger):
        lobby = reader.get(reverse("lobby")).content.decode()
        assert f"/games/{running.pk}/" not in lobby and f"/games/{finished.pk}/" not in lobby
    assert f"/games/{running.pk}/" not in stranger.get(reverse("my_games")).content.decode()
    assert f"/games/{running.pk}/" in logged_in(user_at(running, 2)).get(reverse("my_games")).content.decode()


def every_game_url(pk):
    """Every address of games/urls.py that names a game, for game `pk`: a partial by its name, an
    invitation with a made-up token."""
    from games.urls import urlpatterns

    values = {"name": "play", "token": "not-the-token"}
    for pattern in urlpatterns:
        if "pk" in pattern.pattern.converters:
            names = {name: values[name] for name in pattern.pattern.converters if name != "pk"}
            yield pattern.name, reverse(pattern.name, kwargs={"pk": pk, **names})


def test_a_game_a_stranger_may_not_see_answers_every_address_as_a_game_that_does_not_exist(
    client, start_game, make_user
):
    """Join, leave, take back, cancel, invite, chat, move, record...: a private open game, a private
    running game and a number no game has get the same answer, GET or POST, logged in or not."""
    stranger = logged_in(make_user())
    running = start_game(3, private=True)
    waiting = lifecycle.create_game(make_user(), num_players=3, private=True)
    missing = Game.objects.order_by("-pk").first().pk + 1000
    token = re.compile(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]+"')

    def answer(reader, method, pk, url):
        response = getattr(reader, method)(url)
        # The address asked for (in the language switcher's "next", the log-in's) is the visitor's own.
        text = token.sub("", response.content.decode().replace(url, "ASKED"))
        if response.status_code == 405:
            # The page of a method the address never takes links back to the game its address names.
            text = text.replace(reverse("game", args=[pk]), "GAME")
        return response.status_code, response.get("Location", "").replace(str(pk), "PK"), text

    checked = set()
    for name, url in every_game_url(missing):
        for method in ("get", "post"):
            for reader, who in ((client, "logged out"), (stranger, "a stranger")):
                nowhere = answer(reader, method, missing, url)
                urls = dict(every_game_url(waiting.pk)), dict(every_game_url(running.pk))
                for game, seen in ((waiting, urls[0][name]), (running, urls[1][name])):
                    assert answer(reader, method, game.pk, seen) == nowhere, (name, method, who, game.status)
                if who == "a stranger":
                    # Not found; or, for a method the address never takes, 405 whatever the game.
                    assert nowhere[0] in (404, 405), (name, method, nowhere[0])
                    checked.add((name, method, nowhere[0]))
    # Nothing was changed on the way.
    assert Game.objects.get(pk=waiting.pk).seats.count() == 1
    assert {(name, "post", 404) for name in ("join", "leave", "take_back_seat", "cancel", "invite")} <= checked
