"""Games stored before the log was made of events still display: their moves are replayed to give
each its events, or, where the rules changed under them, their old sentences are kept."""

import importlib
import random

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse
from django.utils.html import strip_tags

from games.engine import GameState, apply_move, new_game, random_move, to_act
from games.models import Game, Move
from games.records.old_logs import rebuild
from tests.support.helpers import logged_in, play, user_at

OPTIONS = {"num_players": 3, "seed": 5, "short_game": False, "veto": True, "show_castillo": False}
OLD_LOG = [
    {"event": "setup", "round": 1, "text": "Red sits at seat 1; home region Aragon."},
    {"event": "bid", "round": 1, "seat": 0, "text": "Red plays power card 9."},
    {"event": "retake", "round": 1, "seat": 1, "private": True, "text": "You take back power card 4."},
]


def old_style_game(moves=40):
    """A game as the site stored it before: the state JSON with a `log` of sentences, and its moves."""
    state = new_game(**OPTIONS)
    rng = random.Random(1)
    made, events = [], []
    for _ in range(moves):
        seat = to_act(state)[0]
        move = random_move(state, seat, rng)
        state = apply_move(state, seat, move)
        made.append((seat, move))
        events.append(state.events)
    return {**state.to_json(), "log": OLD_LOG}, made, events


def test_a_game_whose_moves_replay_gets_each_moves_events_and_loses_its_log():
    stored, moves, events = old_style_game()
    rebuilt = rebuild(OPTIONS, stored, moves)
    assert rebuilt.replayed
    assert "log" not in rebuilt.state
    assert GameState.from_json(rebuilt.state) == GameState.from_json(stored)
    assert rebuilt.first_events == new_game(**OPTIONS).events
    assert rebuilt.move_events == events
    assert rebuilt.move_rounds[-1] == stored["round"]


@pytest.mark.parametrize("change", ["illegal move", "other position"])
def test_a_game_that_no_longer_replays_keeps_its_state_and_its_old_sentences(change):
    stored, moves, _events = old_style_game()
    if change == "illegal move":
        # e.g. a share of the King's return sent in secret, no longer a move at that point
        moves = moves + [(0, {"type": "share", "from": {"court": 3}})]
    else:
        stored["scores"] = [score + 1 for score in stored["scores"]]
    rebuilt = rebuild(OPTIONS, stored, moves)
    assert not rebuilt.replayed
    assert rebuilt.state == {key: value for key, value in stored.items() if key != "log"}
    assert rebuilt.first_events == [
        {"event": "legacy", "round": 1, "text": "Red sits at seat 1; home region Aragon."},
        {"event": "legacy", "round": 1, "text": "Red plays power card 9."},
        {"event": "legacy", "round": 1, "text": "You take back power card 4.", "private": True, "seat": 1},
    ]
    assert rebuilt.move_events == [[] for _ in moves]


def run_migration():
    migration = importlib.import_module("games.migrations.0004_rebuild_logs")
    migration.rebuild_logs(apps, None)


def make_old(game, log, break_replay=False):
    """Store `game` as the site did before the events: a log in the state, none beside the moves."""
    game.refresh_from_db()
    state = {**game.state, "log": log}
    if break_replay:
        state["scores"] = [score + 1 for score in state["scores"]]
    Game.objects.filter(pk=game.pk).update(state=state, first_events=[])
    Move.objects.filter(game=game).update(events=[], round=0)


@pytest.mark.django_db
def test_the_migration_rebuilds_the_events_of_a_stored_game_and_the_page_reads_them(start_game):
    game = start_game(3)
    play(game, moves=30)
    before = {move.version: (move.events, move.round) for move in Move.objects.filter(game=game)}
    first = Game.objects.get(pk=game.pk).first_events
    make_old(game, OLD_LOG)
    run_migration()
    game.refresh_from_db()
    assert "log" not in game.state
    assert game.first_events == first
    assert {move.version: (move.events, move.round) for move in Move.objects.filter(game=game)} == before
    assert "plays power card" in strip_tags(Client().get(reverse("game", args=[game.pk])).content.decode())


@pytest.mark.django_db
def test_the_migration_keeps_the_old_sentences_of_a_game_that_no_longer_replays(start_game):
    game = start_game(3)
    play(game, moves=5)
    make_old(game, OLD_LOG, break_replay=True)
    run_migration()
    game.refresh_from_db()
    assert "log" not in game.state
    assert all(event["event"] == "legacy" for event in game.first_events)
    spectator = strip_tags(Client().get(reverse("game", args=[game.pk])).content.decode())
    assert "Red plays power card 9." in spectator
    assert "You take back power card 4." not in spectator
    owner = strip_tags(logged_in(user_at(game, 1)).get(reverse("game", args=[game.pk])).content.decode())
    assert "You take back power card 4." in owner


def old_action(action):
    """An action under way as the engine stored it before the veto windows and turns."""
    return {key: value for key, value in action.items() if key not in ("window", "turn", "passed", "sent")}


@pytest.mark.django_db
def test_a_legacy_game_stored_in_a_veto_question_still_shows_and_takes_the_answer(start_game):
    from games.play import moving
    from tests.support.helpers import find_position

    def plan_veto(state):
        return bool(state.action and state.action["stage"] == "veto" and state.action["window"] == "plan")

    seed, history = find_position(plan_veto, 3)
    game = start_game(3, seed=seed)
    for seat, move in history:
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
        game.refresh_from_db()
    state = {**game.state, "action": old_action(game.state["action"])}
    make_old(game, OLD_LOG, break_replay=True)
    Game.objects.filter(pk=game.pk).update(state={**state, "scores": [s + 1 for s in state["scores"]], "log": OLD_LOG})
    run_migration()
    game.refresh_from_db()
    assert game.state["action"]["window"] == "plan"
    holder = game.to_act[0]
    client = logged_in(user_at(game, holder))
    assert client.get(reverse("game", args=[game.pk])).status_code == 200
    moving.submit_move(game, user=user_at(game, holder), move={"type": "allow"}, expected_version=game.version)


def test_a_legacy_game_stored_in_the_secret_king_returns_goes_on_in_turn():
    # The engine of before collected the King's-return shares at once and in secret; none was
    # revealed or sent. The upgraded game starts the shares again, in turn, and each can be played.
    from games.engine import legal_moves
    from games.records.old_logs import rebuild
    from tests.support.engine_builders import at_action

    state = apply_move(
        at_action("king_returns", num_players=3, caballeros={"aragon": {"yellow": 2, "blue": 2}},
                  court={"red": 5, "yellow": 3, "blue": 3}),
        0,
        {"type": "special"},
    )
    old = state.to_json()
    old["action"] = {
        "card": "king_returns", "taker": 0, "plan": {}, "stage": "choices", "awaiting": [1, 2],
        "choices": [None, None, [[-1, 3]]], "steps": None, "answers": [None, None, None], "cut": None,
        "vetoer": None,
    }
    rebuilt = rebuild(OPTIONS, {**old, "log": OLD_LOG}, [])
    upgraded = GameState.from_json(rebuilt.state)
    assert upgraded.action["stage"] == "share" and to_act(upgraded) == [1]
    assert legal_moves(upgraded, 1)
    for seat in (1, 2):
        move = random_move(upgraded, seat, random.Random(seat))
        upgraded = apply_move(upgraded, seat, move)
    assert upgraded.special_done and upgraded.phase == "action"
    assert upgraded.provinces[1] == old["provinces"][1] + 3 and upgraded.provinces[2] == old["provinces"][2] + 3
