"""Statistics drawn from the archive's public games: how many games of each size, the average
winning score, how often each seat position and each home region wins, and how often each action
card is taken, and by the eventual winner.

They are read from the `Result` rows (games/reading/archive.py) in a few GROUP BY queries, which take
a second or more over a big archive: too much for every request, so
`current()` serves a snapshot kept in the cache: Celery beat refreshes it every
STATISTICS_SECONDS (games.tasks.refresh_statistics); embedded, or should beat stop, the first
request to find it older than twice that computes it again, one process at a time.

Private games are left out: the statistics are the public archive's. So are practice games
(with computer players, games/computer/players.py): the statistics are of games between people. A
shared first place is a win for each of the players sharing it.
"""

from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Avg, Count, Exists, OuterRef, Q
from django.utils import timezone

from games.engine.board import REGIONS
from games.engine.cards import CARDS
from games.models import Game, Result
from games.words.texts import area_name, card_title

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
    return named(snapshot)


def named(snapshot):
    """The snapshot with regions and cards named in the reader's language (the cached one was
    named in whatever language computed it); a copy, the cached rows are left alone."""
    snapshot = dict(snapshot)
    snapshot["homes"] = [{**row, "name": area_name(row["region"])} for row in snapshot.get("homes") or ()]
    if "cards" in snapshot:
        snapshot["cards"] = [{**row, "title": card_title(row["card"])} for row in snapshot["cards"]]
    return snapshot


def refresh():
    """Compute the statistics and keep them for `current()`."""
    snapshot = compute()
    cache.set(CACHE_KEY, snapshot, timeout=None)
    return snapshot


def compute():
    results = Result.objects.filter(private=False, practice=False)
    games = Game.objects.filter(status=Game.Status.FINISHED, private=False, practice=False)
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
    sharing = Result.objects.filter(game=OuterRef("game"), place=1, seat__lt=OuterRef("seat"))
    scores = {
        (row["num_players"], row["short_game"]): row["score"]
        for row in results.filter(place=1)
        .exclude(Exists(sharing))
        .values("num_players", "short_game")
        .annotate(score=Avg("score"))
    }
    rows = []
    for num_players in range(2, 6):
        long, short = counts.get((num_players, False), 0), counts.get((num_players, True), 0)
        if long or short:
            rows.append({
                "num_players": num_players,
                "games": long + short,
                "long": long,
                "short": short,
                "winning_long": scores.get((num_players, False)),
                "winning_short": scores.get((num_players, True)),
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
            "name": area_name(region),
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
    games = results.filter(cards__isnull=False, seat=0).count()
    rows = []
    for card, count, by_winners in _taken_cards():
        rows.append({
            "card": card,
            "title": card_title(card),
            "stack": CARDS[card].stack if card in CARDS else None,
            "taken": count,
            "per_game": count / games,
            "by_winner": by_winners,
            "winner_share": _percent(by_winners, count),
        })
    rows.sort(key=lambda row: (-row["winner_share"], -row["taken"], row["title"]))
    all_taken = sum(row["taken"] for row in rows)
    return {
        "cards": rows,
        "card_games": games,
        "winners_share": _percent(sum(row["by_winner"] for row in rows), all_taken),
    }


def _taken_cards():
    """[(card, times taken, times taken by a winner)] over the public games' seats, counted by
    the database from each seat's list of cards: a pass in Python over every seat of a big
    archive, decoding its list, took several times longer."""
    if connection.vendor == "postgresql":
        cards, card = "jsonb_array_elements_text(result.cards) AS taken(card)", "taken.card"
    else:
        cards, card = "json_each(result.cards) AS taken", "taken.value"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {card}, COUNT(*), COUNT(*) FILTER (WHERE result.place = 1) "
            f"FROM {Result._meta.db_table} AS result, {cards} "
            f"WHERE NOT result.private AND NOT result.practice AND result.cards IS NOT NULL GROUP BY {card}"
        )
        return cursor.fetchall()


def _percent(part, whole):
    return 100 * part / whole if whole else None
