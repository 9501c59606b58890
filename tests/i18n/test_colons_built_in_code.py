"""French puts a non-breaking space before a colon also where the code, not a catalogue entry, puts
a label and its text together: the log's caballeros moved by player, the map's pieces in a
region's title, the archive's refusal of a filter (a tournament's number, say) and quick game's
refusal of its options. Each read "Tournoi: ..." in French."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import translation

from games.words.board_map import areas_markup, board_map
from games.words.log_text import Names, event_html
from tests.support.helpers import logged_in

SHIFT = {"event": "shift", "shifts": [{"seat": 0, "count": 2, "from": "galicia", "to": "aragon"}]}


@pytest.mark.parametrize("language, colon", [("fr", "\u00a0: "), ("en", ": ")])
def test_the_logs_caballeros_moved_by_player(language, colon):
    with translation.override(language):
        html = str(event_html(SHIFT, Names(["red", "blue"], {0: "ana", 1: "bo"})))
    assert f"</span>{colon}2" in html


@pytest.mark.parametrize("language, colon", [("fr", "\u00a0: "), ("en", ": ")])
def test_the_maps_pieces_in_a_regions_title(language, colon):
    from games.engine import new_game, view_for

    view = view_for(new_game(num_players=3, seed=1), 0)
    with translation.override(language):
        markup = str(areas_markup(view, board_map(view)))
    titles = [part.split("</title>")[0] for part in markup.split("<title>")[1:]]
    with_pieces = [title for title in titles if " · " in title and (":" in title)]
    assert with_pieces
    assert all(f"{colon}" in title for title in with_pieces)
    if language == "fr":
        assert not any(" :" in title.replace("\u00a0:", "") or ": " in title.replace("\u00a0: ", "")
                       for title in with_pieces)


@pytest.mark.django_db
def test_the_archives_refusal_of_a_tournament_filter(client):
    response = client.get(reverse("archive"), {"tournament": "abc"}, HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 400
    assert "Tournoi\u00a0: " in response.content.decode()


@pytest.mark.django_db
def test_quick_games_refusal_of_its_options(make_user):
    user = make_user()
    user.language = "fr"
    user.save()
    client = logged_in(user)
    response = client.post(reverse("quick_game"), {"num_players": "9", "time_per_move": "86400"})
    (message,) = [str(m) for m in get_messages(response.wsgi_request)]
    assert "\u00a0: " in message and ": " not in message.replace("\u00a0: ", "")
