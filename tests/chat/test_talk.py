"""The seated players of a running game talk; everyone who may see the game reads; what a player
writes is plain text, shown as written, within limits, and nothing refused is stored."""

import pytest
from django.test import Client
from django.urls import reverse

from games.models import ChatMessage, Game
from games.play import chat
from tests.support.chat import post_chat, stored
from tests.support.helpers import HTMX, logged_in, play, user_at

pytestmark = pytest.mark.django_db


def chat_of(client, game):
    response = client.get(reverse("chat", args=[game.pk]), **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def test_a_player_writes_and_every_reader_of_the_game_reads_it(table, make_user):
    game, players = table
    response = post_chat(players[1], game, "  Will you use the veto?  ")
    assert response.status_code == 200
    # htmx gets the refreshed list, with the new line in it, named and coloured as in the log.
    assert "Will you use the veto?" in response.content.decode()
    assert "<html" not in response.content.decode()
    assert stored(game) == [(1, "Will you use the veto?")]
    name = user_at(game, 1).username
    for reader in (players[0], players[2], logged_in(make_user()), Client()):
        page = reader.get(reverse("game", args=[game.pk])).content.decode()
        assert "Will you use the veto?" in page
        assert f"{name} (" in chat_of(reader, game)


def test_without_javascript_the_form_posts_and_leads_back_to_the_chat(table):
    game, players = table
    page = players[0].get(reverse("game", args=[game.pk])).content.decode()
    assert f'<form class="chat-form" method="post" action="{reverse("chat", args=[game.pk])}"' in page
    response = post_chat(players[0], game, "Buenos días", htmx=False)
    assert response.status_code == 302
    assert response["Location"] == reverse("game", args=[game.pk]) + "#chat"
    assert stored(game) == [(0, "Buenos días")]


def test_a_post_without_the_csrf_token_is_refused(table):
    game, _ = table
    client = Client(enforce_csrf_checks=True)
    client.force_login(user_at(game, 0))
    assert client.post(reverse("chat", args=[game.pk]), {"text": "hola"}).status_code == 403
    assert stored(game) == []


def test_markup_in_a_message_is_shown_as_text(table):
    game, players = table
    text = '<script>alert("x")</script><b>bold</b> & <img src=x onerror=alert(1)>'
    assert post_chat(players[0], game, text).status_code == 200
    assert stored(game) == [(0, text)]
    for html in (chat_of(players[1], game), players[1].get(reverse("game", args=[game.pk])).content.decode()):
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt; &amp; &lt;img" in html
        assert "<script>alert" not in html and "<b>bold" not in html and "<img src=x" not in html


def test_a_message_of_500_characters_is_kept_and_one_of_501_refused(table):
    game, players = table
    assert post_chat(players[0], game, "é" * 500).status_code == 200
    response = post_chat(players[0], game, "a" * 501)
    assert response.status_code == 400
    assert "at most 500 characters (this one has 501)" in response.content.decode()
    assert response["HX-Retarget"] == "#chat-error"
    assert stored(game) == [(0, "é" * 500)]


@pytest.mark.parametrize("text", ["", "   ", "\u3000"])
def test_an_empty_message_is_refused(table, text):
    game, players = table
    response = post_chat(players[0], game, text)
    assert response.status_code == 400
    assert "Write something before sending." in response.content.decode()
    assert stored(game) == []


def test_a_message_without_its_field_is_refused(table):
    game, players = table
    response = players[0].post(reverse("chat", args=[game.pk]), {"txet": "hi"}, **HTMX)
    assert response.status_code == 400
    assert stored(game) == []


def test_a_message_holding_a_nul_is_refused(table):
    game, players = table
    response = post_chat(players[0], game, "a\x00b")
    assert response.status_code == 400
    assert "cannot hold NUL characters" in response.content.decode()
    assert stored(game) == []


@pytest.mark.parametrize(
    "character", ["\n", "\r", "\t", "\x07", "\x1b", "\x7f", "\x85", "\u202e", "\u2066"], ids=repr
)
def test_a_message_holding_a_control_character_is_refused(table, character):
    game, players = table
    response = post_chat(players[0], game, f"look{character}here")
    assert response.status_code == 400
    assert f"control character U+{ord(character):04X}" in response.content.decode()
    assert stored(game) == []


@pytest.mark.parametrize("character", ["\u2028", "\u2029"], ids=repr)
def test_a_message_holding_a_line_or_paragraph_separator_is_refused(table, character):
    game, players = table
    response = post_chat(players[0], game, f"look{character}here")
    assert response.status_code == 400
    assert f"line or paragraph separator (U+{ord(character):04X})" in response.content.decode()
    assert stored(game) == []


def test_zero_width_characters_are_taken_out_of_a_message(table):
    game, players = table
    assert post_chat(players[0], game, "\ufeffbu\u200ben\u2060as").status_code == 200
    assert stored(game) == [(0, "buenas")]


def test_a_message_with_a_filler_beside_words_is_kept_as_written(table):
    game, players = table
    assert post_chat(players[0], game, "\u3164 hola \u2800").status_code == 200
    assert stored(game) == [(0, "\u3164 hola \u2800")]


@pytest.mark.parametrize(
    "text",
    [
        "\u200b", "\ufeff \u200b", " \u2060 ",
        # Hangul fillers, letters to Unicode that print as nothing, and the blank Braille pattern:
        # a line of them showed as an empty one.
        "\u3164", "\u3164\u3164 \u3164", "\u115f", "\uffa0", "\u2800", "\u00ad\u034f",
    ],
    ids=repr,
)
def test_a_message_of_zero_width_characters_alone_is_empty(table, text):
    game, players = table
    response = post_chat(players[0], game, text)
    assert response.status_code == 400
    assert "Write something before sending." in response.content.decode()
    assert stored(game) == []


def test_refusals_without_javascript_are_a_page_with_the_reason_and_the_form(table):
    game, players = table
    response = post_chat(players[0], game, "a\x07b", htmx=False)
    assert response.status_code == 400
    html = response.content.decode()
    assert "<html" in html and "control character U+0007" in html and 'class="chat-form"' in html
    assert stored(game) == []


def test_letters_of_every_script_and_emoji_are_plain_text(table):
    game, players = table
    text = "¡Olé! Ñandú 你好 مرحبا 👨‍👩‍👧 ok"
    assert post_chat(players[0], game, text).status_code == 200
    assert stored(game) == [(0, text)]
    assert text in chat_of(players[1], game)


def test_a_player_may_send_a_few_messages_in_a_row_then_is_told_to_slow_down(table):
    game, players = table
    for number in range(chat.RATE_LIMIT):
        assert post_chat(players[0], game, f"message {number}").status_code == 200
    response = post_chat(players[0], game, "one too many")
    assert response.status_code == 429
    assert "Slow down: at most 5 messages in 10 seconds" in response.content.decode()
    assert response["HX-Retarget"] == "#chat-error"
    assert [text for _, text in stored(game)] == [f"message {n}" for n in range(chat.RATE_LIMIT)]
    # The limit is the player's, in this game: the others talk on.
    assert post_chat(players[1], game, "my turn").status_code == 200


def test_refused_messages_do_not_count_against_the_rate_limit(table):
    game, players = table
    for _ in range(chat.RATE_LIMIT + 3):
        assert post_chat(players[0], game, "\x00").status_code == 400
    assert post_chat(players[0], game, "now a real one").status_code == 200


def test_the_rate_limit_is_per_game(start_game):
    first, second = start_game(2), start_game(2)
    # The same user seated in two games.
    user = user_at(first, 0)
    second.seats.filter(index=0).update(user=user)
    client = logged_in(user)
    for number in range(chat.RATE_LIMIT):
        assert post_chat(client, first, f"first {number}").status_code == 200
    assert post_chat(client, first, "too fast").status_code == 429
    assert post_chat(client, second, "in the other game").status_code == 200


def test_after_the_window_a_player_may_write_again(table, monkeypatch):
    import time

    game, players = table
    monkeypatch.setattr(chat, "RATE_WINDOW", 1)
    for number in range(chat.RATE_LIMIT):
        assert post_chat(players[0], game, f"message {number}").status_code == 200
    assert post_chat(players[0], game, "too fast").status_code == 429
    time.sleep(1.1)
    assert post_chat(players[0], game, "later").status_code == 200


def test_spectators_read_but_get_no_form_and_cannot_write(table, make_user):
    game, players = table
    post_chat(players[0], game, "Hola")
    for spectator in (logged_in(make_user()), Client()):
        page = spectator.get(reverse("game", args=[game.pk])).content.decode()
        assert "Hola" in page
        assert 'class="chat-form"' not in page
        assert "only the players write" in page
        for htmx in (True, False):
            response = post_chat(spectator, game, "Let me in", htmx=htmx)
            assert response.status_code == 403
    assert stored(game) == [(0, "Hola")]


def test_a_logged_out_visitor_is_asked_to_log_in(table):
    game, _ = table
    response = post_chat(Client(), game, "hi")
    assert response.status_code == 403
    assert "Log in to talk at this table." in response.content.decode()


def test_a_private_games_chat_does_not_exist_for_strangers(start_game, make_user):
    game = start_game(3, private=True)
    assert post_chat(logged_in(user_at(game, 0)), game, "Secret plans").status_code == 200
    for stranger in (Client(), logged_in(make_user())):
        for response in (
            stranger.get(reverse("chat", args=[game.pk])),
            stranger.get(reverse("chat", args=[game.pk]), **HTMX),
            stranger.get(reverse("chat", args=[game.pk]) + "?before=2"),
            post_chat(stranger, game, "hello?"),
            stranger.post(reverse("chat_mute", args=[game.pk]), {"seat": 0, "muted": "1"}),
        ):
            assert response.status_code == 404
            assert b"Secret plans" not in response.content
    assert stored(game) == [(0, "Secret plans")]
    assert "Secret plans" in chat_of(logged_in(user_at(game, 2)), game)


def test_whoever_follows_a_private_games_invitation_reads_its_chat(start_game):
    game = start_game(3, private=True)
    post_chat(logged_in(user_at(game, 0)), game, "Secret plans")
    guest = Client()
    guest.get(reverse("invitation", args=[game.pk, game.invite_token]))
    assert "Secret plans" in chat_of(guest, game)
    assert post_chat(guest, game, "hi").status_code == 403


def test_a_missing_game_has_no_chat(client):
    assert client.get(reverse("chat", args=[424242])).status_code == 404
    assert post_chat(client, Game(pk=424242), "hi").status_code == 404


def test_a_finished_game_shows_its_chat_to_read_only(start_game, make_user):
    game = start_game(2, short_game=True)
    players = [logged_in(user_at(game, seat)) for seat in range(2)]
    post_chat(players[0], game, "Good luck")
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for reader in (*players, logged_in(make_user()), Client()):
        page = reader.get(reverse("game", args=[game.pk])).content.decode()
        assert "Good luck" in page
        assert 'class="chat-form"' not in page
        assert "The game is over: its table talk is kept to read." in page
    response = post_chat(players[1], game, "Good game")
    assert response.status_code == 409
    assert "This game is over" in response.content.decode()
    assert stored(game) == [(0, "Good luck")]


def test_before_the_start_there_is_no_chat_yet(make_user):
    from games.play import lifecycle

    creator = make_user()
    game = lifecycle.create_game(creator, num_players=3)
    page = logged_in(creator).get(reverse("game", args=[game.pk])).content.decode()
    assert "Table talk" not in page and 'id="chat"' in page
    response = post_chat(logged_in(creator), game, "anyone?")
    assert response.status_code == 409
    assert "opens when the game starts" in response.content.decode()
    assert ChatMessage.objects.count() == 0


def test_the_chat_shows_the_latest_messages_and_older_ones_a_page_at_a_time(table):
    game, players = table
    seat = game.seats.get(index=0)
    lines = [ChatMessage(game=game, seat=seat, text=f"line {n}") for n in range(chat.PAGE_SIZE + 7)]
    ChatMessage.objects.bulk_create(lines)
    html = chat_of(players[1], game)
    assert "line 6<" not in html and "line 7<" in html and f"line {chat.PAGE_SIZE + 6}<" in html
    oldest_shown = ChatMessage.objects.get(text="line 7").pk
    assert f"?before={oldest_shown}" in html
    older = players[1].get(reverse("chat", args=[game.pk]) + f"?before={oldest_shown}", **HTMX).content.decode()
    assert [f"line {n}<" in older for n in range(8)] == [True] * 7 + [False]
    assert "?before=" not in older and "Latest messages" in older and "data-before" in older
    # Without JavaScript, the same link is a page of its own.
    page = players[1].get(reverse("chat", args=[game.pk]) + f"?before={oldest_shown}")
    assert page.status_code == 200 and "<html" in page.content.decode() and "line 0<" in page.content.decode()


@pytest.mark.parametrize("before", ["abc", "0", "-3", "1.5", "9" * 30, "\x00"])
def test_an_absurd_page_of_the_chat_is_refused(table, before):
    game, players = table
    for htmx in ({}, HTMX):
        response = players[0].get(reverse("chat", args=[game.pk]), {"before": before}, **htmx)
        assert response.status_code == 400
        assert "No such page of the table talk" in response.content.decode()


def test_other_methods_are_refused(table):
    game, players = table
    assert players[0].put(reverse("chat", args=[game.pk])).status_code == 405
    assert players[0].get(reverse("chat_mute", args=[game.pk])).status_code == 405


def test_bytes_that_are_not_utf8_arrive_as_replacement_characters_never_as_surrogates(table):
    game, players = table
    body = "text=a%ED%A0%80b%FFc"
    response = players[0].post(
        reverse("chat", args=[game.pk]), body, content_type="application/x-www-form-urlencoded", **HTMX
    )
    assert response.status_code == 200
    assert stored(game) == [(0, "a\ufffd\ufffd\ufffdb\ufffdc")]
