"""Who may look at a game: shared by the HTTP views and the WebSocket consumer."""

from django.http import Http404
from django.utils.translation import gettext as _


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


def game_or_404(request, games, pk):
    """The game `pk` of the queryset `games`, or the 404 of a game that does not exist when the
    requester may not look at it: whether a private game exists, or has started, is not a
    stranger's to learn from a join, leave, take-back, cancel or invitation (as from its page)."""
    game = games.filter(pk=pk).first()
    if game is None or not can_view(game, request.user, request.session):
        raise Http404(_("No such game."))
    return game
