"""The replay's privacy, tested like the live pages' leak tests.

While a game runs, a past position is shown to each reader exactly as his own live page showed it
then (a spectator's as spectators saw it): the same board, the same pending action, and only log
entries that his page had; never another seat's hand, secret choice or retaken card. Once the game
is over, everything is revealed to everyone who may see the game: each hand at each position, every
secret choice, the Castillo's counts, the card retaken."""

import functools
import random
import re
from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import strip_tags

from games.engine import apply_move, new_game, random_move, to_act
from games.engine.board import AREAS, CASTILLO_INDEX, COLOUR_LABELS, REGION_NAMES, REGIONS
from games.models import Game
from games.play import moving
from tests.support.helpers import HTMX, logged_in, play, state_of, user_at
from tests.support.replays import engine_positions, log_items, own_hand, replay, replay_url, revealed_hands, section

pytestmark = pytest.mark.django_db

COUNTDOWN = re.compile(r'<time class="countdown".*?</time>', re.S)
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]*"')
PENDING = re.compile(r'<section class="pending".*?</section>', re.S)


def secrets_in(state):
    """Which kinds of secret the position holds: hidden choices under way, a hidden retaken card."""
    kinds = set()
    action = state.action if state.phase == "special" else None
    if action and action["stage"] == "choices" and any(choice is not None for choice in action["choices"]):
        kinds.add("disks")
    if state.phase == "castillo" and any(choice is not None for choice in state.castillo_choices["choices"]):
        kinds.add("castillo")
    if any(event.get("private") for event in state.events):
        kinds.add("retake")
    return kinds


# The running game of these tests is looked at up to the start of this round.
LAST_ROUND_LOOKED_AT = 6


@functools.cache
def rich_seed(num_players=3):
    """A seed whose game, played as tests.support.helpers.play plays it, has before round 6 secret disks
    chosen one after the other, a Castillo choice made while another is awaited, and a hidden card
    retaken."""
    for seed in range(1, 400):
        state = new_game(num_players=num_players, seed=seed, short_game=True, veto=True)
        rng = random.Random(seed)
        seen = set()
        while state.round < LAST_ROUND_LOOKED_AT:
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
            seen |= secrets_in(state)
        if seen == {"disks", "castillo", "retake"}:
            return seed
    raise LookupError("no seed has every kind of secret")


PLACE_WHY = re.compile(r' data-place-why="[^"]*"')


def board(html):
    """A board as drawn for comparison: without the running clock and the placing highlights,
    which only the live page has."""
    html = COUNTDOWN.sub("", html)
    html = html.replace(" placeable", "")
    # The reasons an area takes no caballero, which the live map gives the seat placing.
    html = PLACE_WHY.sub("", html)
    return " ".join(html.split())


def pending(html):
    found = PENDING.search(html)
    return " ".join(found.group(0).split()) if found else None


def live_log(client, game):
    response = client.get(reverse("game_partial", args=[game.pk, "log"]) + "?all=1", **HTMX)
    items = re.findall(r'<li data-round="\d+"[^>]*>(.*?)</li>', response.content.decode(), re.S)
    return [" ".join(strip_tags(item).split()) for item in reversed(items)]


def get(client, game, name):
    response = client.get(reverse("game_partial", args=[game.pk, name]), **HTMX)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def recorded(start_game, make_user):
    """A running game played move by move through the services, with what each reader's live page
    showed at a sample of positions (every one holding a secret, and every fifth):
    (game, readers, {position: {reader: (board, pending, whole log)}}, states)."""
    game = start_game(3, seed=rich_seed(), short_game=True, veto=True)
    readers = {seat: logged_in(user_at(game, seat)) for seat in range(3)}
    readers["logged out"] = Client()
    readers["stranger"] = logged_in(make_user())
    users = {seat: user_at(game, seat) for seat in range(3)}
    rng = random.Random(game.seed)
    # The engine's own state beside the stored one: it keeps the events of the last move.
    seen, position, state = {}, 0, new_game(**game.engine_options())
    while state.round < LAST_ROUND_LOOKED_AT:
        if position % 5 == 0 or secrets_in(state):
            seen[position] = {
                who: (board(get(client, game, "board")), pending(get(client, game, "decision")), live_log(client, game))
                for who, client in readers.items()
            }
        seat = to_act(state)[0]
        move = random_move(state, seat, rng)
        moving.submit_move(game, user=users[seat], move=move, expected_version=game.version)
        game.refresh_from_db()
        state = apply_move(state, seat, move)
        position += 1
    assert state == state_of(game) and game.status == Game.Status.ACTIVE
    return game, readers, seen


def test_a_running_games_replay_shows_each_reader_a_past_position_only_as_his_own_page_showed_it(recorded):
    game, readers, seen = recorded
    states = engine_positions(game)
    assert {"disks", "castillo", "retake"} <= set().union(*(secrets_in(states[at]) for at in seen))
    for at, then in seen.items():
        state = states[at]
        choices, names = [], AREAS
        if state.phase == "special" and state.action["stage"] == "choices":
            choices = state.action["choices"]
        elif state.phase == "castillo":
            choices, names = state.castillo_choices["choices"], REGIONS
        retaken = [event for event in state.events if event.get("private")]
        for who, client in readers.items():
            html = replay(client, game, at)
            live_board, live_pending, live_whole_log = then[who]
            assert board(section(html, "board")) == live_board, f"{who} at {at}: the board differs"
            assert pending(section(html, "decision")) == live_pending, f"{who} at {at}: the pending action differs"
            missing = Counter(log_items(html)) - Counter(live_whole_log)
            assert not missing, f"{who} at {at} reads what his page did not say then: {missing}"
            # And the secrets hunted one by one, as the live pages' leak tests do.
            text = " ".join(strip_tags(html).split())
            assert "data-revealed-card" not in html and "Chosen in secret" not in text and "Secret then" not in text
            seat = who if isinstance(who, int) else None
            assert own_hand(html) == (sorted(state.hands[seat]) if seat is not None else []), (who, at)
            own = re.findall(r"Your choice: ([^.]+)\.", text)
            mine = choices[seat] if seat is not None and choices else None
            assert own == ([REGION_NAMES[names[mine]]] if mine is not None else []), (who, at)
            for event in retaken:
                said = f"the power card you took back is {event['card']}." in text
                assert said == (event["seat"] == seat), f"{who} at {at}: the retaken card"
            if not state.show_castillo:
                castillo = section(html, "board").split('id="area-castillo"')[1].split("</svg>")[0]
                # A closed Castillo shows a player his own caballeros in it, never another's.
                colours = set(re.findall(r'<g class="cube" data-colour="(\w+)"', castillo))
                allowed = {state.colours[seat]} if seat is not None else set()
                assert colours <= allowed, f"{who} at {at} sees the Castillo's counts of {colours - allowed}"


def test_the_full_page_and_its_partial_agree_and_strangers_of_a_private_game_get_nothing(start_game, make_user):
    game = start_game(3, private=True)
    play(game, moves=20)
    member = logged_in(user_at(game, 1))
    page = member.get(replay_url(game, 7))
    assert page.status_code == 200
    assert board(section(page.content.decode(), "board")) == board(section(replay(member, game, 7), "board"))
    for stranger in (Client(), logged_in(make_user())):
        for url in (replay_url(game, 7), replay_url(game, 7, partial=True), replay_url(game, back=1)):
            assert stranger.get(url, **HTMX).status_code == 404, url


def test_after_the_end_every_position_reveals_every_hand_to_everyone(start_game, make_user):
    game = start_game(3, seed=rich_seed(), short_game=True, veto=True)
    play(game)
    states = engine_positions(game)
    assert states[-1].is_over
    readers = {"seat 0": logged_in(user_at(game, 0)), "logged out": Client(), "stranger": logged_in(make_user())}
    for at in range(0, len(states), 7):
        pages = {who: replay(client, game, at) for who, client in readers.items()}
        hands = revealed_hands(pages["logged out"])
        assert hands == {seat: sorted(states[at].hands[seat]) for seat in range(3)}, at
        # Everyone reads the same; a player's page only marks his seat as his.
        unmarked = {board(section(html, "board")).replace(' me"', '"').replace(" (you)", "") for html in pages.values()}
        assert len(unmarked) == 1
        assert "Your power cards" not in pages["seat 0"] and pages["seat 0"].count("(you)") == 1


def test_after_the_end_the_replay_reveals_secret_choices_the_castillo_and_the_card_retaken(start_game):
    game = start_game(3, seed=rich_seed(), short_game=True, veto=True)
    play(game)
    states = engine_positions(game)
    names = {seat: user_at(game, seat).display_name for seat in range(3)}
    client = Client()
    kinds = set()
    for at, state in enumerate(states):
        found = secrets_in(state)
        if not found:
            continue
        kinds |= found
        html = replay(client, game, at)
        text = " ".join(strip_tags(html).split())
        if found & {"disks", "castillo"}:
            choices = state.castillo_choices["choices"] if state.phase == "castillo" else state.action["choices"]
            assert "Chosen in secret:" in text
            for seat, choice in enumerate(choices):
                if choice is not None:
                    assert re.search(rf"{names[seat]} \(\w+\): [A-Z]", text), (at, seat)
        if "castillo" in found:
            castillo = section(html, "board").split('id="area-castillo"')[1]
            for seat, count in enumerate(state.caballeros[CASTILLO_INDEX]):
                if count:
                    letter = COLOUR_LABELS[state.colours[seat]]
                    piece = rf'<tspan class="letter">{letter}</tspan><tspan class="count">{count}<'
                    assert re.search(piece, castillo), (at, seat)
        if "retake" in found:
            event = next(e for e in state.events if e.get("private"))
            assert f"the power card {names[event['seat']]}" in text and f"took back is {event['card']}." in text
    assert kinds == {"disks", "castillo", "retake"}
