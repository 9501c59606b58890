"""What changes a game: its errors, its lifecycle (open, join, start, leave, cancel), submitting a
move and the autopilot, deadline expiry, imports, what an account's deletion does to its games,
results, chat writes; and what follows every save (`after_save`: recorded in its transaction,
announced once committed). Every write of Game, Seat and Move rows goes through here."""
