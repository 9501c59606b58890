"""The rating of rated games: openskill's Plackett–Luce model over the final places.

Every finished rated game changes its players' ratings on two ladders, "all games" and the one
of its player count, in the transaction that finishes it (games.play.after_save calls
`rate_finished_game`). `rebuild` computes every rating again from all rated games in the order
they finished, with the same code, and so finds the stored floats bit for bit.
"""

from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Q
from openskill.models import PlackettLuce

from games.infra import finished_generation
from games.models import Seat

from .models import Ladder, Rating, RatingChange

# openskill's defaults: a new player has mu 25 and sigma 25/3, so an ordinal (mu - 3 sigma) of 0.
MODEL = PlackettLuce()

# The number players see: the ordinal, a cautious estimate of skill, on an Elo-like scale where a
# new player stands at 1000. Its uncertainty is sigma on the same scale.
SHOWN_BASE = 1000
SHOWN_SCALE = 20


def shown(mu, sigma):
    return round(MODEL.rating(mu=mu, sigma=sigma).ordinal(alpha=SHOWN_SCALE, target=SHOWN_BASE))


def shown_uncertainty(sigma):
    return round(SHOWN_SCALE * sigma)


def ladders_of(num_players):
    return (Ladder.ALL, Ladder(num_players))


def rate_finished_game(game, seats=None):
    """Rate `game`, a rated game being finished in the current transaction: its status,
    finished_at and standings already set (games.play.after_save.record). `seats`: {index: Seat} when
    the caller has them. Does nothing for an unrated game or one already rated.

    The players' rating rows are locked (in one order, so two games finishing at once wait for
    each other rather than deadlock). Should one of them have a rated game that finished at or
    after `game.finished_at` (another game committed meanwhile), `game.finished_at` moves just
    after it: the order of finishing is the order of rating, which `rebuild` follows.
    """
    if not (game.rated or game.practice) or RatingChange.objects.filter(game_id=game.pk).exists():
        return
    if seats is None:
        seats = {
            seat.index: seat for seat in Seat.objects.filter(game_id=game.pk).only("index", "user_id", "computer")
        }
    places = _places(game.standings, {index: seat.user_id for index, seat in seats.items()})
    ladders = ladders_of(len(game.standings))
    # A practice game rates its computer players only (see `_counted`).
    counted = _counted(game, {seat.user_id for seat in seats.values() if seat.computer})
    # A player's first game on a ladder makes his row; in the order of the lock below, so that two
    # games making rows for the same players at once wait for each other rather than deadlock.
    users = sorted(user_id for user_id, _ in places if counted(user_id))
    Rating.objects.bulk_create(
        [_new_rating(Rating, user_id, ladder) for user_id in users for ladder in sorted(ladders)],
        ignore_conflicts=True,
    )
    locked = Rating.objects.select_for_update().filter(user_id__in=users, ladder__in=ladders)
    rows = {(row.user_id, row.ladder): row for row in locked.order_by("user_id", "ladder")}
    latest = max((row.last_game_at for row in rows.values() if row.last_game_at), default=None)
    if latest is not None and game.finished_at <= latest:
        game.finished_at = latest + timedelta(microseconds=1)
    changes = []
    for ladder in ladders:
        changes += rate_ladder(
            [rows.get((user_id, ladder)) or _new_rating(Rating, user_id, ladder) for user_id, _ in places],
            [place for _, place in places],
            game,
            RatingChange,
        )
    changes = [change for change in changes if counted(change.user_id)]
    Rating.objects.bulk_update(list(rows.values()), _RATING_STATE)
    RatingChange.objects.bulk_create(changes)


def rate_ladder(rows, places, game, change_model):
    """Rate one game on one ladder: `rows`, the players' Rating rows of that ladder in seat
    order, take their new values; returns the unsaved change rows. The one place where ratings
    change, for the game being finished and for the rebuild alike."""
    teams = [[MODEL.rating(mu=row.mu, sigma=row.sigma)] for row in rows]
    rated = MODEL.rate(teams, ranks=list(places))
    changes = []
    for row, place, [after] in zip(rows, places, rated):
        changes.append(change_model(
            game_id=game.pk,
            user_id=row.user_id,
            ladder=row.ladder,
            place=place,
            mu_before=row.mu,
            sigma_before=row.sigma,
            mu_after=after.mu,
            sigma_after=after.sigma,
            finished_at=game.finished_at,
        ))
        row.mu, row.sigma, row.ordinal = after.mu, after.sigma, after.ordinal()
        row.games += 1
        row.wins += place == 1
        row.last_game_id, row.last_game_at = game.pk, game.finished_at
    return changes


# The columns of a Rating that a game changes.
_RATING_STATE = ["mu", "sigma", "ordinal", "games", "wins", "last_game", "last_game_at"]


def _counted(game, computers):
    """Whose rating a finished game changes: everybody's in a rated game. A practice game (with a
    computer player) counts for a person only if every other seat is a person's, which a practice
    game never has: it rates its computer players alone, each person in it counting as a new
    player (mu 25, sigma 25/3) whatever his own rating, so that the computer players' ratings
    depend on nothing but their games' places and `rebuild` finds them again exactly."""
    if game.rated:
        return lambda user_id: True
    return lambda user_id: user_id in computers


def _new_rating(rating_model, user_id, ladder):
    start = MODEL.rating()
    return rating_model(user_id=user_id, ladder=ladder, mu=start.mu, sigma=start.sigma, ordinal=start.ordinal())


def _places(standings, users):
    """[(user id, place)] in seat order, from the game's standings ([place, seat, score]) and
    its users by seat. Seat order, not place order, so that both ways of rating a game hand
    openskill its players in the same order. A seat whose user was removed from the database
    (not a deleted account, which keeps its row) has no say."""
    return [
        (users[seat], place) for place, seat, _ in sorted(standings, key=lambda standing: standing[1]) if seat in users
    ]


def rebuild(apps):
    """Every rating computed again from nothing: all finished rated games, by finished_at then
    id. Returns (ratings, changes), unsaved rows of the models found in `apps` (the project's
    registry, or a migration's)."""
    game_model = apps.get_model("games", "Game")
    seat_model = apps.get_model("games", "Seat")
    rating_model = apps.get_model("ratings", "Rating")
    change_model = apps.get_model("ratings", "RatingChange")
    # The migration that made the ladders runs this on models that may predate practice games.
    practice = any(field.name == "practice" for field in game_model._meta.get_fields())
    counting = Q(rated=True) | Q(practice=True) if practice else Q(rated=True)
    rated = game_model.objects.filter(counting, status="finished")
    users, computers = {}, {}
    seats = seat_model.objects.filter(game__in=rated).values_list(
        "game_id", "index", "user_id", "computer" if practice else "user_id"
    )
    for game_id, index, user_id, computer in seats:
        users.setdefault(game_id, {})[index] = user_id
        if practice and computer:
            computers.setdefault(game_id, set()).add(user_id)
    ratings, changes = {}, []

    def rating(user_id, ladder):
        if (user_id, ladder) not in ratings:
            ratings[user_id, ladder] = _new_rating(rating_model, user_id, ladder)
        return ratings[user_id, ladder]

    games = rated.order_by("finished_at", "pk").only("pk", "finished_at", "standings", "rated")
    for game in games.iterator(chunk_size=2000):
        places = _places(game.standings, users.get(game.pk, {}))
        if len(places) < 2:
            continue
        counted = _counted(game, computers.get(game.pk, set()))
        for ladder in ladders_of(len(game.standings)):
            rows = [
                rating(user_id, ladder) if counted(user_id) else _new_rating(rating_model, user_id, ladder)
                for user_id, _ in places
            ]
            made = rate_ladder(rows, [place for _, place in places], game, change_model)
            changes += [change for change in made if counted(change.user_id)]
    return list(ratings.values()), changes


# What `rebuild` must reproduce exactly, by model: the key of a row, and its values.
_KEYS = {"Rating": ("user_id", "ladder"), "RatingChange": ("game_id", "user_id", "ladder")}
_VALUES = {
    "Rating": ("mu", "sigma", "ordinal", "games", "wins", "last_game_id", "last_game_at"),
    "RatingChange": ("place", "mu_before", "sigma_before", "mu_after", "sigma_after", "finished_at"),
}


def differences(apps):
    """Where the stored ratings and changes differ from what `rebuild` computes: a list of
    sentences, empty when every float is exactly the same."""
    found = []
    for name, computed in zip(_KEYS, rebuild(apps)):
        model = apps.get_model("ratings", name)
        keys, values = _KEYS[name], _VALUES[name]
        stored = {row[:len(keys)]: row[len(keys):] for row in model.objects.values_list(*keys, *values).iterator()}
        expected = {
            tuple(getattr(row, key) for key in keys): tuple(getattr(row, value) for value in values) for row in computed
        }
        for key in sorted(stored.keys() | expected.keys()):
            if key not in stored:
                found.append(f"{name} {dict(zip(keys, key))} is missing.")
            elif key not in expected:
                found.append(f"{name} {dict(zip(keys, key))} should not exist.")
            elif stored[key] != expected[key]:
                changed = {
                    value: (was, right) for value, was, right in zip(values, stored[key], expected[key]) if was != right
                }
                found.append(f"{name} {dict(zip(keys, key))} differs (stored, computed): {changed}.")
    return found


def replace_all(apps):
    """Store what `rebuild` computes in place of every rating and change, in one transaction.
    On PostgreSQL the two tables are locked first, so a game finishing meanwhile waits and is
    rated on top of the rebuilt ratings. Returns (ratings, changes) stored."""
    rating_model = apps.get_model("ratings", "Rating")
    change_model = apps.get_model("ratings", "RatingChange")
    with transaction.atomic():
        if connection.vendor == "postgresql":
            quote = connection.ops.quote_name
            tables = ", ".join(quote(model._meta.db_table) for model in (rating_model, change_model))
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {tables} IN SHARE ROW EXCLUSIVE MODE")
        change_model.objects.all().delete()
        rating_model.objects.all().delete()
        ratings, changes = rebuild(apps)
        rating_model.objects.bulk_create(ratings, batch_size=2000)
        change_model.objects.bulk_create(changes, batch_size=2000)
        # The profiles' lists of finished games show the changes: retire their kept copies.
        finished_generation.changed()
    return len(ratings), len(changes)
