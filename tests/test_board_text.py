"""The board in words for screen readers (games/words/board_text.py): the map's SVG is described by a
visually hidden table of each player's caballeros in each region, the King, the Castillo and the
scores, which reads as the position stands and says nothing the seat may not see."""

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from games.engine.board import CASTILLO_INDEX, REGIONS
from games.words.texts import area_name
from tests.support.helpers import logged_in, state_of, user_at

pytestmark = pytest.mark.django_db


def _castillo_shared(state):
    """Caballeros of at least two players in the Castillo, the game running."""
    return not state.is_over and sum(1 for count in state.caballeros[CASTILLO_INDEX] if count) >= 2


def board_text(client, game):
    html = client.get(reverse("game", args=[game.pk])).content.decode()
    svg = re.search(r'<svg class="map"[^>]*>', html).group(0)
    assert 'aria-describedby="board-text"' in svg and 'role="group"' in svg
    block = re.search(r'<div id="board-text" class="visually-hidden">(.*?)</div>', html, re.S).group(1)
    rows = {
        area: [" ".join(strip_tags(cell).split()) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        for area, row in re.findall(r'<tr data-area="(\w+)">(.*?)</tr>', block, re.S)
    }
    header = [" ".join(strip_tags(cell).split()) for cell in re.findall(r"<th scope=\"col\">(.*?)</th>", block)]
    scores = [" ".join(strip_tags(item).split()) for item in re.findall(r"<li[^>]*>(.*?)</li>", block, re.S)]
    return header, rows, scores


def test_the_board_in_words_names_each_players_caballeros_the_king_and_the_scores(game_at):
    game = game_at(_castillo_shared, show_castillo=True)
    state = state_of(game)
    users = [user_at(game, seat) for seat in range(3)]
    header, rows, scores = board_text(logged_in(users[1]), game)
    assert header[2:] == [f"{user.username} ({state.colours[seat]})" for seat, user in enumerate(users)]
    assert list(rows) == [*REGIONS, "castillo"]
    for index, area in enumerate([*REGIONS, "castillo"]):
        row = rows[area]
        assert row[0].startswith(area_name(area))
        assert ("the King is here" in row[0]) == (index == state.king)
        counts = [int(cell.split(" ")[0]) for cell in row[2:]]
        assert counts == list(state.caballeros[index]), area
        for seat in range(3):
            assert ("Grande" in row[2 + seat]) == (state.grandes[seat] == index)
    # Shown by the option, the Castillo's counts are everyone's to read.
    assert "hidden" not in " ".join(rows["castillo"])
    # The scores, highest first, each with its player.
    read = [re.fullmatch(r"(\S+) \(\w+\): (\d+) points?", score).groups() for score in scores]
    assert sorted((name, int(points)) for name, points in read) == sorted(
        (user.username, state.scores[seat]) for seat, user in enumerate(users))
    assert [int(points) for _, points in read] == sorted(state.scores, reverse=True)


def test_a_closed_castillo_reads_only_the_readers_own_caballeros(game_at):
    game = game_at(_castillo_shared, show_castillo=False)
    state = state_of(game)
    counts = state.caballeros[CASTILLO_INDEX]
    for seat in range(3):
        _, rows, _ = board_text(logged_in(user_at(game, seat)), game)
        castillo = rows["castillo"]
        assert "closed" in castillo[0]
        for other in range(3):
            if other == seat:
                assert castillo[2 + other] == str(counts[seat])
            else:
                assert castillo[2 + other] == "hidden"
    # A spectator reads no count at all.
    spectator = logged_in(type(user_at(game, 0)).objects.create_user("onlooker", "o@example.org", "x-Passw0rd-long"))
    _, rows, _ = board_text(spectator, game)
    assert rows["castillo"][2:] == ["hidden"] * 3


def test_equal_scores_are_read_in_the_scoreboards_order():
    """The table's scores list equal scores as the scoreboard beside the map does (seat order), so
    that a screen reader and the eye meet the players in the same order."""
    from games.engine import new_game, view_for
    from games.engine.board import COLOURS
    from games.templatetags.game_page import players_by_score
    from games.words.board_text import board_text

    for seed in range(20):
        view = view_for(new_game(num_players=4, seed=seed), 0)
        seat_colours = [player["colour"] for player in view["players"]]
        if seat_colours != sorted(seat_colours, key=COLOURS.index):
            break
    assert seat_colours != sorted(seat_colours, key=COLOURS.index), "a table whose seats are not in colour order"
    assert len({player["score"] for player in view["players"]}) == 1, "all level at the start"
    assert [row["colour"] for row in board_text(view)["scores"]] == [p["colour"] for p in players_by_score(view)]
