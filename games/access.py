"""Who may look at a game: shared by the HTTP views and the WebSocket consumer."""


def invitation_session_key(game_id):
    return f"invited-{game_id}"


def can_view(game, user, session):
    """Public games are open to everyone, also logged out; private ones to their players and
    to whoever followed the invitation link in this session."""
    if not game.private or session.get(invitation_session_key(game.pk)):
        return True
    return user.is_authenticated and (
        game.creator_id == user.pk or any(seat.user_id == user.pk for seat in game.seats.all())
    )
