"""The turn report of "your move" mails: what the others did since the player's last move, in
names, with each scoring as a table per region, and nothing that is not public."""

import random

import pytest

from games.engine import GameState, to_act
from games.mail import turn_report
from games.models import Game, Move
from games.play import expiry, moving
from games.words.log_text import plain_cards
from tests.support.helpers import find_position, state_of

pytestmark = pytest.mark.django_db


def names_of(users):
    return {index: user.username for index, user in users.items()}


def test_a_your_move_mail_tells_the_others_bids_cards_placements_and_scorings(started, committed, mailoutbox):
    game, users = started(3, seed=5)
    rng = random.Random(5)
    state = state_of(game)
    # Play until someone's turn report holds a scoring: the first round's end scores nothing,
    # the third's is a general scoring.
    mails = []
    while not state.is_over and state.round < 4:
        seat = to_act(state)[0]
        mailoutbox.clear()
        committed(
            moving.submit_move, game, user=users[seat], move=services_random_move(state, seat, rng),
            expected_version=game.version)
        state = state_of(game)
        mails += [m for m in mailoutbox if "your move" in m.body]
    assert mails

    def some_mail_says(*words):
        return any(all(word in m.body for word in words) for m in mails)

    # Names, not seats; the others' bids, cards and placements; the scoring as a table.
    for user in users.values():
        others = [other.username for other in users.values() if other != user]
        assert any(m.to == [user.email] and any(name in m.body.split("Since ")[-1] for name in others) for m in mails)
    assert some_mail_says("Since your last move", "plays power card")
    assert some_mail_says(" takes ") and some_mail_says(" places ")
    message = next(m for m in mails if "- Scoring " in m.body)
    text, html = message.body, message.alternatives[0][0]
    assert "<table" in html and "Scoring " in html
    # The text part has the table's rows under the region's title, one per player.
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("- Scoring "))
    assert lines[start + 1].startswith("    ") and " point" in lines[start + 1]
    # Cards by their titles: no disclosure markup in a mail.
    assert not any("<details" in m.alternatives[0][0] for m in mails)
    assert some_mail_says("Cards on offer: ")


def services_random_move(state, seat, rng):
    from games.engine import random_move

    return random_move(state, seat, rng)


def test_the_report_starts_after_the_readers_own_last_move(started, committed, mailoutbox):
    game, users = started(3, seed=3)
    rng = random.Random(3)
    state = state_of(game)
    # Three bids: the first bidder's report, at his next decision, tells the two others' bids only.
    first = to_act(state)[0]
    for _ in range(3):
        seat = to_act(state)[0]
        committed(
            moving.submit_move, game, user=users[seat], move=services_random_move(state, seat, rng),
            expected_version=game.version)
        state = state_of(game)
    seats = {seat.index: seat for seat in game.seats.select_related("user")}
    report = turn_report.since_last_move(game, first, seats.values())
    lines = [line.text for _, items in report.rounds for line in items if line.kind == "line"]
    assert sum("plays power card" in line for line in lines) == 2
    assert not any(line.startswith(users[first].username) for line in lines)
    assert report.moves == 2


def reached(started, committed, predicate):
    """A 3-player game played through the site up to a position the engine finds for `predicate`
    just after a move: (game, users, the mails of that last move are in the caller's outbox)."""
    seed, history = find_position(predicate, num_players=3)
    game, users = started(3, seed=seed)
    for seat, move in history:
        committed(moving.submit_move, game, user=users[seat], move=move, expected_version=game.version)
        game.refresh_from_db()
    return game, users


def reports(game):
    """Every seat's report, as the page and (plain cards) as a mail say it: [str]."""
    seats = {s.index: s for s in game.seats.select_related("user")}
    texts = []
    for reader in seats:
        page = turn_report.since_last_move(game, reader, seats.values())
        with plain_cards():
            mail = turn_report.since_last_move(game, reader, seats.values())
        for report in (page, mail):
            if report is not None:
                texts.append(report.text() + "".join(
                    str(item.html) if item.kind == "line" else str(item.rows)
                    for _, items in report.rounds for item in items
                ))
    return texts


def last_events_have(kind, but_not=()):
    return lambda state: any(e["event"] == kind for e in state.events) and not any(
        e["event"] in but_not for e in state.events
    )


@pytest.mark.parametrize("secret", ["choice", "retake", "hands"])
def test_no_report_tells_a_secret_choice_before_its_reveal_nor_a_card_taken_back(
    secret, started, committed, mailoutbox
):
    """Changing what is secret in the stored moves (the region of a disk chosen and not yet
    revealed; the power card a player took back, which only he saw in his log) changes no seat's
    report, not even that player's, and no mail of the move tells it."""
    if secret == "choice":
        predicate = last_events_have("chosen", but_not=("reveal",))
    elif secret == "retake":
        predicate = last_events_have("retake_private")
    else:
        predicate = lambda state: state.round == 2 and state.phase == "bid"  # noqa: E731
    mailoutbox.clear()
    game, users = reached(started, committed, predicate)
    last = Move.objects.filter(game=game).order_by("-version").first()
    # The mails of the last move went, and say nothing of it either.
    for message in mailoutbox:
        for part in (message.body, message.alternatives[0][0]):
            assert "Secret then" not in part and "Only you see this" not in part and "took back is" not in part
    before = reports(game)
    assert before, "the others' reports tell the move"
    if secret == "choice":
        assert last.move["type"] == "choose_region"
        last.move = {**last.move, "region": "granada" if last.move["region"] != "granada" else "galicia"}
        assert any("has chosen" in text for text in before)
    elif secret == "retake":
        for event in last.events:
            if event["event"] == "retake_private":
                event["card"] = event["card"] % 13 + 1
    else:
        # Every hand, and the face-down stacks, otherwise.
        state = GameState.from_json(game.state)
        for seat, hand in enumerate(state.hands):
            state.hands[seat] = sorted((card % 13) + 1 for card in hand)
        for stack in state.stacks:
            stack.reverse()
        Game.objects.filter(pk=game.pk).update(state=state.to_json())
        game.refresh_from_db()
    last.save()
    assert reports(game) == before


def test_the_report_tells_a_move_the_site_made_in_the_words_of_the_log(started):
    from datetime import timedelta

    from django.utils import timezone

    game, users = started(3, seed=3)
    late = game.to_act[0]
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    assert expiry.apply_default_moves(game.pk, version=game.version)
    game.refresh_from_db()
    reader = next(index for index in users if index != late)
    seats = {seat.index: seat for seat in game.seats.select_related("user")}
    report = turn_report.since_last_move(game, reader, seats.values())
    lines = [item.text for _, items in report.rounds for item in items if item.kind == "line"]
    player = f"{users[late].username} ({game.colours[late]})"
    # The marker first, then the move's own sentence, as the game's log tells them.
    assert lines[:2] == [f"Time ran out: the site chose for {player}.", lines[1]]
    assert lines[1].startswith(f"{player} plays power card")
