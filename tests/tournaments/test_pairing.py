"""Seating, standings and tie-breaks (tournaments/pairing.py, no Django) from worked examples, and
the property that a Swiss round never seats two players together more often than it must."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.examples import examples
from tournaments import pairing
from tournaments.pairing import GameResult


def seatings(players, sizes):
    """Every seating of `players` at tables of `sizes`, tried one by one (for small fields)."""
    if not sizes:
        yield []
        return
    for table in itertools.combinations(players, sizes[0]):
        rest = [p for p in players if p not in table]
        for others in seatings(rest, sizes[1:]):
            yield [list(table), *others]


def after_seating(tables, met):
    """(the most times two players have met, the earlier meetings brought together) once `tables`
    are played, `met` being the meetings before."""
    pairs = [frozenset(pair) for table in tables for pair in itertools.combinations(table, 2)]
    most = max([met.get(pair, 0) + 1 for pair in pairs] + list(met.values()))
    return most, sum(met.get(pair, 0) for pair in pairs)


def least_possible(players, sizes, met):
    """What the best seating of a round can do: the least `after_seating`, in that order."""
    return min(after_seating(tables, met) for tables in seatings(players, sizes))


def result(scores):
    """A finished game from its scores: equal scores share a place, as on the site."""
    order = sorted(scores, key=lambda p: -scores[p])
    places = {}
    for index, player in enumerate(order):
        shared = index and scores[player] == scores[order[index - 1]]
        places[player] = places[order[index - 1]] if shared else index + 1
    return GameResult(places=places, scores=scores)


@pytest.mark.parametrize(("count", "size", "sizes"), [
    (7, 4, [4, 3]),
    (7, 3, [4, 3]),
    (8, 4, [4, 4]),
    (9, 3, [3, 3, 3]),
    (9, 4, [5, 4]),
    (10, 4, [4, 3, 3]),
    (11, 4, [4, 4, 3]),
    (5, 3, [3, 2]),
    (13, 5, [5, 4, 4]),
])
def test_tables_of_a_neighbouring_size_take_the_odd_entrants(count, size, sizes):
    assert pairing.table_sizes(count, size) == sizes


@pytest.mark.parametrize(("count", "size"), [(1, 3), (2, 4), (2, 5), (0, 3)])
def test_too_few_entrants_for_a_table_is_refused(count, size):
    with pytest.raises(pairing.PairingError):
        pairing.table_sizes(count, size)


def test_tied_players_share_the_place_and_each_get_its_points():
    # A game ended on timeouts: the sweep played every seat, and two ended level.
    game = result({"A": 30, "B": 30, "C": 12})
    assert pairing.game_points(game) == {"A": 5, "B": 5, "C": 2}
    assert pairing.game_points(game, (10, 6, 4)) == {"A": 10, "B": 10, "C": 4}
    assert pairing.game_points(result({"A": 1, "B": 1, "C": 1, "D": 1})) == {p: 5 for p in "ABCD"}


def test_seven_entrants_over_two_rounds_ranked_by_points_then_score():
    # Odd entrants: a table of 4 and one of 3 each round; round 2's second game ended on timeouts
    # with every score level (all three share first place).
    games = [
        result({"A": 100, "B": 90, "C": 90, "D": 70}),
        result({"E": 80, "F": 60, "G": 50}),
        result({"A": 60, "E": 75, "C": 75, "G": 40}),
        result({"B": 30, "D": 30, "F": 30}),
    ]
    ranking = pairing.standings(list("ABCDEFG"), games)
    assert [(s.player, s.points, s.score, s.rank) for s in ranking] == [
        ("E", 10, 155, 1),
        ("C", 8, 165, 2),  # B, C and F have 8 points: the total game score orders them
        ("B", 8, 120, 3),
        ("F", 8, 90, 4),
        ("A", 7, 160, 5),
        ("D", 6, 100, 6),
        ("G", 3, 90, 7),
    ]


def test_opponents_points_break_a_tie_on_points_and_score():
    games = [
        result({"P": 50, "Q": 40, "R": 30}),
        result({"S": 50, "T": 40, "U": 30}),
        result({"Q": 20, "U": 15, "V": 10}),
    ]
    ranking = pairing.standings(list("PQRSTUV"), games)
    assert [s.player for s in ranking] == list("QPSUTRV")
    p, s = ranking[1], ranking[2]
    assert (p.points, p.score) == (s.points, s.score) == (5, 50)
    # P met Q (8 points) and R (2); S met T (3) and U (5).
    assert (p.opponents_points, s.opponents_points) == (10, 8)


def test_head_to_head_breaks_what_is_left_and_a_withdrawn_entrant_keeps_his_line():
    games = [
        result({"C": 20, "D": 10, "F": 20}),
        result({"A": 30, "C": 20, "B": 10}),
        result({"B": 10, "A": 10, "D": 30}),
    ]
    ranking = pairing.standings(list("CABDFE"), games, withdrawn={"E"})
    a, c = ranking[0], ranking[1]
    # Level on points (8), score (40) and opponents' points (25); A placed above C in game 2.
    assert (a.player, c.player) == ("A", "C")
    assert (a.points, a.score, a.opponents_points) == (c.points, c.score, c.opponents_points) == (8, 40, 25)
    assert (a.rank, c.rank) == (1, 2)
    e = ranking[-1]
    assert (e.player, e.withdrawn, e.games, e.points) == ("E", True, 0, 0)


def test_players_level_on_everything_share_a_rank():
    games = [result({"P": 50, "Q": 40, "R": 30}), result({"S": 50, "T": 40, "U": 30})]
    ranking = pairing.standings(list("PQRSTU"), games)
    assert [(s.player, s.rank) for s in ranking] == [("P", 1), ("S", 1), ("Q", 3), ("T", 3), ("R", 5), ("U", 5)]


def test_the_first_round_by_rating_seats_neighbours_in_rating_together():
    ratings = {n: 100 - n for n in range(7)}
    assert pairing.first_round(list(range(7)), 4, ratings, seed=3) == [[0, 1, 2, 3], [4, 5, 6]]
    at_random = pairing.first_round(list(range(7)), 4, None, seed=3)
    assert sorted(map(len, at_random)) == [3, 4] and sorted(sum(at_random, [])) == list(range(7))


def test_a_swiss_round_keeps_those_who_met_apart_and_the_leaders_together():
    # Seven players after a first round of [0 1 2 3] [4 5 6], standings 0, 4, 1, 5, 2, 6, 3.
    order = [0, 4, 1, 5, 2, 6, 3]
    tables = pairing.swiss_round(order, 4, [[0, 1, 2, 3], [4, 5, 6]])
    met = pairing.meetings([[0, 1, 2, 3], [4, 5, 6], *tables])
    # Four at one table out of two groups of 4 and 3 must bring together two who met: only once.
    assert max(met.values()) == 2
    # The least: two and two of each first-round table at the table of 4, so 2 + 1 pairs meet again.
    assert sum(1 for count in met.values() if count == 2) == 3
    assert sorted(tables[0]) == [0, 1, 4, 5] and sorted(tables[1]) == [2, 3, 6]


def test_groups_are_dealt_by_rating_and_the_best_of_each_meet_at_the_final():
    ratings = {n: 100 - n for n in range(8)}
    groups = pairing.groups(list(range(8)), 4, ratings)
    assert groups == [[0, 3, 4, 7], [1, 2, 5, 6]]
    assert pairing.finalists([[3, 0, 4, 7], [6, 1, 2, 5]], 4) == [3, 6, 0, 1]
    assert pairing.finalists([[1, 2, 3], [4, 5, 6], [7, 8, 9]], 4) == [1, 4, 7, 2]


@settings(max_examples=examples(60), deadline=None)
@given(
    count=st.integers(min_value=3, max_value=9),
    size=st.sampled_from([3, 4, 5]),
    rounds=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=10**6),
    scores=st.lists(st.integers(min_value=0, max_value=120), min_size=9 * 4, max_size=9 * 4),
)
def test_no_two_players_share_a_table_more_often_than_the_swiss_format_forces(count, size, rounds, seed, scores):
    """Every round, the most times any two players have then met is the least that any seating of
    that round could give, and so is the number of earlier meetings it brings together: a pair
    meets again only when no seating of the round avoids it. Checked against every seating."""
    players = list(range(count))
    try:
        sizes = pairing.table_sizes(count, size)
    except pairing.PairingError:
        return
    draws = iter(scores)
    history, played = [], []
    tables = pairing.first_round(players, size, None, seed)
    for number in range(rounds):
        if number:
            order = [s.player for s in pairing.standings(players, played)]
            met = pairing.meetings(history)
            tables = pairing.swiss_round(order, size, history)
            assert after_seating(tables, met) == least_possible(players, sizes, met)
        assert sorted(map(len, tables), reverse=True) == sizes
        assert sorted(sum(tables, [])) == players
        history += tables
        played += [result({p: next(draws) for p in table}) for table in tables]
