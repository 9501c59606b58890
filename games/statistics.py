"""Statistics drawn from the archive's public games: how many games of each size, the average
winning score, how often each seat position and each home region wins, and how often each action
card is taken, and by the eventual winner.

They are read from the `Result` rows (games/archive.py): a few GROUP BY queries, and one pass
over the cards the seats took. That is too much for every request with a big archive, so
`current()` serves a snapshot kept in the cache: Celery beat refreshes it every
STATISTICS_SECONDS (games.tasks.refresh_statistics); embedded, or should beat stop, the first
request to find it older than twice that computes it again, one process at a time.

Private games are left out: the statistics are the public archive's. A shared first place is a
win for each of the players sharing it.
"""

from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Q
from django.utils import timezone

from .engine.board import REGION_NAMES, REGIONS
from .engine.cards import CARDS
from .models import Game, Result

CACHE_KEY = "statistics"
LOCK_KEY = "statistics-being-computed"


def current():
    """The latest snapshot, computed here if there is none or it has gone stale."""
    snapshot = cache.get(CACHE_KEY)
    stale = snapshot is None or snapshot["computed_at"] < timezone.now() - timedelta(
        seconds=2 * settings.STATISTICS_SECONDS
    )
    # While another process computes, a stale snapshot is still worth showing.
    if stale and (cache.add(LOCK_KEY, True, timeout=300) or snapshot is None):
        try:
            snapshot = refresh()
        finally:
            cache.delete(LOCK_KEY)
    return snapshot


def refresh():
    """Compute the statistics and keep them for `current()`."""
    snapshot = compute()
    cache.set(CACHE_KEY, snapshot, timeout=None)
    return snapshot


def compute():
    results = Result.objects.filter(private=False)
    games = Game.objects.filter(status=Game.Status.FINISHED, private=False)
    return {
        "computed_at": timezone.now(),
        "games": games.count(),
        "by_players": _by_players(games, results),
        "positions": _positions(results),
        "homes": _homes(results),
        **_cards(results),
    }


def _by_players(games, results):
    """Per number of players: games of 9 and of 6 rounds, and the average winning score of each."""
    counts = {
        (row["num_players"], row["short_game"]): row["games"]
        for row in games.values("num_players", "short_game").annotate(games=Count("pk"))
    }
    # One winning score per game, also when several share the first place (with the same score).
    winning = {}
    for game_id, num_players, short_game, score in results.filter(place=1).values_list(
        "game_id", "num_players", "short_game", "score"
    ):
        winning[game_id] = (num_players, short_game, score)
    scores = {}
    for num_players, short_game, score in winning.values():
        scores.setdefault((num_players, short_game), []).append(score)
    rows = []
    for num_players in range(2, 6):
        long, short = counts.get((num_players, False), 0), counts.get((num_players, True), 0)
        if long or short:
            rows.append({
                "num_players": num_players,
                "games": long + short,
                "long": long,
                "short": short,
                "winning_long": _average(scores.get((num_players, False))),
                "winning_short": _average(scores.get((num_players, True))),
            })
    return rows


def _positions(results):
    """Per number of players, how often the seat at each place of the first round's bidding
    order (1: bid first) went on to win."""
    found = (
        results.filter(position__isnull=False)
        .values("num_players", "position")
        .annotate(seats=Count("pk"), wins=Count("pk", filter=Q(place=1)))
    )
    by_size = {}
    for row in found:
        by_size.setdefault(row["num_players"], {})[row["position"]] = row
    rows = []
    for num_players in sorted(by_size):
        cells = []
        for position in range(num_players):
            row = by_size[num_players].get(position, {"seats": 0, "wins": 0})
            cells.append({
                "position": position + 1,
                "seats": row["seats"],
                "wins": row["wins"],
                "rate": _percent(row["wins"], row["seats"]),
            })
        rows.append({
            "num_players": num_players,
            "games": max(cell["seats"] for cell in cells),
            "cells": cells,
            "expected": _percent(1, num_players),
        })
    return rows


def _homes(results):
    """Per home region (where the seat's Grande began): seats, wins, the rate of wins, and the
    rate a region without any advantage would have (1 in the number of players, averaged)."""
    found = (
        results.exclude(home="")
        .values("home", "num_players")
        .annotate(seats=Count("pk"), wins=Count("pk", filter=Q(place=1)))
    )
    totals = {region: {"seats": 0, "wins": 0, "expected": 0.0} for region in REGIONS}
    for row in found:
        total = totals.setdefault(row["home"], {"seats": 0, "wins": 0, "expected": 0.0})
        total["seats"] += row["seats"]
        total["wins"] += row["wins"]
        total["expected"] += row["seats"] / row["num_players"]
    rows = [
        {
            "region": region,
            "name": REGION_NAMES.get(region, region),
            "seats": total["seats"],
            "wins": total["wins"],
            "rate": _percent(total["wins"], total["seats"]),
            "expected": _percent(total["expected"], total["seats"]),
        }
        for region, total in totals.items()
        if total["seats"]
    ]
    rows.sort(key=lambda row: (-(row["rate"] or 0), row["name"]))
    return rows


def _cards(results):
    """How often each action card was taken, and how often by the seat that went on to win;
    and the share of all cards taken that the winners took, to compare each card's with."""
    taken, by_winners = Counter(), Counter()
    games = set()
    seats = results.filter(cards__isnull=False).values_list("game_id", "place", "cards")
    for game_id, place, cards in seats.iterator(chunk_size=5000):
        games.add(game_id)
        taken.update(cards)
        if place == 1:
            by_winners.update(cards)
    rows = [
        {
            "card": card,
            "title": CARDS[card].title if card in CARDS else card,
            "stack": CARDS[card].stack if card in CARDS else None,
            "taken": count,
            "per_game": count / len(games),
            "by_winner": by_winners[card],
            "winner_share": _percent(by_winners[card], count),
        }
        for card, count in taken.items()
    ]
    rows.sort(key=lambda row: (-row["winner_share"], -row["taken"], row["title"]))
    all_taken = sum(taken.values())
    return {
        "cards": rows,
        "card_games": len(games),
        "winners_share": _percent(sum(by_winners.values()), all_taken),
    }


def _average(values):
    return sum(values) / len(values) if values else None


def _percent(part, whole):
    return 100 * part / whole if whole else None
