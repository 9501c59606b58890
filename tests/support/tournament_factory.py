"""A Swiss tournament of seven entrants with two rounds played, made by hand (its games stored as
finished, as tests/archive/factory.py makes them): for the pages' tests and screenshots."""

from datetime import timedelta

from django.utils import timezone

from tests.support.archive_games import finished_game
from tournaments import services
from tournaments.models import Entrant, Table, Tournament


def played_tournament(make_user, *, finished=True, names=None):
    organiser = make_user("organiser")
    names = names or ["alba", "bruno", "chiara", "duarte", "elodie", "fabrizio", "gaspard"]
    users = [make_user(name) for name in names]
    tournament = services.create_tournament(
        organiser, name="Copa de Otoño", description="Two Swiss rounds of the short game.\nAll welcome.",
        rounds=2, table_size=4, short_game=True, signup_closes_at=timezone.now() - timedelta(days=1),
    )
    for user in users:
        Entrant.objects.create(tournament=tournament, user=user)
    a, b, c, d, e, f, g = users
    rounds = [
        [([a, b, c, d], [71, 64, 64, 40]), ([e, f, g], [58, 52, 33])],
        [([a, e, c, g], [80, 77, 61, 45]), ([b, d, f], [49, 49, 49])],
    ]
    for number, tables in enumerate(rounds, start=1):
        for index, (players, scores) in enumerate(tables, start=1):
            game = finished_game(players, scores, short_game=True)
            Table.objects.create(tournament=tournament, round=number, number=index, game=game)
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.FINISHED if finished else Tournament.Status.RUNNING, current_round=2,
        started_at=timezone.now() - timedelta(days=1), finished_at=timezone.now() if finished else None,
    )
    tournament.refresh_from_db()
    return tournament, users
