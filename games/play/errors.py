"""What the play room refuses: a request the game cannot accept, with the HTTP status a view
answers it with. Raised by the play room's changes (games.play.lifecycle, moving, imports, chat),
caught by the views."""


class GameError(Exception):
    """A request the game cannot accept. `message` is safe to show to the requester;
    `status` is the HTTP status a view should answer with."""

    status = 400

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class NotAllowed(GameError):
    status = 403


class Conflict(GameError):
    status = 409


class StaleVersion(Conflict):
    pass
