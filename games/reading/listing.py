"""How every list of games shows a game (the lobby's lists, the archive): its players with their
colours, whose move it is, and the final ranking. Rows are built from the public summary services
store on Game (round, colours, standings, to_act, deadline) and the seats with their users; the
stored state, which holds the whole log, is never loaded for a list."""

from django.db.models import Prefetch

from games.models import Game, Seat
from games.words.texts import colour_letter, seat_name


def games_with_seats():
    """Games without their state and log, their seats and users prefetched (one more query).

    Of a seat and its user only what a list shows is loaded (the seat's name or its user's, and
    whether the account was deleted): decoding the other columns, dates above all, was most of the time
    a long list took."""
    seats = Seat.objects.select_related("user").only(
        "game_id", "user_id", "name", "index", "autopilot", "computer", "user__username", "user__deleted_at",
        # Whose calendar a vacation's days are in (the lobby's clocks, games.reading.selectors.my_games).
        "user__time_zone",
    )
    return Game.objects.defer("state", "first_events").prefetch_related(Prefetch("seats", queryset=seats))


def row(game, user):
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
        "username": seat_name(seat),
        # None for a player who is not a user of the site (an imported game).
        "user": seat.user,
        "colour": colour,
        "label": colour_letter(colour),
        "you": seat.user_id is not None and seat.user_id == user.pk,
        "to_act": seat.index is not None and seat.index in game.to_act,
        "autopilot": seat.autopilot and game.status == Game.Status.ACTIVE,
        "computer": seat.computer,
    }
