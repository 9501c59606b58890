"""Computer players' strength and speed: tournaments between the levels.

For each pairing "A vs B" one seat is played by level A and every other seat by level B; the A
seat goes round the table from game to game (seats rotated), and the games are spread evenly
over 3 and 5 players, 9 and 6 rounds (the short game). Every player sees only its own view.

Prints, per pairing and table size, level A's share of wins (a tie for first counts as a share
of a win) with its 95% confidence interval (Wilson) next to the fair share, the average score of
the A seat and of the B seats with 95% intervals, and the CPU time of one decision (p50, p95) of
each level, measured on the thread that decides (one core).

Run: .venv/bin/python bench/bots.py [--games 200] [--budget 1.0] [--jobs 2]
     [--pairings greedy-random,strong-greedy,strong-random] [--players 3,5] [--lengths long,short]
"""

import argparse
import math
import multiprocessing
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import DEFAULT_BUDGET, choose_move  # noqa: E402
from games.engine import apply_move, new_game, to_act, view_for  # noqa: E402

Z = 1.96


def play(task):
    """One game; returns the A seat's result, every seat's score and the decision times by level."""
    level_a, level_b, num_players, short, index, budget, base_seed = task
    seat_a = index % num_players
    levels = [level_a if seat == seat_a else level_b for seat in range(num_players)]
    seed = base_seed * 1_000_003 + index * 7919 + num_players * 31 + (1 if short else 0)
    state = new_game(num_players, seed=seed, short_game=short)
    rngs = [random.Random(seed * 10 + seat) for seat in range(num_players)]
    times = {level_a: [], level_b: []}
    while not state.is_over:
        seat = to_act(state)[0]
        view = view_for(state, seat)
        started = time.thread_time()
        move = choose_move(view, levels[seat], rngs[seat], budget=budget)
        times[levels[seat]].append(time.thread_time() - started)
        state = apply_move(state, seat, move)
    best = max(state.scores)
    winners = [seat for seat, score in enumerate(state.scores) if score == best]
    win = 1 / len(winners) if seat_a in winners else 0.0
    others = [score for seat, score in enumerate(state.scores) if seat != seat_a]
    return {
        "pairing": (level_a, level_b),
        "players": num_players,
        "short": short,
        "win": win,
        "score_a": state.scores[seat_a],
        "score_b": sum(others) / len(others),
        "times": times,
    }


def wilson(successes, n):
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    denominator = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denominator
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values):
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, Z * math.sqrt(variance / n)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def report(results, pairings, players_list):
    print()
    print(
        f"{'pairing (1 vs rest)':<22} {'players':>7} {'games':>5} {'A wins':>7} {'95% CI':>15} {'fair':>5}"
        f" {'A score':>13} {'B score':>13}"
    )
    for level_a, level_b in pairings:
        for players in players_list + ["all"]:
            chosen = [
                r
                for r in results
                if r["pairing"] == (level_a, level_b) and (players == "all" or r["players"] == players)
            ]
            if not chosen:
                continue
            n = len(chosen)
            wins = sum(r["win"] for r in chosen)
            low, high = wilson(wins, n)
            score_a, half_a = mean_interval([r["score_a"] for r in chosen])
            score_b, half_b = mean_interval([r["score_b"] for r in chosen])
            fair = "" if players == "all" else f"{1 / players:.0%}"
            print(
                f"{level_a + ' vs ' + level_b:<22} {players!s:>7} {n:>5} {wins / n:>7.1%} "
                f"{f'{low:.1%}–{high:.1%}':>15} {fair:>5} {f'{score_a:.1f} ± {half_a:.1f}':>13}"
                f" {f'{score_b:.1f} ± {half_b:.1f}':>13}"
            )
    print()
    print(
        f"{'level':<8} {'decisions':>9} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'total s':>8}"
        "   (CPU time of one decision, one core)"
    )
    levels = []
    for level_a, level_b in pairings:
        levels += [level for level in (level_a, level_b) if level not in levels]
    for level in levels:
        times = [t for r in results for t in r["times"].get(level, [])]
        if times:
            print(
                f"{level:<8} {len(times):>9} {percentile(times, 0.5) * 1000:>8.1f} "
                f"{percentile(times, 0.95) * 1000:>8.1f} {max(times) * 1000:>8.1f} {sum(times):>8.0f}"
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per pairing, spread over sizes and lengths")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="the strong player's seconds a decision")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once (processes)")
    parser.add_argument("--pairings", default="greedy-random,strong-greedy,strong-random")
    parser.add_argument("--players", default="3,5")
    parser.add_argument("--lengths", default="long,short")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    pairings = [tuple(p.split("-")) for p in args.pairings.split(",")]
    players_list = [int(p) for p in args.players.split(",")]
    lengths = [length == "short" for length in args.lengths.split(",")]
    configs = [(players, short) for players in players_list for short in lengths]
    tasks = []
    for level_a, level_b in pairings:
        for index in range(args.games):
            players, short = configs[index % len(configs)]
            tasks.append((level_a, level_b, players, short, index // len(configs), args.budget, args.seed))
    print(
        f"{args.games} games per pairing over {len(configs)} settings (players {args.players}; {args.lengths});"
        f" strong budget {args.budget} s a decision; {args.jobs} process(es)",
        flush=True,
    )
    started = time.time()
    results = []
    with multiprocessing.Pool(args.jobs) as pool:
        for done, result in enumerate(pool.imap_unordered(play, tasks), 1):
            results.append(result)
            if done % 20 == 0 or done == len(tasks):
                print(f"  {done}/{len(tasks)} games, {time.time() - started:.0f} s", flush=True)
    report(results, pairings, players_list)
    print(f"\nwall time {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
