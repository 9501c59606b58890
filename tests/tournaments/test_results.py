"""A tournament's results are its games' rows in the archive (games/play/results.py), read in one
query: each game's places and scores by player, in the order of its standings."""

import pytest

from tests.support.tournament_factory import played_tournament
from tournaments import services

pytestmark = pytest.mark.django_db


def test_the_results_are_the_archives_rows_of_each_table_in_one_query(make_user, django_assert_num_queries):
    tournament, (a, b, c, d, e, f, g) = played_tournament(make_user)
    with django_assert_num_queries(1):
        results = services.results(tournament)
    as_lists = [
        (number, list(result.places.items()), list(result.scores.items())) for number, result in results
    ]
    assert as_lists == [
        (1, [(a.pk, 1), (b.pk, 2), (c.pk, 2), (d.pk, 4)], [(a.pk, 71), (b.pk, 64), (c.pk, 64), (d.pk, 40)]),
        (1, [(e.pk, 1), (f.pk, 2), (g.pk, 3)], [(e.pk, 58), (f.pk, 52), (g.pk, 33)]),
        (2, [(a.pk, 1), (e.pk, 2), (c.pk, 3), (g.pk, 4)], [(a.pk, 80), (e.pk, 77), (c.pk, 61), (g.pk, 45)]),
        # Equal scores share the place, in the order of the seats.
        (2, [(b.pk, 1), (d.pk, 1), (f.pk, 1)], [(b.pk, 49), (d.pk, 49), (f.pk, 49)]),
    ]
    with django_assert_num_queries(1):
        assert services.results(tournament, [2]) == results[2:]
