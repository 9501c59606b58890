"""Every page, partial and mail in Italian and French shows none of the English msgids that its
English render shows (tests/support/leftovers.py): the lobby, the game page in each phase for the
seats to act, another seat and a spectator, its partials, the archive, statistics, ladders,
profile, settings, rules and account pages, the error pages, and every kind of mail."""

import pytest
from django.urls import reverse
from django.utils import translation

from games.engine import to_act, view_for
from games.mail import composing, unsubscribe
from tests.support.helpers import HTMX, logged_in, state_of
from tests.support.leftovers import left_in_translation

LANGUAGES = ("it", "fr")


def _kinds(state):
    return {(view_for(state, seat).get("decision") or {}).get("kind") for seat in to_act(state)}


PHASES = {
    "bid": lambda state: "bid" in _kinds(state),
    "court": lambda state: "court" in _kinds(state),
    "card": lambda state: "card" in _kinds(state),
    "action": lambda state: "action" in _kinds(state),
    "secret region": lambda state: "region" in _kinds(state),
    "share": lambda state: "share" in _kinds(state),
    "veto window": lambda state: "veto" in _kinds(state),
    "castillo scoring": lambda state: "castillo" in _kinds(state),
}


class Reader:
    """Renders a URL as one reader (a player, or a visitor without an account) in a language:
    a player's by their setting, a visitor's by the browser's Accept-Language."""

    def __init__(self, user=None):
        self.user = user
        self.client = logged_in(user) if user is not None else None

    def get(self, url, language, **headers):
        from django.test import Client

        if self.user is not None:
            self.user.language = language
            self.user.save(update_fields=["language"])
            client = self.client
        else:
            client = Client()
        response = client.get(url, HTTP_ACCEPT_LANGUAGE=language, **headers)
        assert response.status_code in (200, 400, 403, 404), (url, response.status_code)
        return response.content.decode()


def assert_translated(reader, url, at_least=1, **headers):
    english = reader.get(url, "en", **headers)
    for language in LANGUAGES:
        left, present = left_in_translation(english, reader.get(url, language, **headers), language)
        assert len(present) >= at_least, f"{url}: only {sorted(present)} found on the English page"
        assert not left, f"{url} in {language} still says: {left}"


def assert_game_translated(game):
    """The game page and its partials for a seat to act and a spectator (the play partial holds the
    board, the decision panel and the log, which are also fetched alone; the whole log on demand)."""
    state = state_of(game)
    seats = {seat.index: seat.user for seat in game.seats.select_related("user")}
    acting = [index for index in to_act(state) if index in seats] if not state.is_over else []
    readers = [Reader(seats[acting[0]])] if acting else [Reader(seats[0])]
    readers.append(Reader())
    for reader in readers:
        assert_translated(reader, reverse("game", args=[game.pk]), at_least=5)
        assert_translated(reader, reverse("game_partial", args=[game.pk, "play"]), at_least=5, **HTMX)
        assert_translated(reader, reverse("game_partial", args=[game.pk, "log"]) + "?all=1", **HTMX)


@pytest.mark.parametrize("phase", PHASES)
def test_the_game_page_is_translated_in_every_phase(game_at, phase):
    game = game_at(PHASES[phase], num_players=3)
    assert_game_translated(game)


def test_a_game_waiting_for_players_and_a_cancelled_one_are_translated(make_user):
    from games.play import lifecycle

    creator, other = make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3, private=True)
    lifecycle.join_game(game, user=other, token=game.invite_token)
    for reader in (Reader(creator), Reader(other), Reader()):
        assert_translated(reader, reverse("game", args=[game.pk]), at_least=3)
    assert_translated(Reader(creator), reverse("cancel", args=[game.pk]), at_least=3)
    lifecycle.cancel_game(game, user=creator)
    assert_translated(Reader(creator), reverse("game", args=[game.pk]), at_least=2)


@pytest.fixture
def finished_game(start_game):
    from tests.support.helpers import play

    game = start_game(3, seed=7, rated=True)
    play(game)
    game.refresh_from_db()
    return game


def test_a_finished_game_its_replay_and_the_pages_that_list_it_are_translated(finished_game, make_user):
    game = finished_game
    assert_game_translated(game)
    player = game.seats.get(index=0).user
    reader = Reader(player)
    assert_translated(reader, reverse("game", args=[game.pk]) + "?at=5", at_least=5)
    assert_translated(reader, reverse("game_partial", args=[game.pk, "replay"]) + "?at=5", at_least=5, **HTMX)
    for url in (
        reverse("lobby"),
        reverse("archive"),
        reverse("archive") + f"?player={player.username}",
        reverse("statistics"),
        reverse("ladders"),
        reverse("ladder", args=[3]),
        reverse("profile", args=[player.username]),
        reverse("chat", args=[game.pk]),
    ):
        assert_translated(reader, url, at_least=3)
        assert_translated(Reader(), url, at_least=3)


def test_the_site_pages_and_account_pages_are_translated(make_user):
    user = make_user()
    reader = Reader(user)
    for url in (
        reverse("lobby"),
        reverse("new_game"),
        reverse("settings"),
        reverse("delete_account"),
        reverse("rules"),
        reverse("profile", args=[user.username]),
        reverse("account_email"),
        reverse("account_change_password"),
        "/no-such-page/",
        reverse("archive") + "?player=zzqx-unknown",
        reverse("ladder", args=[9]),
    ):
        assert_translated(reader, url)
    for url in (reverse("account_login"), reverse("account_signup"), reverse("account_reset_password")):
        assert_translated(Reader(), url)


def test_the_unsubscribe_page_is_translated(make_user):
    user = make_user()
    token = unsubscribe.unsubscribe_token("your_move", user)
    assert_translated(Reader(), reverse("unsubscribe", args=[token]), at_least=2)


def _mails(game, kind):
    """The mail `kind` for the player in seat 0, in each language: {language: text + html}."""
    state = state_of(game)
    seats = {seat.index: seat for seat in game.seats.select_related("user")}
    rendered = {}
    for language in ("en", *LANGUAGES):
        # A player's mails are written in their own language (their setting), whoever's request sends them.
        seats[0].user.language = language
        with translation.override(language):
            subject, text, html = composing.game_mail(
                kind, user=seats[0].user, game=game, state=state, seat=0, seats=seats
            )
        rendered[language] = f"<p>{subject}</p><pre>{text}</pre>{html}"
    return rendered


def assert_mail_translated(rendered, at_least=3):
    for language in LANGUAGES:
        left, present = left_in_translation(rendered["en"], rendered[language], language)
        assert len(present) >= at_least, sorted(present)
        assert not left, f"{language}: {left}"


@pytest.mark.parametrize("kind", ["game_started", "your_move", "live_your_move", "reminder_half", "reminder_last"])
def test_every_mail_about_a_decision_is_translated(start_game, kind):
    game = start_game(3, seed=3)
    from tests.support.helpers import play

    play(game, until=lambda state: 0 in to_act(state) and state.round == 1 and state.phase != "bid", moves=60)
    assert_mail_translated(_mails(game, kind))


def test_the_end_of_game_mail_is_translated(finished_game):
    assert_mail_translated(_mails(finished_game, "game_finished"))


def test_the_digest_and_the_invitation_are_translated(start_game, make_user):
    from games.play import lifecycle

    game = start_game(3, seed=3)
    user = game.seats.get(index=0).user
    state = state_of(game)
    waiting = [
        {"game": game, "asked": composing.asked(view_for(state, 0)), "url": "https://x/", "deadline": game.deadline}
    ]
    private = lifecycle.create_game(user, num_players=3, private=True)
    rendered = {"digest": {}, "invitation": {}}
    for language in ("en", *LANGUAGES):
        user.language = language
        with translation.override(language):
            subject, text, html = composing.render_mail(
                "digest", user=user, game=None, subject="", context={"waiting": waiting, "time_zone": "UTC"}
            )
            rendered["digest"][language] = f"<pre>{text}</pre>{html}"
            subject, text, html = composing.render_mail(
                "invitation", user=None, address="friend@example.org", game=private, subject="",
                context={"inviter": user, "url": "https://x/"},
            )
            rendered["invitation"][language] = f"<pre>{text}</pre>{html}"
    assert_mail_translated(rendered["digest"])
    assert_mail_translated(rendered["invitation"])
