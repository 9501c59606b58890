"""Finished games made by hand, for the archive and statistics tests: each with its players,
scores, options, finish time, and the events the archive reads (the setup's home regions and
first bidder, the action cards each seat took), stored as the services store a finished game,
then recorded in the archive as the services do when a game ends."""

import itertools
from datetime import UTC, datetime, timedelta

from games.engine.board import COLOURS
from games.models import Game, Move, Seat
from games.play import results

REGIONS = ("galicia", "basque", "aragon", "catalonia", "old_castile")
_times = itertools.count()


def standings(scores):
    """[place, seat, score], best first; equal scores share a place (as games/play/saving.py `standings` does)."""
    order = sorted(range(len(scores)), key=lambda seat: -scores[seat])
    result = []
    for index, seat in enumerate(order):
        shared = index and scores[seat] == scores[order[index - 1]]
        result.append([result[-1][0] if shared else index + 1, seat, scores[seat]])
    return result


def finished_game(
    users, scores=None, *, when=None, short_game=False, veto=True, rated=False, private=False,
    homes=None, first_bidder=0, cards=None, practice=False,
):
    """A finished game with `users` in seats 0, 1, … and their `scores` (by default the first
    wins). `when`: its finish time (by default a minute after the last game made here)."""
    num_players = len(users)
    scores = scores or [100 - 10 * seat for seat in range(num_players)]
    when = when or datetime(2025, 1, 1, tzinfo=UTC) + timedelta(minutes=next(_times))
    homes = homes or list(REGIONS[:num_players])
    game = Game.objects.create(
        creator=users[0], num_players=num_players, seed=1, short_game=short_game, veto=veto, rated=rated,
        private=private, practice=practice, status=Game.Status.FINISHED, started_at=when - timedelta(hours=2),
        finished_at=when,
        colours=list(COLOURS[:num_players]), standings=standings(scores), round=6 if short_game else 9,
        first_events=[{
            "event": "setup", "round": 0, "colours": list(COLOURS[:num_players]), "homes": homes,
            "king": "new_castile", "first_bidder": first_bidder,
        }],
    )
    seats = [Seat.objects.create(game=game, user=user, index=index) for index, user in enumerate(users)]
    version = itertools.count(1)
    for index, taken in (cards or {}).items():
        for round_number, card in enumerate(taken, start=1):
            Move.objects.create(
                game=game, seat=seats[index], version=next(version), round=round_number,
                move={"type": "take_card", "card": card},
                events=[{"event": "take_card", "round": round_number, "seat": index, "card": card}],
            )
    game.version = next(version)
    game.save(update_fields=["version"])
    results.record_results(game)
    return game


def many_games(count, seed=1):
    """`count` finished games of every size and option among twelve players, with random scores,
    home regions and cards: an archive to look at in a browser."""
    import random

    from accounts.models import User
    from games.engine.board import REGIONS as ALL_REGIONS
    from games.engine.cards import CARDS

    rng = random.Random(seed)
    names = ["ana", "blas", "carmen", "diego", "elena", "fermin", "gloria", "hugo", "ines", "jaime",
             "lucia", "maximiliano_de_la_vega"]
    users = [User.objects.get_or_create(username=name, defaults={"email": f"{name}@example.org"})[0] for name in names]
    cards = sorted(CARDS)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for index in range(count):
        players = rng.sample(users, rng.choice((2, 3, 3, 4, 4, 5)))
        short_game = rng.random() < 0.3
        rounds = 6 if short_game else 9
        finished_game(
            players, [rng.randrange(40, 160) for _ in players], when=start + timedelta(hours=13 * index),
            short_game=short_game, veto=rng.random() < 0.8, rated=rng.random() < 0.5,
            homes=rng.sample(ALL_REGIONS, len(players)), first_bidder=rng.randrange(len(players)),
            cards={seat: [rng.choice(cards) for _ in range(rounds)] for seat in range(len(players))},
        )
