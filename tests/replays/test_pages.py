"""The replay on the game page: a finished game opens as one, every position has its own address,
the controls lead to the positions they name, bad positions get a clear 4xx, and a page costs a
bounded number of queries whatever the position."""

import html
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import strip_tags

from games.models import Game, Move, Snapshot
from games.play import lifecycle
from games.records.old_logs import legacy_events
from tests.support.helpers import HTMX, logged_in, play, state_of, user_at
from tests.support.replays import engine_positions, log_items, replay_url, section

pytestmark = pytest.mark.django_db


def step_targets(html):
    """{step name: position it leads to, or None when disabled}."""
    links = re.findall(r'<a class="step"[^>]*data-step="([\w-]+)" data-at="(\d+)"', html)
    steps = {name: int(at) for name, at in links}
    steps.update({name: None for name in re.findall(r'<span class="step" data-step="([\w-]+)" aria-disabled', html)})
    return steps


def test_a_finished_game_opens_as_a_replay_of_its_last_position_with_the_score_chart(finished_game):
    game = finished_game()
    last = Move.objects.filter(game=game).count()
    response = Client().get(reverse("game", args=[game.pk]))
    html = response.content.decode()
    assert response.status_code == 200 and response.context["replay"]["at"] == last
    assert 'id="play"' not in html
    # The only form is the slider's: a finished game takes no move.
    assert [form for form in re.findall(r"<form[^>]*>", html) if "logout" not in form and "setlang" not in form] == [
        re.search(r'<form class="replay-slider"[^>]*>', html).group(0)
    ]
    assert 'data-revealed-card' in html and "The game is over, so everything is shown" in html
    assert html.count("<polyline") == 3
    assert step_targets(html) == {
        "first": 0, "previous-round": step_targets(html)["previous-round"], "previous": last - 1,
        "next": None, "next-round": None, "last": None,
    }


def test_the_score_chart_draws_each_players_score_at_the_end_of_each_round(finished_game):
    game = finished_game()
    states = engine_positions(game)
    ends = [state.scores for before, state in zip(states, states[1:]) if state.round != before.round]
    ends.append(states[-1].scores)
    html = Client().get(reverse("game", args=[game.pk])).content.decode()
    rows = re.findall(r'<tr class="colour-(\w+)"><th scope="row">.*?</th>(.*?)</tr>', html, re.S)
    assert len(rows) == 3
    for colour, cells in rows:
        seat = states[0].colours.index(colour)
        assert [int(n) for n in re.findall(r"<td>(\d+)</td>", cells)] == [0] + [scores[seat] for scores in ends]
        name = user_at(game, seat).display_name
        assert f"{name}: {states[-1].scores[seat]} after round 6" in html


def test_each_position_has_its_own_address_and_its_controls_lead_to_the_positions_they_name(finished_game):
    game = finished_game()
    states = engine_positions(game)
    last = len(states) - 1
    starts = [at for at, state in enumerate(states) if at == 0 or state.round != states[at - 1].round]
    client = Client()
    for at in (0, 1, starts[2], starts[2] + 3, last - 1, last):
        html = client.get(replay_url(game, at)).content.decode()
        assert f'data-at="{at}"' in html.split('class="replay-controls"')[0]
        assert f'value="{at}"' in html  # the slider
        earlier, later = [s for s in starts if s < at], [s for s in starts if s > at]
        assert step_targets(html) == {
            "first": 0 if at else None,
            "previous-round": earlier[-1] if earlier else None,
            "previous": at - 1 if at else None,
            "next": at + 1 if at < last else None,
            "next-round": later[0] if later else None,
            "last": last if at < last else None,
        }
        assert f"round {states[at].round} of 6" in html
        jumps = re.findall(r'data-at="(\d+)" class="jump[^"]*" title="The start of round (\d+)"', html)
        assert [(int(position), int(number)) for position, number in jumps] == [
            (start, states[start].round) for start in starts
        ]
        scorings = re.findall(r'data-at="(\d+)" class="jump scoring[^"]*" title="[^"]* after round (\d+)"', html)
        assert [int(number) for _, number in scorings] == [2, 4, 6]
        for position, _ in scorings:
            before, after = states[int(position) - 1], states[int(position)]
            assert after.phase == "castillo" or after.scorings_done == before.scorings_done + 1


def test_the_partial_gives_the_browser_the_positions_address(finished_game):
    game = finished_game()
    response = Client().get(replay_url(game, 12, partial=True), **HTMX)
    assert response.status_code == 200
    assert response["HX-Push-Url"] == f"/games/{game.pk}/?at=12"
    assert response["X-Replay-Position"] == "12"
    html = response.content.decode()
    assert html.lstrip().startswith("<div id=\"replay\"") and "<html" not in html


def test_the_log_shows_this_round_and_the_last_up_to_the_position_with_its_own_move_marked(finished_game):
    game = finished_game()
    states = engine_positions(game)
    client = Client()
    setup = client.get(replay_url(game, 0)).content.decode()
    assert log_items(setup)[0].startswith("Seats:") or "Round 1 begins" in " ".join(log_items(setup))
    assert setup.count('class="latest"') == len(log_items(setup))
    bid = next(at for at in range(1, len(states)) if states[at].bids != states[at - 1].bids)
    html = client.get(replay_url(game, bid)).content.decode()
    seat = next(s for s in range(3) if states[bid].bids[s] != states[bid - 1].bids[s])
    latest = re.findall(r'<li data-round="\d+" class="latest">(.*?)</li>', section(html, "log"), re.S)
    assert [" ".join(strip_tags(item).split()) for item in latest][-1] == (
        f"{user_at(game, seat).display_name} ({states[0].colours[seat]}) plays power card {states[bid].bids[seat]}."
    )
    # A later position's log says more; an earlier one never says what came after it.
    assert log_items(html)[: len(log_items(setup))] == log_items(setup)
    assert not any("takes" in item for item in log_items(setup))


@pytest.mark.parametrize(
    "query",
    ["at=abc", "at=1.5", "at=%00", "at=", "at=%D9%A3", "at=1e3", "at=0x10", "back=x", "at=3&back=1", "at=--1"],
)
def test_a_position_that_is_not_a_whole_number_gets_a_400_with_a_clear_message(finished_game, query):
    game = finished_game()
    for url in (reverse("game", args=[game.pk]), reverse("game_partial", args=[game.pk, "replay"])):
        response = Client().get(f"{url}?{query}", **HTMX)
        assert response.status_code == 400, (url, query)
        text = strip_tags(response.content.decode())
        assert "position" in text and ("whole number" in text or "one position" in text), text
    assert not Snapshot.objects.filter(game=game).exists()


@pytest.mark.parametrize(
    "query, said",
    [("at=%00", r"'\x00' is not a position."), ("at=%D9%A3", r"'\u0663' is not a position."),
     ("at=abc", "'abc' is not a position."), ("at=", "'' is not a position.")],
)
def test_a_refused_position_is_quoted_with_its_unprintable_characters_escaped_once(finished_game, query, said):
    game = finished_game()
    response = Client().get(f"{reverse('game', args=[game.pk])}?{query}")
    assert response.status_code == 400
    text = html.unescape(strip_tags(response.content.decode()))
    assert said in text, text
    assert "\\\\" not in text


@pytest.mark.parametrize(
    "query, expected",
    [("at=-1", 0), ("at=-99999999999999999999", 0), ("at=99999", "last"), ("at=" + "9" * 5000, "last"),
     ("at=0007", 7), ("back=0", "last"), ("back=2", "back 2"), ("back=" + "9" * 40, 0), ("back=-3", "last")],
)
def test_a_position_out_of_range_shows_the_nearest_there_is(finished_game, query, expected):
    game = finished_game()
    last = Move.objects.filter(game=game).count()
    wanted = {"last": last, "back 2": last - 2}.get(expected, expected)
    response = Client().get(f"{reverse('game', args=[game.pk])}?{query}")
    assert response.status_code == 200
    assert response.context["replay"]["at"] == wanted


def test_a_game_not_started_or_cancelled_has_no_replay_and_says_so(make_user):
    creator = make_user()
    open_game = lifecycle.create_game(creator, num_players=3)
    cancelled = lifecycle.create_game(creator, num_players=3)
    lifecycle.cancel_game(cancelled, user=creator)
    for game in (open_game, cancelled):
        page = Client().get(replay_url(game, 0))
        assert page.status_code == 409 and "has not started" in page.content.decode()
        partial = Client().get(replay_url(game, 0, partial=True), **HTMX)
        assert partial.status_code == 409 and partial["HX-Retarget"] == "#move-error"
        assert Client().get(reverse("game", args=[game.pk])).status_code == 200


def test_a_finished_game_stored_under_earlier_rules_keeps_its_final_page_and_refuses_positions(finished_game):
    game = finished_game()
    Game.objects.filter(pk=game.pk).update(first_events=legacy_events([{"round": 0, "text": "Red sits at seat 1."}]))
    page = Client().get(reverse("game", args=[game.pk]))
    assert page.status_code == 200 and 'id="play"' in page.content.decode() and "replay" not in page.context
    refused = Client().get(replay_url(game, 4))
    assert refused.status_code == 409 and "earlier rules" in refused.content.decode()


def test_a_replay_costs_a_bounded_number_of_queries_whatever_the_position(finished_game, start_game):
    game = finished_game()
    client = logged_in(user_at(game, 0))
    last = Move.objects.filter(game=game).count()

    def queries(url):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    # The first replay plays the game through once and stores its snapshots in one insert.
    first = queries(replay_url(game, 3))
    counts = {at: queries(replay_url(game, at)) for at in (0, 1, last // 2, last - 1, last)}
    assert first <= max(counts.values()) + 1
    # The session, the user, the game, its seats, the snapshots, the moves since the round before.
    assert max(counts.values()) <= 6, counts

    running = start_game(3)
    play(running, moves=30)
    reader = logged_in(user_at(running, 1))
    with CaptureQueriesContext(connection) as captured:
        reader.get(replay_url(running, 29))
    near = len(captured)
    with CaptureQueriesContext(connection) as captured:
        reader.get(replay_url(running, 2))
    assert near <= 7 and len(captured) <= 7


def test_the_live_page_of_a_running_game_offers_to_step_back_and_its_replay_offers_no_move(start_game):
    game = start_game(3)
    play(game, moves=8)
    seat = state_of(game).current_player or 0
    client = logged_in(user_at(game, seat))
    live = client.get(reverse("game", args=[game.pk])).content.decode()
    assert f'href="/games/{game.pk}/?back=1"' in live and f'href="/games/{game.pk}/?at=0"' in live
    stepped = client.get(f"{reverse('game', args=[game.pk])}?back=1")
    html = stepped.content.decode()
    assert stepped.context["replay"]["at"] == 7 and "as your seat saw it" in html
    # Nothing on a past position posts a move, nor does the page follow the live game.
    assert reverse("move", args=[game.pk]) not in html and 'id="decision-panel"' not in html
    assert 'id="play"' not in html and "Back to the live game" in html
    spectator = Client().get(f"{reverse('game', args=[game.pk])}?back=1").content.decode()
    assert "as spectators saw it" in spectator
