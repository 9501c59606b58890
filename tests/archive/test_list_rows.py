"""The lists' rows composed in Python (games/web/rows.py) are byte for byte what their template
includes wrote, in every language, with names and other input escaped alike."""

import itertools

import pytest
from django.template import Context, Template
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from accounts.models import DELETED_NAME
from games.models import TIME_PER_MOVE_CHOICES, Game
from games.web import rows
from tests.support.archive_games import finished_game

LANGUAGES = ("en", "it", "fr")
HOSTILE = "<script>&\"'"

# The markup of a player in a list, as templates/games/partials/lobby_player.html wrote it
# before the rows were composed in Python; and the loops around it.
PLAYER_TEMPLATE = (
    '{% load i18n %}<span class="lobby-player{% if player.colour %} colour-{{ player.colour }}{% endif %}">'
    '{% if player.colour %}<span class="chip">{{ player.label }}</span>\u00a0{% endif %}{{ player.username }}'
    '{% if player.computer %} <span class="badge computer" title="{% translate "a computer player" %}">'
    '{% translate "computer" %}</span>{% endif %}{% if player.autopilot %} <span class="badge autopilot">'
    '{% translate "autopilot" %}</span>{% endif %}</span>'
)
PLAYERS_TEMPLATE = (
    "{% for player in players %}" + PLAYER_TEMPLATE + "{% if not forloop.last %}, {% endif %}{% endfor %}"
)
RANKING_TEMPLATE = (
    "{% for player in ranking %}{{ player.place }}. " + PLAYER_TEMPLATE
    + " <strong>{{ player.score }}</strong>{% if not forloop.last %}, {% endif %}{% endfor %}"
)


def players():
    """Players as the lists' rows hold them: every badge, with and without a colour, hostile names,
    a deleted player's name (lazy), scores and places missing or shared."""
    names = ["anna", HOSTILE, DELETED_NAME, "Computer (greedy) 2", "l'été & co"]
    colours = ["red", "yellow", None, "blue", "brown", "green", "<b>"]
    out = []
    for number, (name, colour, computer, autopilot) in enumerate(
        itertools.product(names, colours, ("", "greedy"), (False, True))
    ):
        out.append({
            "username": name, "colour": colour, "label": HOSTILE if colour == "<b>" else (colour or "?")[0].upper(),
            "computer": computer, "autopilot": autopilot,
            "place": [1, 2, 2, None][number % 4], "score": [120, 98, 98, None][number % 4],
        })
    # A profile's row has neither badge's key.
    out.append({"username": "bare", "colour": "red", "label": "R", "place": 3, "score": 7})
    return out


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_player_and_the_players_and_the_ranking_are_written_as_the_templates_did(language):
    people = players()
    with translation.override(language):
        for player in people:
            assert rows.player_html(player) == Template(PLAYER_TEMPLATE).render(Context({"player": player}))
        for start in range(0, len(people), 5):
            some = people[start:start + 5]
            assert rows.players_html(some) == Template(PLAYERS_TEMPLATE).render(Context({"players": some}))
            assert rows.ranking_html(some) == Template(RANKING_TEMPLATE).render(Context({"ranking": some}))
        assert rows.players_html([]) == "" == rows.ranking_html([])


def test_a_players_chip_and_name_are_never_split_between_two_lines():
    """On a phone the profile's ranking broke its line between "3. [G]" and "end2": the chip is
    now joined to the name by a no-break space."""
    html = rows.player_html({"username": "end2", "colour": "yellow", "label": "G"})
    assert '<span class="chip">G</span>\u00a0end2' in html


def test_a_hostile_name_is_escaped_and_never_written_raw():
    html = rows.players_html([{"username": HOSTILE, "colour": "red", "label": "R"}])
    assert "<script>" not in html
    assert "&lt;script&gt;&amp;&quot;&#x27;" in html


def option_games():
    """Games with every option set and unset, and each time per move (and one not offered)."""
    times = [seconds for seconds, _label in TIME_PER_MOVE_CHOICES] + [777]
    flags = ("short_game", "veto", "show_castillo", "vacations_allowed", "rated", "practice", "private", "imported")
    for number, values in enumerate(itertools.product((False, True), repeat=len(flags))):
        yield Game(time_per_move=times[number % len(times)], **dict(zip(flags, values, strict=True)))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_games_options_are_written_as_their_template_writes_them(language):
    with translation.override(language):
        for game in option_games():
            assert rows.options_html(game) == render_to_string("games/partials/options.html", {"game": game})


@pytest.mark.django_db
def test_the_lists_show_hostile_names_escaped(client, make_user):
    hostile = make_user(HOSTILE)
    other = make_user()
    finished_game([hostile, other], rated=True)
    for path in (reverse("lobby"), reverse("profile", args=[other.username])):
        page = client.get(path).content.decode()
        assert "&lt;script&gt;&amp;&quot;&#x27;" in page
        assert HOSTILE not in page


@pytest.mark.django_db
def test_the_lobby_and_the_profile_list_games_without_loading_a_game_or_a_seat(client, make_user, start_game):
    from django.db.models.signals import post_init

    from games.models import Seat
    from games.play import lifecycle
    from tests.support.helpers import user_at

    running = start_game(3)
    me = user_at(running, 0)
    lifecycle.create_game(make_user(), num_players=4)
    finished_game([me, make_user()])
    client.force_login(me)
    made = []

    def count(sender, **kwargs):
        made.append(sender.__name__)

    for model in (Game, Seat):
        post_init.connect(count, sender=model)
    try:
        lobby = client.get(reverse("lobby"))
        mine = client.get(reverse("my_games"))
        profile = client.get(reverse("profile", args=[me.username]))
    finally:
        for model in (Game, Seat):
            post_init.disconnect(count, sender=model)
    assert made == []
    assert [len(lobby.context[name]) for name in ("my_games", "open_games", "finished")] == [1, 1, 1]
    assert len(mine.context["my_games"]) == 1
    assert [len(profile.context[name]) for name in ("in_play", "finished_rows")] == [1, 1]
    assert f'href="{running.get_absolute_url()}"' in lobby.content.decode()


# The quick game's fields as templates/games/partials/quick_game.html wrote them for each request.
QUICK_FIELDS_TEMPLATE = """{% for field in quick_form %}
      {% if field.name == "short_game" %}
      <fieldset><legend>{{ field.label }}</legend>{% for radio in field %}<span class="choice">{{ radio.tag }} <label for="{{ radio.id_for_label }}">{{ radio.choice_label }}</label></span> {% endfor %}</fieldset>
      {% elif field.field.widget.input_type == "checkbox" %}
      <label>{{ field }} {{ field.label }}</label>
      {% else %}
      <label>{{ field.label }} {{ field }}</label>
      {% endif %}
    {% endfor %}"""  # noqa: E501


@pytest.mark.django_db
def test_the_quick_game_form_is_kept_per_language_and_written_as_before(client, make_user):
    from django.conf import settings

    from games.web.finding import QuickGameForm

    client.force_login(make_user())
    # English again last: kept apart from the others.
    for language in (*LANGUAGES, "en"):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        page = client.get(reverse("lobby")).content.decode()
        assert f'<html lang="{language}"' in page
        with translation.override(language):
            expected = Template(QUICK_FIELDS_TEMPLATE).render(Context({"quick_form": QuickGameForm()}))
        assert "\n    " + expected + "\n    <button" in page, language


def _archive_row_html_before(row):
    """games/web/archive_views.py `_row_html` as it was (format_html for every part), kept to
    show that the faster one writes the same bytes."""
    from django.utils.html import format_html, format_html_join
    from django.utils.safestring import mark_safe
    from django.utils.translation import gettext as _

    game = row["game"]
    options = [
        _("%(players)s players, %(rounds)s rounds") % {"players": game.num_players, "rounds": game.num_rounds},
        _("veto cards") if game.veto else _("no veto"),
    ]
    if game.rated:
        options.append(_("rated"))
    if game.practice:
        options.append(format_html('<span class="badge practice">{}</span>', _("practice game")))
    if game.private:
        options.append(_("private"))
    if game.imported:
        options.append(_("imported"))
    note = format_html_join(", ", "{}", ((option,) for option in options))
    items = []
    for player in row["ranking"]:
        shown = format_html(
            '<span class="lobby-player colour-{}"><span class="chip">{}</span> {}</span>',
            player["colour"], player["label"], player["username"],
        )
        if player["archive_url"]:
            shown = format_html(
                '<a href="{}" class="player-link" title="{}">{}</a>',
                player["archive_url"], _("Games of %(name)s") % {"name": player["username"]}, shown,
            )
        items.append(format_html(
            '\n          <li><span class="place">{}.</span> {} <strong class="score">{}</strong></li>',
            player["place"], shown, player["score"],
        ))
    return _("Game %(n)s") % {"n": game.pk}, note, mark_safe("".join(items))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_archives_rows_are_written_as_before(language):
    from games.reading.listing import ListedGame
    from games.web.archive_views import _row_html

    people = [
        {**player, "archive_url": url}
        for player, url in zip(players(), itertools.cycle([None, "/archive/?player=a%3Cb&against=%22x%27"]))
    ]
    flags = ("short_game", "veto", "rated", "practice", "private", "imported")
    memo = {}
    with translation.override(language):
        for number, values in enumerate(itertools.product((False, True), repeat=len(flags))):
            game = ListedGame(number + 1, None, 2 + number % 4, *values)
            row = {"game": game, "ranking": people[number % 40:number % 40 + 2 + number % 4]}
            # Once with a page's memo (its players seen before), once without.
            assert _row_html(row, memo) == _row_html(row) == _archive_row_html_before(row)


# The loops of the lobby's "my games" and open games and of the profile's games in play, as their
# templates wrote them before the rows were written in Python (the countdown's clock handed in,
# as the filter that made it did).
MY_GAMES_LOOP = "{% load i18n %}" + '{% for row in my_games %}\n      <tr{% if row.your_move %} class="your-turn"{% endif %}>\n        <td><a href="{{ row.game.get_absolute_url }}">{% blocktranslate with n=row.game.pk %}Game {{ n }}{% endblocktranslate %}</a>\n          <div class="note">{{ row.options_html }}</div></td>\n        <td class="players-list">{{ row.players_html }}</td>\n        <td>{% if row.game.status == "open" %}{% blocktranslate count free=row.free_seats %}waiting for {{ free }} more player{% plural %}waiting for {{ free }} more players{% endblocktranslate %}{% else %}{% blocktranslate with round=row.game.round rounds=row.game.num_rounds %}round {{ round }} of {{ rounds }}{% endblocktranslate %}{% endif %}</td>\n        <td class="turn">{% if row.your_move %}<span class="your-move">{% translate "Your move" %}</span>{% elif row.to_move %}{% for player in row.to_move %}{{ player.username }}{% if not forloop.last %}, {% endif %}{% endfor %} {% translate "to move" %}{% endif %}{% if row.to_move and row.deadline %} <span class="time-left">· {% with clock=row.clock %}{% include "games/partials/countdown.html" %}{% endwith %}</span>{% endif %}</td>\n      </tr>\n    {% endfor %}'  # noqa: E501
OPEN_GAMES_LOOP = "{% load i18n %}" + '{% for row in open_games %}\n      <tr>\n        <td><a href="{{ row.game.get_absolute_url }}">{% blocktranslate with n=row.game.pk %}Game {{ n }}{% endblocktranslate %}</a></td>\n        <td class="players-list">{{ row.players_html }}</td>\n        <td class="rating" data-label="{% translate "Creator\'s rating" %}">{% if row.creator_rating is None %}{% translate "not rated yet" %}{% else %}{{ row.creator_rating }}{% if row.creator_provisional %} <span class="note">{% translate "provisional" %}</span>{% endif %}{% endif %}</td>\n        <td>{{ row.players|length }} / {{ row.game.num_players }}</td>\n        <td>{{ row.options_html }}</td>\n        <td>\n          {% if user.is_authenticated %}\n          <form method="post" action="{% url \'join\' row.game.pk %}">{% csrf_token %}<button type="submit">{% translate "Join" %}</button></form>\n          {% endif %}\n        </td>\n      </tr>\n    {% endfor %}'  # noqa: E501
IN_PLAY_LOOP = "{% load i18n %}" + '{% for row in in_play %}\n      <tr>\n        <td><a href="{{ row.game.get_absolute_url }}">{% blocktranslate with n=row.game.pk %}Game {{ n }}{% endblocktranslate %}</a>\n          <div class="note">{{ row.options_html }}</div></td>\n        <td class="players-list">{{ row.players_html }}</td>\n        <td>{% blocktranslate with round=row.game.round rounds=row.game.num_rounds %}round {{ round }} of {{ rounds }}{% endblocktranslate %}</td>\n      </tr>\n    {% endfor %}'  # noqa: E501


def row_games():
    """Rows of games as the lobby's lists hold them (composed): open with one or more seats free,
    running with the reader to move, with others to move (a hostile name among them) with and
    without a deadline (one passed), and none to move; creators rated, provisional or not rated."""
    from datetime import UTC, datetime, timedelta

    from games.reading.listing import RowGame

    now = datetime(2026, 3, 29, 0, 30, tzinfo=UTC)
    people = players()[::29]
    out = []
    for number, (status, free, mine, deadline) in enumerate(itertools.product(
        ("open", "active"), (1, 2), (False, True), (None, now + timedelta(hours=50, minutes=3), now - timedelta(1)),
    )):
        game = RowGame(
            pk=10_000 + number, status=status, num_players=5, short_game=bool(number % 2), veto=True,
            show_castillo=False, time_per_move=86400, vacations_allowed=True, rated=bool(number % 3), practice=False,
            private=False, imported=False, round=None if status == "open" else 1 + number % 9, to_act=[],
            colours=[], standings=[], deadline=deadline, creator_id=None, created_at=now, started_at=now,
            finished_at=None,
        )
        to_move = [] if status == "open" else people[number % 3:number % 3 + 1 + number % 2]
        out.append({
            "game": game, "players": people[: 5 - free], "free_seats": free, "your_move": mine and bool(to_move),
            "to_move": to_move, "deadline": deadline,
            "creator_rating": [None, 1234, -5][number % 3], "creator_provisional": bool(number % 2),
        })
    return now, rows.compose(out)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("zone", ["UTC", "Europe/Rome", "America/St_Johns"])
def test_the_lobbys_and_the_profiles_rows_are_written_as_their_loops_wrote_them(language, zone):
    from django.contrib.auth.models import AnonymousUser
    from django.utils import timezone

    from games import clocks

    now, listed = row_games()
    reader = type("Reader", (), {"is_authenticated": True})
    with translation.override(language), timezone.override(zone):
        for row in listed:
            row["clock"] = row["deadline"] and clocks.countdown(row["deadline"], now)
        assert rows.my_games_html(listed, now) == Template(MY_GAMES_LOOP).render(Context({"my_games": listed}))
        assert rows.in_play_html(listed) == Template(IN_PLAY_LOOP).render(Context({"in_play": listed}))
        assert rows.open_games_html(listed, "t0k<n") == Template(OPEN_GAMES_LOOP).render(
            Context({"open_games": listed, "user": reader, "csrf_token": "t0k<n"})
        )
        assert rows.open_games_html(listed) == Template(OPEN_GAMES_LOOP).render(
            Context({"open_games": listed, "user": AnonymousUser()})
        )
    html = rows.my_games_html(listed, now)
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("zone", ["UTC", "America/St_Johns"])
def test_the_rows_kept_with_their_markup_are_written_as_the_loops_wrote_them(language, zone):
    """`compose_mine` and `compose_open` keep each row's markup but its countdown, rating and join
    form (with the row, in the cache: pickled); the rows written from it are the loops' bytes, the
    countdown in the reader's time zone of the request."""
    import pickle

    from django.contrib.auth.models import AnonymousUser
    from django.utils import timezone

    from games import clocks

    now, listed = row_games()
    reader = type("Reader", (), {"is_authenticated": True})
    with translation.override(language):
        # The loops' rows composed in the language too, as the kept ones are.
        rows.compose(listed)
        mine = pickle.loads(pickle.dumps(rows.compose_mine([dict(row) for row in listed])))
        opened = pickle.loads(pickle.dumps(rows.compose_open([dict(row) for row in listed])))
        assert all("row_html" in row for row in mine + opened)
        with timezone.override(zone):
            for row in listed:
                row["clock"] = row["deadline"] and clocks.countdown(row["deadline"], now)
            assert rows.my_games_html(mine, now) == Template(MY_GAMES_LOOP).render(Context({"my_games": listed}))
        assert rows.open_games_html(opened, "t0k<n") == Template(OPEN_GAMES_LOOP).render(
            Context({"open_games": listed, "user": reader, "csrf_token": "t0k<n"})
        )
        assert rows.open_games_html(opened) == Template(OPEN_GAMES_LOOP).render(
            Context({"open_games": listed, "user": AnonymousUser()})
        )
