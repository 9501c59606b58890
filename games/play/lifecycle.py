"""A game's life before and around its moves: opening it (with computer players in a practice
game), taking and leaving a seat, starting it when the last seat is taken, cancelling it.

Each change runs in one transaction with the game's row locked, and goes through
games/play/saving.py (`_save`), so that what follows it is recorded and announced as after any
other change (games/play/after_save.py).
"""

import random
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from accounts import friends
from accounts.emails import has_verified_email
from games.bots import LEVELS
from games.computer import players as computer
from games.engine import new_game
from games.models import DEFAULT_TIME_PER_MOVE, Game, Seat
from games.play.errors import Conflict, GameError, NotAllowed
from games.play.saving import _save
from games.play.steps import _lock, _lock_player


def create_game(
    user,
    *,
    num_players,
    short_game=False,
    veto=True,
    show_castillo=False,
    time_per_move=DEFAULT_TIME_PER_MOVE,
    rated=False,
    private=False,
    vacations_allowed=True,
    computers=(),
):
    """Open a new game with its creator in the first seat taken, and a computer player of each
    level of `computers` in a seat of its own (a practice game); it starts when they fill it."""
    if not 2 <= num_players <= 5:
        raise GameError(_("A game has 2 to 5 players."))
    _check_computers(computers, num_players, rated)
    if rated:
        _check_may_play_rated(user)
    with transaction.atomic():
        _lock_player(user)
        game = Game.objects.create(
            creator=user,
            num_players=num_players,
            short_game=short_game,
            veto=veto,
            show_castillo=show_castillo,
            time_per_move=time_per_move,
            rated=rated,
            private=private,
            vacations_allowed=vacations_allowed,
            invite_token=secrets.token_urlsafe(24) if private else "",
            seed=secrets.randbelow(2**62),
            practice=bool(computers),
        )
        seats = [Seat.objects.create(game=game, user=user)]
        if computers:
            seats += computer.take_seats(game, computers)
            if len(seats) == num_players:
                game.version += 1
                _start(game, seats)
    return game


# A game opened by the same player with the very same options this many seconds before is the
# same new-game form sent twice (a second click, a page sent again), not a second game.
SENT_TWICE_SECONDS = 30


def created_just_before(user, options):
    """The game `user` opened less than SENT_TWICE_SECONDS ago with exactly these `options` (the
    new-game form's cleaned data), not cancelled since, or None. Run in the caller's transaction
    with the player's account locked, as `create_game` locks it: a second post of the form waits
    for the first to commit, then finds its game."""
    _lock_player(user)
    options = dict(options)
    computers = sorted(options.pop("computers", ()))
    recent = (
        Game.objects.filter(
            creator=user, imported=False, practice=bool(computers),
            created_at__gte=timezone.now() - timedelta(seconds=SENT_TWICE_SECONDS), **options,
        )
        .exclude(status=Game.Status.CANCELLED)
        .defer("state", "first_events")
        .order_by("-created_at", "-pk")
    )
    for game in recent:
        if sorted(seat.computer for seat in game.seats.all() if seat.computer) == computers:
            return game
    return None


def _check_computers(computers, num_players, rated):
    if any(level not in LEVELS for level in computers):
        raise GameError(gettext("A computer player plays at one of these levels: %s.") % ", ".join(LEVELS))
    if len(computers) >= num_players:
        raise GameError(gettext("Computer players can take at most every seat but yours."))
    if computers and rated:
        raise GameError(gettext("A game with computer players is a practice game: it cannot be rated."))


def invitation_valid(game, *, token):
    # As bytes: compare_digest refuses str with non-ASCII characters (a forged link's token).
    return bool(game.invite_token) and secrets.compare_digest(game.invite_token.encode(), (token or "").encode())


def join_game(game, *, user, token="", seated_by_site=False):
    """Take a seat; the game starts when this was the last one. `seated_by_site`: the seat is
    not the player's request but the site's (a tournament's table, which every entrant asked to be
    seated at): a block between players at the table does not refuse it (docs/friends.md)."""
    with transaction.atomic():
        _lock_player(user)
        game = _lock(game)
        if game.status != Game.Status.OPEN:
            raise Conflict(_("This game is no longer open for players."))
        if game.private and not invitation_valid(game, token=token):
            raise NotAllowed(_("This game is private: you need its invitation link to join."))
        if game.rated:
            _check_may_play_rated(user)
        seats = list(game.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise Conflict(_("You already have a seat in this game."))
        if len(seats) >= game.num_players:
            raise Conflict(_("This game is full."))
        if not seated_by_site and friends.any_blocks(user, [seat.user_id for seat in seats if seat.user_id]):
            # A player seated here blocks the joiner, who is not told so (docs/friends.md).
            raise Conflict(_("This game is no longer open for players."))
        seats.append(Seat.objects.create(game=game, user=user))
        game.version += 1
        if len(seats) == game.num_players:
            _start(game, seats)
        else:
            _save(game)
    return game


def leave_game(game, *, user):
    """Give up a seat before the game starts. The creator cancels instead."""
    with transaction.atomic():
        game = _lock(game)
        if game.status != Game.Status.OPEN:
            raise Conflict(_("You can only leave a game before it starts."))
        if game.creator_id == user.pk:
            raise Conflict(_("You created this game: cancel it instead of leaving."))
        deleted, _by_model = game.seats.filter(user=user).delete()
        if not deleted:
            raise Conflict(_("You have no seat in this game."))
        game.version += 1
        _save(game, also_tell=[user.pk])
    return game


def check_may_cancel(game, *, user):
    """Raise the reason why `user` may not cancel `game`, if there is one."""
    if game.creator_id != user.pk:
        raise NotAllowed(_("Only the creator can cancel this game."))
    if game.status != Game.Status.OPEN:
        raise Conflict(_("Only a game that has not started can be cancelled."))


def cancel_game(game, *, user):
    with transaction.atomic():
        game = _lock(game)
        check_may_cancel(game, user=user)
        game.status = Game.Status.CANCELLED
        game.version += 1
        _save(game)
    return game


def _check_may_play_rated(user):
    if not has_verified_email(user):
        raise NotAllowed(
            _(
                "Rated games are for players with a verified email address: follow the link we mailed "
                "you, or send a new one from your settings."
            )
        )


def _start(game, seats):
    # The seed decides the seating, so a game and its moves replay to the same table.
    random.Random(game.seed).shuffle(seats)
    for index, seat in enumerate(seats):
        seat.index = index
    Seat.objects.bulk_update(seats, ["index"])
    game.status = Game.Status.ACTIVE
    game.started_at = timezone.now()
    state = new_game(**game.engine_options())
    game.first_events = state.events
    _save(game, state)
