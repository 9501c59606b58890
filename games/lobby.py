"""The lobby's three lists, each in a fixed number of queries however many games there are.

Rows are built from the public summary services store on Game (round, colours, standings,
to_act, deadline) and the seats with their users; the stored state, which holds the whole log,
is never loaded here.
"""

from django.db.models import Prefetch, Q

from .engine.board import COLOUR_LABELS
from .models import Game, Seat

RECENTLY_FINISHED = 10


def _games():
    seats_with_users = Prefetch("seats", queryset=Seat.objects.select_related("user"))
    return Game.objects.defer("state", "first_events").prefetch_related(seats_with_users)


def my_games(user):
    """The user's open and running games, those waiting for their move first."""
    if not user.is_authenticated:
        return []
    games = _games().filter(
        seats__user=user, status__in=[Game.Status.OPEN, Game.Status.ACTIVE]
    ).order_by("-created_at")
    rows = [_row(game, user) for game in games]
    rows.sort(key=lambda row: not row["your_move"])
    return rows


def open_games(user):
    """Public games still taking players, other than the user's own (those are in My games)."""
    games = _games().filter(private=False, status=Game.Status.OPEN)
    if user.is_authenticated:
        games = games.exclude(seats__user=user)
    return [_row(game, user) for game in games]


def finished_games(user):
    visible = Q(private=False)
    if user.is_authenticated:
        visible |= Q(seats__user=user)
    games = (
        _games()
        .filter(visible, status=Game.Status.FINISHED)
        .distinct()
        .order_by("-finished_at")[:RECENTLY_FINISHED]
    )
    return [_row(game, user) for game in games]


def _row(game, user):
    seats = list(game.seats.all())
    players = [_player(game, seat, user) for seat in seats]
    by_seat = {player["seat"]: player for player in players if player["seat"] is not None}
    ranking = [
        {**by_seat[seat], "place": place, "score": score}
        for place, seat, score in game.standings
        if seat in by_seat
    ]
    return {
        "game": game,
        "players": players,
        "free_seats": game.num_players - len(seats),
        "your_move": any(player["you"] and player["to_act"] for player in players),
        "to_move": [player for player in players if player["to_act"]],
        "ranking": ranking,
    }


def _player(game, seat, user):
    colour = game.colours[seat.index] if seat.index is not None and game.colours else None
    return {
        "seat": seat.index,
        "username": seat.display_name,
        "colour": colour,
        "label": COLOUR_LABELS.get(colour, ""),
        "you": seat.user_id is not None and seat.user_id == user.pk,
        "to_act": seat.index is not None and seat.index in game.to_act,
        "autopilot": seat.autopilot and game.status == Game.Status.ACTIVE,
    }
