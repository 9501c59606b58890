"""Positions for the computer players' tests: taken from seeded random games of every size and
option, with every veto window, secret choice, share and Castillo choice kept (they are rare)."""

import random

from games.engine import apply_move, new_game, random_move, to_act


def random_positions(count, seed, rate=0.1, players=(2, 3, 4, 5)):
    """`count` (state, seat) pairs, seat one of those to act, from random games drawn with `seed`."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = new_game(
            rng.choice(players),
            seed=rng.getrandbits(32),
            short_game=rng.random() < 0.5,
            veto=rng.random() < 0.8,
            show_castillo=rng.random() < 0.3,
        )
        while not state.is_over and len(found) < count:
            acting = to_act(state)
            if state.phase in ("special", "castillo") or rng.random() < rate:
                found.append((state, rng.choice(acting)))
            seat = rng.choice(acting)
            state = apply_move(state, seat, random_move(state, seat, rng))
    return found
