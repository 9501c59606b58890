"""What the game-over mail adds to the final ranking: each player's rating change on each ladder
(ratings/, written in the transaction that finished the game, so there when the mail is decided)
and the link to the game's replay from its setup."""

from django.urls import reverse

from games.words.texts import seat_name
from ratings.selectors import game_changes


def context(game, seat, seats, absolute):
    """{"ratings": [{name, you, changes: [{ladder, before, after, delta}]}] best place first (empty
    for a game that changed no rating), "replay_url"}. `seats`: {index: Seat}; `absolute` makes a
    path a link of the site."""
    ratings = []
    for entry in game_changes(game, list(seats.values())):
        ratings.append({
            "name": seat_name(entry["seat"]),
            "label": entry["label"],
            "you": entry["seat"].index == seat,
            "changes": [
                {"ladder": change["ladder"].label, "before": change["before"], "after": change["after"],
                 "delta": change["delta"]}
                for change in entry["changes"]
            ],
        })
    return {"ratings": ratings, "replay_url": absolute(reverse("game", args=[game.pk])) + "?at=0"}
