"""Computer players on the site: their accounts, their seats, and how they decide from a seat's
view (the pure players are games.bots)."""
