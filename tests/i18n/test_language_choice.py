"""How a page's language is chosen: a signed-in player's setting, else the language cookie, else
the browser's Accept-Language, else English; the header's switcher; mails in the recipient's
language; the cached play partial and the clocks' words per language."""

import re

import pytest
from django.conf import settings
from django.core import mail
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from games import clocks
from tests.support.helpers import HTMX, logged_in

pytestmark = pytest.mark.django_db

COOKIE = settings.LANGUAGE_COOKIE_NAME


def language_of(response):
    html = response.content.decode()
    return re.search(r'<html lang="(\w+)"', html)[1], response["Content-Language"]


def lobby(client, **headers):
    return client.get(reverse("lobby"), **headers)


def test_a_visitor_without_cookie_or_browser_language_reads_english(client):
    response = lobby(client)
    assert language_of(response) == ("en", "en")
    assert ">Archive</a>" in response.content.decode()


@pytest.mark.parametrize(
    ("header", "language", "word"),
    [("fr-FR,fr;q=0.9", "fr", "Archives"), ("it", "it", "Archivio"), ("de-DE,de;q=0.9", "en", "Archive")],
)
def test_the_browser_language_is_used_when_the_site_has_it(client, header, language, word):
    response = lobby(client, HTTP_ACCEPT_LANGUAGE=header)
    assert language_of(response) == (language, language)
    assert f">{word}</a>" in response.content.decode()


def test_the_cookie_wins_over_the_browser_language(client):
    client.cookies[COOKIE] = "it"
    assert language_of(lobby(client, HTTP_ACCEPT_LANGUAGE="fr"))[0] == "it"


def test_a_players_setting_wins_over_cookie_and_browser(make_user):
    user = make_user()
    user.language = "fr"
    user.save()
    client = logged_in(user)
    client.cookies[COOKIE] = "it"
    assert language_of(lobby(client, HTTP_ACCEPT_LANGUAGE="it"))[0] == "fr"


def test_a_player_without_a_setting_gets_the_cookie_then_the_browser_language(make_user):
    client = logged_in(make_user())
    assert language_of(lobby(client, HTTP_ACCEPT_LANGUAGE="it"))[0] == "it"
    client.cookies[COOKIE] = "fr"
    assert language_of(lobby(client, HTTP_ACCEPT_LANGUAGE="it"))[0] == "fr"


def test_every_page_has_the_switcher_with_the_three_languages(client):
    for url in (reverse("lobby"), reverse("rules"), reverse("archive"), reverse("account_login")):
        html = client.get(url).content.decode()
        form = re.search(r'<form method="post" action="/i18n/setlang/".*?</form>', html, re.S)[0]
        assert re.findall(r'name="language" value="(\w+)"', form) == ["en", "it", "fr"]
        assert f'name="next" value="{url}"' in form


def test_the_switcher_sets_the_cookie_and_goes_back_to_the_page(client):
    response = client.post(reverse("set_language"), {"language": "it", "next": reverse("rules")})
    assert response.status_code == 302 and response["Location"] == reverse("rules")
    assert response.cookies[COOKIE].value == "it"
    assert language_of(client.get(reverse("rules")))[0] == "it"


def test_the_switcher_saves_a_signed_in_players_setting(make_user):
    user = make_user()
    client = logged_in(user)
    client.post(reverse("set_language"), {"language": "fr", "next": "/"})
    user.refresh_from_db()
    assert user.language == "fr"
    # Another browser of the same player, without the cookie, follows the setting.
    other = logged_in(user)
    assert language_of(lobby(other, HTTP_ACCEPT_LANGUAGE="it"))[0] == "fr"


def test_the_switcher_refuses_a_language_the_site_does_not_have(make_user):
    user = make_user()
    client = logged_in(user)
    response = client.post(reverse("set_language"), {"language": "de", "next": "/"})
    assert response.status_code == 302 and COOKIE not in response.cookies
    user.refresh_from_db()
    assert user.language == ""
    assert client.get(reverse("set_language")).status_code == 405


def test_the_switcher_does_not_send_the_player_to_another_site(client):
    response = client.post(reverse("set_language"), {"language": "fr", "next": "https://evil.example/"})
    assert response.status_code == 302 and response["Location"] == "/"


def test_the_settings_page_saves_the_language_and_the_cookie(make_user):
    user = make_user()
    client = logged_in(user)
    data = {"action": "settings", "time_zone": "Europe/Rome", "language": "it", "digest": "single"}
    response = client.post(reverse("settings"), data)
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.language == "it"
    assert response.cookies[COOKIE].value == "it"
    page = client.get(reverse("settings")).content.decode()
    assert "Le tue impostazioni sono salvate." in page and '<option value="it" selected>' in page
    # Back to the browser's language: allowed, blank.
    client.post(reverse("settings"), {**data, "language": ""})
    user.refresh_from_db()
    assert user.language == ""
    response = client.post(reverse("settings"), {**data, "language": "de"})
    assert response.status_code == 400
    user.refresh_from_db()
    assert user.language == ""


def test_back_to_the_browsers_language_in_the_settings_drops_the_cookie_of_the_one_chosen_before(make_user):
    """"The browser's language" is the browser's: the cookie that the former choice left, which
    LocaleMiddleware reads before Accept-Language, kept the pages in that language."""
    client = logged_in(make_user())
    data = {"action": "settings", "time_zone": "UTC", "language": "fr", "digest": "single"}
    client.post(reverse("settings"), data, HTTP_ACCEPT_LANGUAGE="it")
    assert language_of(client.get(reverse("settings"), HTTP_ACCEPT_LANGUAGE="it"))[0] == "fr"
    response = client.post(reverse("settings"), {**data, "language": ""}, HTTP_ACCEPT_LANGUAGE="it")
    assert response.cookies[COOKIE].value == "" and response.cookies[COOKIE]["max-age"] == 0
    page = client.get(reverse("settings"), HTTP_ACCEPT_LANGUAGE="it")
    assert language_of(page)[0] == "it"
    # Said in the language the pages now speak.
    assert "Le tue impostazioni sono salvate." in page.content.decode()


def test_signing_up_keeps_the_language_of_the_pages_the_player_read(client, password):
    client.cookies[COOKIE] = "fr"
    client.post(
        reverse("account_signup"),
        {"username": "amelie", "email": "amelie@example.org", "password1": password, "password2": password},
    )
    assert User.objects.get(username="amelie").language == "fr"
    # The confirmation mail allauth sends is in French too.
    assert mail.outbox and "adresse" in mail.outbox[-1].body.lower()


def test_account_mails_asked_from_a_browser_in_another_language_are_in_the_players_own(make_user, client, password):
    """A password reset, or a sign-up with a taken address, asked from a page in French, comes to
    an Italian player in Italian; an address of no account gets the page's language."""
    user = make_user("alessia")
    user.language = "it"
    user.save(update_fields=["language"])
    client.cookies[COOKIE] = "fr"
    client.post(reverse("account_reset_password"), {"email": "alessia@example.org"})
    assert mail.outbox[-1].subject.endswith("Email per reimpostare la password")
    assert "il tuo nome utente è alessia" in mail.outbox[-1].body
    client.post(
        reverse("account_signup"),
        {"username": "other", "email": "alessia@example.org", "password1": password, "password2": password},
    )
    assert mail.outbox[-1].subject.endswith("L'account esiste già")
    client.post(
        reverse("account_signup"),
        {"username": "amelie", "email": "amelie@example.org", "password1": password, "password2": password},
    )
    assert "adresse" in mail.outbox[-1].body.lower()


def test_each_player_gets_the_start_mail_in_their_own_language(
    make_user, queued_mail, django_capture_on_commit_callbacks
):
    from games.mail import kinds
    from games.play import lifecycle

    players = [make_user() for _ in range(3)]
    for user, language in zip(players, ("it", "fr", ""), strict=True):
        user.language = language
        user.save()
    # The game is created and started from an Italian page: the mails do not follow that page.
    with translation.override("it"), django_capture_on_commit_callbacks(execute=True):
        game = lifecycle.create_game(players[0], num_players=3)
        for user in players[1:]:
            lifecycle.join_game(game, user=user, token=game.invite_token)
    from games.models import Notification

    subjects = {n.user_id: n.subject for n in Notification.objects.filter(game=game, kind="game_started")}
    assert subjects[players[0].pk].startswith(f"La partita {game.pk} è iniziata")
    assert subjects[players[1].pk].startswith(f"La partie {game.pk} a commencé")
    assert subjects[players[2].pk].startswith(f"Game {game.pk} has started")
    texts = {n.user_id: n.text for n in Notification.objects.filter(game=game, kind="game_started")}
    assert texts[players[0].pk].startswith(f"Ciao {players[0].username},")
    assert texts[players[1].pk].startswith(f"Bonjour {players[1].username},")
    assert kinds.SETTING_LABELS  # the labels are lazy: rendered in each mail's language


def test_the_cached_play_partial_is_kept_per_language(start_game):
    game = start_game(3)
    user = game.seats.get(index=0).user
    client = logged_in(user)
    url = reverse("game_partial", args=[game.pk, "play"])
    client.cookies[COOKIE] = "it"
    italian = client.get(url, **HTMX).content.decode()
    client.cookies[COOKIE] = "en"
    english = client.get(url, **HTMX).content.decode()
    assert "<h2>Registro</h2>" in italian and "<h2>Log</h2>" not in italian
    assert "<h2>Log</h2>" in english and "<h2>Registro</h2>" not in english


def test_the_clocks_count_down_in_the_readers_language(client):
    with translation.override("it"):
        assert clocks.time_left_text(0) == "tempo scaduto"
        assert clocks.time_left_text(2 * 86400 + 3 * 3600) == "2 g 3 h rimasti"
        assert clocks.time_left_text(3600 + 5 * 60) == "1 h 05 min rimasti"
    with translation.override("fr"):
        assert clocks.time_left_text(65) == "1 min 05 s restantes"
    html = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    texts = re.search(r'<script id="clock-texts" type="application/json">(.*?)</script>', html)[1]
    assert '"up": "temps \\u00e9coul\\u00e9"' in texts
    assert '"minutes": "%(minutes)d min %(seconds)02d s restantes"' in texts
    assert '"prefix": "\\u25cf \\u00c0 vous \\u2013 "' in texts


def test_dates_follow_the_readers_language(make_user, client):
    user = make_user()
    page = client.get(reverse("profile", args=[user.username]), HTTP_ACCEPT_LANGUAGE="it").content.decode()
    months = ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
              "ottobre", "novembre", "dicembre")
    assert any(f" {month} " in page.lower() for month in months)
