"""What deleting an account does to its games (accounts/deletion.py deletes the account itself,
in the same transaction): refused while its player is in a running game; the games they wait in
that have not started are left, or cancelled when they created them; what they wrote in table
talk is blanked. Their finished games keep their seat, shown as a deleted player."""

from games.models import Game
from games.play import chat, lifecycle


class StillPlaying(Exception):
    """The account's player is in running games (`games`, their numbers only): nothing was changed."""

    def __init__(self, games):
        super().__init__(f"still playing in {len(games)} running games")
        self.games = games


def running_games(user):
    # Only their numbers: a player may be in hundreds.
    return list(Game.objects.only("pk").filter(seats__user=user, status=Game.Status.ACTIVE).order_by("pk"))


def leave_games(user):
    """In the transaction that deletes `user`, which has locked their account first (the order in
    which a join, games.play.lifecycle.join_game, locks them, so the two cannot deadlock: a join
    of this account waits for the deletion and then finds the account deleted), take them out of
    their games. Raises StillPlaying, at once and without waiting for any game's lock, while they
    play in a running game."""
    playing = running_games(user)
    if playing:
        raise StillPlaying(playing)
    # Its games that have not started, locked: nobody fills the last seat of one of them while
    # the account leaves it. One that started before the lock was had makes it busy.
    waiting = list(
        Game.objects.select_for_update(of=("self",))
        .defer("state")
        .filter(seats__user=user, status=Game.Status.OPEN)
        .order_by("pk")
    )
    playing = running_games(user)
    if playing:
        raise StillPlaying(playing)
    for game in waiting:
        if game.creator_id == user.pk:
            lifecycle.cancel_game(game, user=user)
        else:
            lifecycle.leave_game(game, user=user)
    chat.forget_messages_of(user)
