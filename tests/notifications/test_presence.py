"""No "your move" mail while the player has the game open, nor within YOUR_MOVE_GRACE_SECONDS after
they closed it (games/infra/presence.py); the sweep mails a decision still theirs once the grace is over,
one mail for the decisions that waited together."""

import random
import time

import pytest
from django.core.cache import cache

from games.engine import apply_move, new_game, random_move, to_act
from games.infra import presence
from games.mail import late_decisions
from games.models import MailToDecide, Notification
from games.play import moving
from tests.support.helpers import find_position, state_of
from tests.support.notifications import GRACE, a_turn_that_comes_back_to_its_player, at, bid, play_until, sent_to

pytestmark = pytest.mark.django_db
@pytest.fixture(autouse=True)
def no_presence(settings):
    settings.YOUR_MOVE_GRACE_SECONDS = GRACE
    cache.clear()
    yield
    cache.clear()


def test_no_your_move_mail_while_the_page_is_open_and_one_when_the_grace_after_closing_ends(
    started, committed, mailoutbox
):
    game, users = started(3)
    opened = time.time()
    for user in users.values():
        presence.seen(game.pk, user.pk, now=opened)
    mailoutbox.clear()
    next_bidder = bid(game, users, committed)
    assert mailoutbox == [] and not Notification.objects.filter(kind="your_move").exists()
    (waiting,) = MailToDecide.objects.all()
    assert waiting.waiting_for == [next_bidder]

    # An hour on, the page still open (it said so a moment ago): still no mail.
    later = opened + 3600
    presence.seen(game.pk, users[next_bidder].pk, now=later - 1)
    assert late_decisions.decide_waiting(at(later)) == 0
    assert mailoutbox == [] and MailToDecide.objects.get().due_at > at(later)

    # Closed: nothing within the grace, the mail once it is over, and the row is done.
    presence.seen(game.pk, users[next_bidder].pk, open=False, now=later)
    late_decisions.decide_waiting(at(later + GRACE - 1))
    assert mailoutbox == []
    assert late_decisions.decide_waiting(at(later + GRACE + 1)) == 1
    (message,) = mailoutbox
    assert message.to == [users[next_bidder].email]
    assert message.subject == f"[El Grande] Game {game.pk}, round 1: your bid"
    assert not MailToDecide.objects.exists()
    late_decisions.decide_waiting(at(later + 10 * GRACE))
    assert len(mailoutbox) == 1


def test_a_player_who_acted_within_the_grace_gets_no_mail_for_it(started, committed, mailoutbox):
    game, users = started(3)
    closed = time.time()
    for user in users.values():
        presence.seen(game.pk, user.pk, open=False, now=closed)
    mailoutbox.clear()
    first = bid(game, users, committed)
    second = bid(game, users, committed)
    assert mailoutbox == []
    late_decisions.decide_waiting(at(closed + GRACE + 1))
    # The first was back in time and bid; the second has not.
    assert [message.to for message in mailoutbox] == [[users[second].email]]
    assert sent_to(mailoutbox, users[first]) == []


def test_a_player_away_for_longer_than_the_grace_is_mailed_at_once(started, committed, mailoutbox):
    game, users = started(3)
    for user in users.values():
        presence.seen(game.pk, user.pk, open=False, now=time.time() - GRACE - 1)
    mailoutbox.clear()
    next_bidder = bid(game, users, committed)
    assert [message.to for message in mailoutbox] == [[users[next_bidder].email]]
    assert not MailToDecide.objects.exists()


def test_decisions_that_come_back_within_the_grace_make_one_mail(started, committed, mailoutbox):
    game, users = started(3, seed=a_turn_that_comes_back_to_its_player())
    closed = time.time()
    for user in users.values():
        presence.seen(game.pk, user.pk, open=False, now=closed)
    mailoutbox.clear()
    # The bids, the first turn's player's decisions, a question to the others, and the turn back to
    # that player: all within the grace after the pages were closed.
    state = play_until(game, users, committed, lambda s: s.phase != "bid" and s.current_player not in to_act(s))
    player = state.current_player
    state = play_until(game, users, committed, lambda s: player in to_act(s))
    waited = {row.version for row in MailToDecide.objects.all() if player in row.waiting_for}
    assert len(waited) >= 2
    assert mailoutbox == []
    late_decisions.decide_waiting(at(closed + GRACE + 1))
    assert len(sent_to(mailoutbox, users[player])) == 1
    assert [len(sent_to(mailoutbox, users[seat])) for seat in to_act(state)] == [1] * len(to_act(state))
    assert len(mailoutbox) == len(to_act(state))


def test_presence_that_cannot_be_read_mails_as_before(started, committed, mailoutbox, monkeypatch):
    game, users = started(3)
    for user in users.values():
        presence.seen(game.pk, user.pk, now=time.time())

    class Away:
        def get(self, *args, **kwargs):
            raise ConnectionError("the cache is away")

    monkeypatch.setattr(presence, "cache", Away())
    mailoutbox.clear()
    next_bidder = bid(game, users, committed)
    assert [message.to for message in mailoutbox] == [[users[next_bidder].email]]


def test_a_decision_waiting_for_several_players_mails_each_once_when_their_own_grace_ends(
    started, committed, mailoutbox
):
    seed, history = find_position(lambda s: len(to_act(s)) >= 2)
    game, users = started(3, seed=seed)
    for seat, move in history[:-1]:
        committed(moving.submit_move, game, user=users[seat], move=move, expected_version=game.version)
        game.refresh_from_db()
    state_before = state_of(game)
    first, second = to_act(apply_move(state_before, *history[-1]))[:2]
    # Both closed their pages within the grace: the first a minute before the second.
    closed = time.time()
    presence.seen(game.pk, users[first].pk, open=False, now=closed)
    presence.seen(game.pk, users[second].pk, open=False, now=closed + 60)
    mailoutbox.clear()
    committed(
        moving.submit_move, game, user=users[history[-1][0]], move=history[-1][1], expected_version=game.version
    )
    assert sent_to(mailoutbox, users[first]) == sent_to(mailoutbox, users[second]) == []

    # The first's grace ends first: their mail goes then, not when the second's does.
    late_decisions.decide_waiting(at(closed + GRACE + 1))
    assert len(sent_to(mailoutbox, users[first])) == 1 and sent_to(mailoutbox, users[second]) == []
    # The game moves on (the second decides) while the first still has to: no second mail.
    state = state_of(game)
    committed(
        moving.submit_move,
        game,
        user=users[second],
        move=random_move(state, second, random.Random(1)),
        expected_version=game.version,
    )
    assert first in to_act(state_of(game))
    late_decisions.decide_waiting(at(closed + 60 + GRACE + 1))
    assert len(sent_to(mailoutbox, users[first])) == 1 and sent_to(mailoutbox, users[second]) == []
    assert not MailToDecide.objects.exists()


def test_a_decision_already_mailed_is_not_mailed_again_by_an_older_row_in_a_later_sweep(
    started, committed, mailoutbox, monkeypatch
):
    # A player away within the grace has their bid wait, bids, and then has a decision with
    # another seat at once (several waiting rows of theirs, as a busy sweep leaves them).
    seed, history, player = a_shared_decision_new_to_a_later_bidder()
    game, users = started(3, seed=seed)
    closed = time.time()
    presence.seen(game.pk, users[player].pk, open=False, now=closed)
    for seat, move in history:
        committed(moving.submit_move, game, user=users[seat], move=move, expected_version=game.version)
        game.refresh_from_db()
    other = next(seat for seat in to_act(state_of(game)) if seat != player)
    assert len({row.version for row in MailToDecide.objects.all() if player in row.waiting_for}) >= 2
    mailoutbox.clear()
    monkeypatch.setattr(late_decisions, "LOST_DECISIONS_PER_SWEEP", 1)
    late_decisions.decide_waiting(at(closed + GRACE + 1))
    assert len(sent_to(mailoutbox, users[player])) == 1
    # The game moves on while the player still has to decide; the next sweep finds their other row.
    state = state_of(game)
    committed(
        moving.submit_move,
        game,
        user=users[other],
        move=random_move(state, other, random.Random(1)),
        expected_version=game.version,
    )
    assert player in to_act(state_of(game))
    late_decisions.decide_waiting(at(closed + GRACE + 2))
    late_decisions.decide_waiting(at(closed + GRACE + 3))
    assert len(sent_to(mailoutbox, users[player])) == 1


def a_shared_decision_new_to_a_later_bidder():
    """(seed, moves, seat) of a game whose moves end in a decision of several seats at once, new to
    `seat`, which is not the first bidder (whose first decision the start mail tells of)."""
    for start in range(1, 300, 20):
        seed, history = find_position(lambda s: len(to_act(s)) >= 2, seeds=range(start, start + 20))
        state = new_game(num_players=3, seed=seed)
        first_bidder = to_act(state)[0]
        for seat, move in history[:-1]:
            state = apply_move(state, seat, move)
        before = to_act(state)
        after = to_act(apply_move(state, *history[-1]))
        for seat in after:
            if seat not in before and seat != first_bidder:
                return seed, history, seat
    raise LookupError("no such game")
