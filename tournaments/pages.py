"""What the tournaments' pages show, read in a few queries. Only public things: names, games
(tournament games are never private), places and points; never an address."""

from games.models import Game, Seat

from . import services
from .models import Table, Tournament


def listing():
    tournaments = Tournament.objects.select_related("organiser").order_by("-created_at", "-id")
    grouped = {status: [] for status in Tournament.Status.values}
    for tournament in tournaments[:200]:
        grouped[tournament.status].append(tournament)
    return {
        "signup": grouped[Tournament.Status.SIGNUP],
        "running": grouped[Tournament.Status.RUNNING],
        "finished": grouped[Tournament.Status.FINISHED] + grouped[Tournament.Status.CANCELLED],
    }


def tournament_context(tournament, viewer):
    tournament.refresh_from_db()
    entrants = list(tournament.entrants.select_related("user"))
    users = {entrant.user_id: entrant.user for entrant in entrants}
    # Not the games' states: each holds its whole log, and the page shows a game's link and status.
    tables = list(
        Table.objects.filter(tournament=tournament).select_related("game").defer("game__state", "game__first_events")
    )
    seats = {}
    for seat in Seat.objects.filter(game__tournament_table__tournament=tournament).select_related("user"):
        seats.setdefault(seat.game_id, []).append(seat)
        users.setdefault(seat.user_id, seat.user)
    rounds = {}
    for table in tables:
        game = table.game
        places = {index: (place, score) for place, index, score in (game.standings or [])}
        players = []
        for seat in sorted(seats.get(game.pk, []), key=lambda s: (places.get(s.index, (9, 0))[0], s.display_name)):
            place, score = places.get(seat.index, (None, None))
            # A game under way has no places yet: its standings at the start are every seat tied first.
            finished = game.status == Game.Status.FINISHED
            players.append({"user": seat.user, "name": seat.display_name, "place": place if finished else None,
                            "score": score if finished else None})
        rounds.setdefault(table.round, []).append({"table": table, "game": game, "players": players})
    standing_rows = [
        {"standing": standing, "user": users.get(standing.player)} for standing in services.ranking(tournament)
    ]
    me = next((e for e in entrants if viewer.is_authenticated and e.user_id == viewer.pk), None)
    return {
        "tournament": tournament,
        "entrants": entrants,
        "rounds": sorted(rounds.items()),
        "standings": standing_rows,
        "played": any(row["standing"].games for row in standing_rows),
        "entered": me is not None and me.withdrawn_at is None,
        "is_organiser": viewer.is_authenticated and viewer.pk == tournament.organiser_id,
        "points": ", ".join(str(p) for p in tournament.points),
    }
