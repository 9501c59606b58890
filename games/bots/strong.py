"""The strong player: a search over positions drawn from its view, with the greedy player guiding
the play-outs, within a time budget.

For a decision that shapes the round (the bid, the card, the order and content of the turn, a
secret disk, the Castillo's region) it takes a few candidate moves, the greedy player's best
first, and plays each of them out on the same drawn positions (common random numbers: the
candidates meet the same hands, stacks and hidden counts) to the end of the round, every seat
played by the greedy player, then evaluates. Positions are drawn again and again until the
budget is spent; candidates that fall well behind are dropped on the way (successive halving),
and the best average wins. Small decisions (court, veto answers, shares) are the greedy player's.

This is determinized Monte Carlo search over the information set: flat at the root, with the
greedy player as the model of every seat in the play-outs.
"""

import random
import time

from games.engine import IllegalMove, apply_move, legal_moves, to_act

from .evaluate import evaluate
from .greedy import bid_scores, card_scores, greedy_move, plan_options
from .sampling import sample_state

DEFAULT_BUDGET = 1.0  # seconds of one core per decision
BID_CANDIDATES = 4
MAX_CANDIDATES = 6


class Budget:
    """Time (CPU seconds of this thread) or a number of iterations. With time, a new iteration
    starts only if one as long as the last still fits, and the first stops once the time is out:
    a decision overruns its budget by one play-out at most."""

    def __init__(self, seconds, iterations):
        self.iterations = iterations
        self.deadline = None if iterations is not None else time.thread_time() + seconds
        self.done = 0
        self.last = 0.0

    def more(self):
        if self.iterations is not None:
            return self.done < self.iterations
        return time.thread_time() + self.last < self.deadline

    def over(self):
        return self.iterations is None and time.thread_time() >= self.deadline

    def spend(self, seconds):
        self.done += 1
        self.last = seconds


def strong_move(view, rng, budget=DEFAULT_BUDGET, iterations=None):
    """The strong player's move for the seat whose view this is."""
    seat = view["seat"]
    clock = Budget(budget, iterations)
    root = sample_state(view, rng)
    candidates = _candidates(root, seat, rng)
    if candidates is None:
        return greedy_move(root, seat, rng)
    if len(candidates) == 1:
        return candidates[0]
    totals = [0.0] * len(candidates)
    alive = list(range(len(candidates)))
    sweeps = 0
    position = root
    while True:
        started = time.thread_time()
        seed = rng.getrandbits(64)
        for done, index in enumerate(alive, 1):
            totals[index] += _play_out(position, seat, candidates[index], random.Random(seed))
            if not sweeps and clock.over():
                # Out of time in the first sweep: the candidates played out so far compete (the
                # greedy player's best is the first of them).
                alive = alive[:done]
                break
        sweeps += 1
        clock.spend(time.thread_time() - started)
        if not clock.more():
            break
        if sweeps in (2, 4, 8) and len(alive) > 2:
            alive.sort(key=lambda i: -totals[i])
            alive = alive[: max(2, (len(alive) + 1) // 2)]
        position = sample_state(view, rng)
    best = max(alive, key=lambda i: totals[i])
    return candidates[best]


def _candidates(state, seat, rng):
    """The moves worth a search, the greedy player's first; None where the greedy player decides."""
    phase = state.phase
    if phase == "bid":
        ranked = bid_scores(state, seat)
        return [move for _value, move in ranked[:BID_CANDIDATES]]
    if phase == "card":
        return [move for _value, move in card_scores(state, seat, rng)]
    if phase == "action":
        options = plan_options(state, seat, rng)
        moves = []
        for _value, move in options:
            if move not in moves:
                moves.append(move)
        return moves[:MAX_CANDIDATES]
    if phase == "castillo" or (phase == "special" and state.action["stage"] == "choices"):
        first = greedy_move(state, seat, rng)
        return [first] + [move for move in legal_moves(state, seat) if move != first]
    return None


def _play_out(state, seat, move, rng):
    """The value for `seat` of the move, played out by the greedy player to the round's end."""
    try:
        state = apply_move(state, seat, move)
    except IllegalMove:
        return float("-inf")
    start = state.round
    while not state.is_over and state.round == start:
        actor = to_act(state)[0]
        state = apply_move(state, actor, greedy_move(state, actor, rng))
    return evaluate(state, seat)
