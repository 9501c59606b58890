"""The game log in the reader's language: every kind of event said in English, Italian and French,
naming players by their colour word and regions and cards in that language; and the names the
board, the rules page and the map show."""

import random
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.engine import apply_move, new_game, random_move, to_act, view_for
from games.words import board_map
from games.words.log_text import EVENT_KINDS, SITE_EVENT_KINDS, Names, event_html, step_html
from games.words.texts import area_name, card_text, card_title, fill_view

NAMES = Names(["red", "blue", "green"], {0: "ana", 1: "blas", 2: "cris"})
SHIFT = {"seat": 1, "from": "galicia", "to": "provinces", "count": 2}
AWARD = {"seat": 0, "points": 5, "reason": "first"}

# One event of every kind the engine writes (games/engine/README.md, Events), and what each must
# name: regions (by id) and cards (by id).
EVENTS = [
    ({"event": "setup", "colours": ["red", "blue", "green"], "homes": ["galicia", "aragon", "seville"],
      "king": "granada", "first_bidder": 1}, ["galicia", "granada"], []),
    ({"event": "round", "cards": ["veto", "eviction"], "first_bidder": 0}, [], ["veto", "eviction"]),
    ({"event": "bid", "seat": 0, "card": 9}, [], []),
    ({"event": "order", "order": [2, 0, 1]}, [], []),
    ({"event": "court", "seat": 0, "count": 3, "from_regions": {"valencia": 1}}, ["valencia"], []),
    ({"event": "court", "seat": 0, "count": 0, "power_card": 13}, [], []),
    ({"event": "court", "seat": 0, "count": 0}, [], []),
    ({"event": "take_card", "seat": 1, "card": "royal_adviser"}, [], ["royal_adviser"]),
    ({"event": "place", "seat": 1, "to": [["basque", 2], ["castillo", 1]]}, ["basque"], []),
    ({"event": "place", "seat": 1, "to": []}, [], []),
    ({"event": "decline", "seat": 2, "card": "decay_3"}, [], ["decay_3"]),
    ({"event": "special", "seat": 2, "card": "eviction", "order": [0, 1], "region": "old_castile"},
     ["old_castile"], ["eviction"]),
    ({"event": "veto_question", "seat": 0, "window": "plan", "holders": [1],
      "steps": [{"step": "shift", "shifts": [SHIFT]}, {"step": "king", "region": "new_castile"}]},
     ["galicia", "new_castile"], []),
    ({"event": "veto_question", "seat": 0, "window": "disks", "holders": [1, 2]}, [], []),
    ({"event": "veto_question", "seat": 0, "window": "share", "holders": [1], "before": 2}, [], []),
    ({"event": "allowed", "window": "plan"}, [], []),
    ({"event": "veto", "seat": 1, "window": "plan", "cut": 2}, [], []),
    ({"event": "veto", "seat": 1, "window": "plan", "cut": 0}, [], []),
    ({"event": "veto", "seat": 1, "window": "disks"}, [], []),
    ({"event": "veto", "seat": 1, "window": "share", "before": 2}, [], []),
    ({"event": "counter_veto", "seat": 2, "vetoer": 1}, [], []),
    ({"event": "veto_stands", "seat": 1}, [], []),
    ({"event": "awaiting_choices", "seats": [1, 2]}, [], []),
    ({"event": "chosen", "seat": 2}, [], []),
    ({"event": "reveal", "choices": [{"seat": 1, "region": "seville"}]}, ["seville"], []),
    ({"event": "share_none", "seat": 1}, [], []),
    ({"event": "shift", "shifts": [SHIFT, {"seat": 2, "from": "court", "to": "catalonia", "count": 1}]},
     ["galicia", "catalonia"], []),
    ({"event": "points", "seat": 0, "area": "aragon", "points": 5, "reason": "first"}, ["aragon"], []),
    ({"event": "points", "seat": 0, "area": "castillo", "points": 2, "reason": "king_bonus"}, [], []),
    ({"event": "points", "seat": 1, "area": "valencia", "points": 3, "reason": "tied_second"}, ["valencia"], []),
    ({"event": "king", "region": "catalonia"}, ["catalonia"], []),
    ({"event": "mobile", "scoreboard": "8/4/0", "area": "basque"}, ["basque"], []),
    ({"event": "grande", "seat": 0, "region": "new_castile"}, ["new_castile"], []),
    ({"event": "retake", "seat": 0, "card": 7}, [], []),
    ({"event": "retake", "seat": 0}, [], []),
    ({"event": "retake_private", "seat": 0, "card": 7, "private": True}, [], []),
    ({"event": "keep_veto", "seat": 2, "until_round": 5}, [], []),
    ({"event": "discard", "cards": ["score_fours"]}, [], ["score_fours"]),
    ({"event": "veto_expired", "seat": 2}, [], []),
    ({"event": "general_scoring"}, [], []),
    ({"event": "castillo_reveal", "seat": 1, "region": "granada", "count": 2, "to_court": False}, ["granada"], []),
    ({"event": "castillo_reveal", "seat": 1, "region": "galicia", "count": 1, "to_court": True}, ["galicia"], []),
    ({"event": "scores", "scores": [40, 38, 12]}, [], []),
    ({"event": "game_over", "ranking": [[1, 0], [2, 1], [3, 2]]}, [], []),
    ({"event": "autopilot_on", "seat": 1}, [], []),
    ({"event": "autopilot_chosen", "seat": 1}, [], []),
    ({"event": "autopilot_off", "seat": 1}, [], []),
    ({"event": "answered_ahead", "seat": 1, "private": True}, [], []),
]
COLOUR = {"en": "red", "it": "rosso", "fr": "rouge"}


def text(html):
    return re.sub(r"<[^>]+>", "", str(html)).replace("&#x27;", "'").replace("&amp;", "&")


def test_every_kind_of_event_has_a_case_here():
    assert {event["event"] for event, _, _ in EVENTS} == (EVENT_KINDS | SITE_EVENT_KINDS) - {"legacy"}


@pytest.mark.parametrize("event, regions, cards", EVENTS, ids=[e["event"] for e, _, _ in EVENTS])
def test_each_event_is_said_in_the_readers_language(event, regions, cards):
    said = {}
    for language in ("en", "it", "fr"):
        with translation.override(language):
            html = str(event_html({"round": 2, **event}, NAMES))
            plain = text(html)
            for region in regions:
                assert area_name(region) in plain, (language, region, plain)
            for card in cards:
                assert card_title(card) in plain, (language, card, plain)
                assert card_text(card) in plain, (language, card, plain)
            if event.get("seat") == 0 and event["event"] not in ("veto_question", "retake_private"):
                assert f"ana ({COLOUR[language]})" in plain, (language, plain)
            said[language] = plain
    assert said["it"] != said["en"] and said["fr"] != said["en"] and said["it"] != said["fr"], said


def test_a_region_and_a_card_take_each_languages_own_words():
    expected = {
        "it": ("Antica Castiglia", "Paesi Baschi", "Intrigo: 4 tuoi", "Perdita di autorità: 3 dalla corte"),
        "fr": ("Vieille Castille", "Pays Basque", "Intrigue\u00a0: 4 à vous",
               "Affaiblissement de l'autorité\u00a0: 3 de la cour"),
        "en": ("Old Castile", "Basque Country", "Intrigue: 4 own", "Decay: 3 from court"),
    }
    for language, (old_castile, basque, intrigue, decay) in expected.items():
        with translation.override(language):
            assert (area_name("old_castile"), area_name("basque")) == (old_castile, basque)
            assert (card_title("intrigue_4_own"), card_title("decay_3")) == (intrigue, decay)


def test_steps_of_a_veto_question_are_said_in_the_readers_language():
    steps = [
        {"step": "points", "area": "seville", "awards": [AWARD]},
        {"step": "mobile", "scoreboard": "4/0/0", "area": "valencia"},
        {"step": "grande", "seat": 0, "region": "aragon"},
        {"step": "retake", "seat": 0, "card": 4},
        {"step": "keep_veto", "seat": 0},
    ]
    for step in steps:
        said = {}
        for language in ("en", "it", "fr"):
            with translation.override(language):
                said[language] = text(step_html(step, NAMES))
                for key in ("area", "region"):
                    if key in step:
                        assert area_name(step[key]) in said[language], said
        assert len(set(said.values())) == 3, said


def test_a_whole_random_game_is_logged_in_italian_and_french():
    state = new_game(3, seed=5, short_game=True, veto=True)
    rng = random.Random(5)
    names = Names(state.colours, {0: "ana", 1: "blas", 2: "cris"})
    kinds = set()
    while not state.is_over:
        seat = to_act(state)[0]
        state = apply_move(state, seat, random_move(state, seat, rng))
        for event in state.events:
            kinds.add(event["event"])
            said = {}
            for language in ("en", "it", "fr"):
                with translation.override(language):
                    said[language] = str(event_html(event, names))
            assert said["it"] != said["en"] and said["fr"] != said["en"], said
    assert {"bid", "place", "points", "game_over"} <= kinds


def test_the_view_the_pages_read_is_filled_in_the_readers_language():
    state = new_game(3, seed=2)
    with translation.override("fr"):
        view = fill_view(view_for(state, 0))
        titles = {card["id"]: str(card_title(card["id"])) for card in view["cards"]}
    with translation.override("en"):
        english = {card["id"]: str(card_title(card["id"])) for card in view["cards"]}
    assert {region["id"]: region["name"] for region in view["regions"]}["seville"] == "Séville"
    assert view["castillo"]["name"] == "Castillo"
    for card in view["cards"]:
        assert card["title"] == titles[card["id"]] and card["text"]
    assert titles != english
    with translation.override("it"):
        view = fill_view(view_for(state, 0))
        drawing = board_map.board_map(view, "red")
    assert {region["id"]: region["name"] for region in view["regions"]}["old_castile"] == "Antica Castiglia"
    assert "Antica" in str(drawing)


def test_the_map_names_lands_and_seas_in_the_readers_language():
    with translation.override("it"):
        labels = [label["text"] for label in board_map.fixed_parts()["labels"]]
    assert "FRANCIA" in labels and "Mediterraneo" in labels
    with translation.override("fr"):
        labels = [label["text"] for label in board_map.fixed_parts()["labels"]]
    assert "Golfe de Gascogne" in labels


@pytest.mark.django_db
@pytest.mark.parametrize(
    "language, words",
    [
        ("it", ["Galizia", "Antica Castiglia", "Intrigo: una tua regione", "Il ritorno del Re", "Espulsione",
                "Mazzo 1: intrigo"]),
        ("fr", ["Galice", "Vieille Castille", "Intrigue\u00a0: une de vos régions", "Le retour du roi", "Expulsion",
                "Pile 1\u00a0: intrigue"]),
    ],
)
def test_the_rules_pages_card_catalogue_is_in_the_readers_language(language, words):
    html = Client(headers={"accept-language": language}).get(reverse("rules")).content.decode()
    html = html.replace("&#x27;", "'")
    for word in words:
        assert word in html, (language, word)


def test_the_cached_statistics_are_named_in_the_readers_language():
    from games.reading.statistics import named

    snapshot = {"homes": [{"region": "seville", "name": "Seville"}],
                "cards": [{"card": "eviction", "title": "Eviction"}]}
    with translation.override("fr"):
        shown = named(snapshot)
    assert shown["homes"][0]["name"] == "Séville" and shown["cards"][0]["title"] == "Expulsion"
    assert snapshot["homes"][0]["name"] == "Seville"


@pytest.mark.django_db
def test_the_game_page_names_regions_and_cards_in_each_readers_language_cache_or_not(start_game):
    from tests.support.helpers import HTMX, logged_in, state_of, user_at

    game = start_game(3)
    state = state_of(game)
    offered = state.display[0]
    client = logged_in(user_at(game, 0))
    for language, seville in (("it", "Siviglia"), ("fr", "Séville"), ("it", "Siviglia"), ("en", "Seville")):
        client.cookies.load({"django_language": language})
        # The page, then the play partial, which the second reader of a language gets from the cache.
        pages = ((reverse("game", args=[game.pk]), {}), (reverse("game_partial", args=[game.pk, "play"]), HTMX))
        for url, extra in pages:
            html = client.get(url, HTTP_ACCEPT_LANGUAGE=language, **extra).content.decode().replace("&#x27;", "'")
            with translation.override(language):
                assert seville in html and card_title(offered) in html, (language, url)


def test_a_player_who_sends_no_caballero_to_court_is_said_to_send_none():
    said = {}
    for language in ("en", "it", "fr"):
        with translation.override(language):
            said[language] = text(event_html({"round": 2, "event": "court", "seat": 0, "count": 0}, NAMES))
    assert "moves no caballero to court." in said["en"], said
    assert "nessun Caballero" in said["it"] and "aucun Caballero" in said["fr"], said
    assert not any(re.search(r"\b0\b", plain) for plain in said.values()), said
