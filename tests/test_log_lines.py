"""Each stored move's log lines are said once per reader and language and then kept
(games/reading/log_lines.py): what is kept for one reader never reaches another (seat, spectator,
language, names), and a page says no kept move again."""

import pytest
from django.core.cache import caches
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.models import Game
from games.reading import log_lines
from games.words import log_text
from games.words.log_text import Names
from tests.support.helpers import play

NAMES = Names(["red", "blue", "green"], {0: "ana", 1: "blas", 2: "cris"})
GAME = Game(pk=7, seed=11)
# One move of seat 0: a public line, and the card it took back, which seat 0 alone may read.
MOVE = (
    [
        {"event": "retake", "seat": 0, "round": 3},
        {"event": "retake_private", "seat": 0, "card": 7, "private": True, "round": 3},
    ],
    False,
    False,
    0,
    42,
)
SECRET = "the power card you took back is 7"


@pytest.fixture(autouse=True)
def empty():
    caches["log_lines"].clear()


@pytest.fixture
def said(monkeypatch):
    """How many moves were said anew (not taken from the kept lines)."""
    calls = []
    move_log = log_text.move_log

    def counted(*args, **kwargs):
        calls.append(args[2])
        return move_log(*args, **kwargs)

    monkeypatch.setattr(log_lines, "move_log", counted)
    return calls


def lines(reader, names=NAMES, moves=(MOVE,), since=0):
    return " ".join(line["html"] for line in log_lines.moves_lines(GAME, list(moves), names, reader, since))


def test_a_moves_lines_are_said_once_per_reader_and_then_kept(said):
    first = lines(0)
    assert lines(0) == first and len(said) == 1
    assert lines(None) == lines(None) and said == [0, None]


def test_a_private_line_kept_for_its_seat_never_reaches_another_seat_nor_the_spectators(said):
    assert SECRET in lines(0)
    assert SECRET not in lines(1)
    assert SECRET not in lines(None)
    assert SECRET in lines(0)  # from what was kept
    assert said == [0, 1, None]


def test_a_reader_marking_its_lines_changes_nothing_kept_for_the_next(said):
    # The store keeps its values unpickled (elgrande_site/memory_cache.py), and the page marks the
    # lines it reads as new (selectors._mark_new): a mark must stay on its own render.
    for _reading in range(2):
        read = log_lines.moves_lines(GAME, [MOVE], NAMES, 0, 0)
        assert read and all("new" not in line for line in read)
        for line in read:
            line["new"] = True
            line["html"] = "changed"
    assert "changed" not in lines(0) and len(said) == 1


def test_the_kept_lines_are_stored_as_they_are_and_expire():
    store = caches["log_lines"]
    value = ({"html": "x"},)
    store.set("k", value, timeout=60)
    assert store.get("k") is value and store.get_many(["k", "other"]) == {"k": value}
    store.set("old", value, timeout=-1)
    assert store.get("old") is None and store.get_many(["old"]) == {}
    assert store.add("k", ()) is False and store.add("new", ()) is True and store.get("new") == ()


def test_the_lines_kept_in_one_language_are_not_served_in_another():
    with translation.override("en"):
        english = lines(None)
    with translation.override("it"):
        italian = lines(None)
    with translation.override("fr"):
        french = lines(None)
    assert "takes back" in english
    assert "takes back" not in italian and "takes back" not in french and italian != french
    with translation.override("en"):
        assert lines(None) == english


def test_a_new_name_at_a_seat_is_said_anew():
    assert "ana" in lines(None)
    renamed = Names(["red", "blue", "green"], {0: "dora", 1: "blas", 2: "cris"})
    assert "dora" in lines(None, names=renamed) and "ana" not in lines(None, names=renamed)


def test_another_game_that_once_had_this_id_is_said_anew():
    assert "ana" in lines(None)
    other = ([{"event": "retake", "seat": 1, "round": 3}], False, False, 0, 42)
    html = log_lines.moves_lines(Game(pk=7, seed=12), [other], NAMES, None, 0)
    assert "blas" in html[0]["html"] and "ana" not in html[0]["html"]


@pytest.mark.django_db
def test_the_game_page_says_no_kept_move_again(start_game, said):
    game = start_game(3)
    play(game, moves=12)
    reader = Client()
    first = reader.get(reverse("game_partial", args=[game.pk, "log"]), HTTP_HX_REQUEST="true")
    assert first.status_code == 200 and len(said) >= 12
    said.clear()
    again = reader.get(reverse("game_partial", args=[game.pk, "log"]), HTTP_HX_REQUEST="true")
    assert again.content == first.content
    assert said == []


def test_a_site_event_added_to_a_kept_move_is_said():
    """A seat handed to the computer or taken back adds its event to the last stored move's."""
    assert "autopilot" not in lines(None)
    events, automatic, autopilot, mover, version = MOVE
    later = (events + [{"event": "autopilot_off", "seat": 1, "round": 3}], automatic, autopilot, mover, version)
    assert "blas" in lines(None, moves=[later])
