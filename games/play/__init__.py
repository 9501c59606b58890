"""What changes a game: its errors, its lifecycle (open, join, start, leave, cancel), submitting a
move, the autopilot, deadline expiry, results, chat writes. Every write of Game, Seat and Move rows
goes through here."""
