class IllegalMove(ValueError):
    """A move the rules do not allow; the message is meant for the player who tried it."""
