"""The reads the ladders, the game page and the profile need: each a fixed number of queries on
the ratings' indexes, however many players and games there are."""

from django.core.paginator import Paginator
from django.db.models import Count, Max, Q

from games.models import Seat
from games.words.texts import colour_letter

from . import chart
from .models import Ladder, Rating, RatingChange
from .rating import shown, shown_uncertainty

PER_PAGE = 50
# The most games a rating history chart draws: the latest ones.
HISTORY_GAMES = 100


def ladder_page(ladder, page_number, viewer):
    """One page of a ladder, best first: a Django Page whose `entries` are
    {rating, rank, shown, uncertainty, games, wins, last_game_at}. Equal ratings share a rank.
    `page_number` is what the request asked for; anything that is no page number gives the first
    or last page. The games, wins and last game's day are those `viewer` may see (see
    player_ladders).

    The page's rows are found by skipping the ones before them in the ladder's index alone (an
    index-only scan of its players' ids), and only then read with their players: a deep page
    never joins the rows it skips."""
    order = Rating.objects.filter(ladder=ladder).order_by("-ordinal", "user_id")
    page = Paginator(order.values_list("user_id", flat=True), PER_PAGE).get_page(page_number)
    rows = (
        order.filter(user_id__in=page.object_list)
        .select_related("user")
        .only(*_SHOWN_FIELDS, "user__username", "user__deleted_at")
    )
    entries = []
    for offset, rating in enumerate(rows):
        if not entries:
            rank = Rating.objects.filter(ladder=ladder, ordinal__gt=rating.ordinal).count() + 1
        elif rating.ordinal != entries[-1]["rating"].ordinal:
            rank = page.start_index() + offset
        entries.append({**_shown(rating), "rank": rank})
    _leave_out_unseen_games(entries, ladder, viewer)
    page.entries = entries
    return page


def _leave_out_unseen_games(entries, ladder, viewer):
    """Each ladder entry's games, wins and last game's day, less the private games `viewer` did
    not sit in: one query, and one more only when one of the page's players played such a game."""
    unseen = _unseen_by(viewer)
    players = [entry["rating"].user_id for entry in entries]
    hidden = {
        row["user_id"]: row
        for row in RatingChange.objects.filter(unseen, ladder=ladder, user_id__in=players)
        .values("user_id")
        .annotate(games=Count("pk"), wins=Count("pk", filter=Q(place=1)))
    }
    last_seen = {}
    if hidden:
        last_seen = dict(
            RatingChange.objects.filter(ladder=ladder, user_id__in=list(hidden))
            .exclude(unseen)
            .values("user_id")
            .annotate(last=Max("finished_at"))
            .values_list("user_id", "last")
        )
    for entry in entries:
        rating = entry["rating"]
        left_out = hidden.get(rating.user_id)
        entry["games"] = rating.games - (left_out["games"] if left_out else 0)
        entry["wins"] = rating.wins - (left_out["wins"] if left_out else 0)
        entry["last_game_at"] = last_seen.get(rating.user_id) if left_out else rating.last_game_at


def standings(ratings):
    """{ladder: (rank, page number)} of `ratings` (one per ladder, e.g. one player's), in one
    query: the rank shared with equal ratings, and the ladder page that holds the row."""
    if not ratings:
        return {}
    ahead, before = {}, {}
    for rating in ratings:
        ahead[f"ahead_{rating.ladder}"] = Count("user", filter=Q(ladder=rating.ladder, ordinal__gt=rating.ordinal))
        before[f"before_{rating.ladder}"] = Count(
            "user",
            filter=Q(ladder=rating.ladder)
            & (Q(ordinal__gt=rating.ordinal) | Q(ordinal=rating.ordinal, user_id__lt=rating.user_id)),
        )
    around = Q()
    for rating in ratings:
        around |= Q(ladder=rating.ladder, ordinal__gte=rating.ordinal)
    counts = Rating.objects.filter(around).aggregate(**ahead, **before)
    return {
        rating.ladder: (counts[f"ahead_{rating.ladder}"] + 1, counts[f"before_{rating.ladder}"] // PER_PAGE + 1)
        for rating in ratings
    }


def own_standing(ladder, user):
    """The viewer's row on a ladder, with its rank and page, or None."""
    if not user.is_authenticated:
        return None
    rating = Rating.objects.filter(ladder=ladder, user=user).only(*_SHOWN_FIELDS).first()
    if rating is None:
        return None
    rank, page = standings([rating])[ladder]
    return {**_shown(rating), "rank": rank, "page": page}


def game_changes(game, seats):
    """The rating changes of a finished game, one entry per player best place first:
    {seat, colour, label, place, changes: [{ladder, place, before, after, delta}]} for "all games" and
    the game's own ladder. Empty for a game without rating changes."""
    by_user = {}
    for change in RatingChange.objects.filter(game=game).order_by("ladder"):
        by_user.setdefault(change.user_id, []).append(_change(change))
    entries = []
    for seat in seats:
        if seat.user_id in by_user:
            changes = by_user[seat.user_id]
            colour = game.colours[seat.index] if game.colours else None
            entries.append({
                "seat": seat,
                "colour": colour,
                "label": colour_letter(colour),
                "place": changes[0]["place"],
                "changes": changes,
            })
    entries.sort(key=lambda entry: (entry["place"], entry["seat"].index))
    return entries


def player_ladders(player, viewer):
    """A player's rating on every ladder he played on, with its rank, its page on the ladder,
    the games and wins on it and the chart of its history (the latest HISTORY_GAMES games), as
    `viewer` may see them: 3 queries and one per ladder.

    A private game counts for the ratings, but only its players are shown it (as the archive
    does): to anyone else it is no point of the chart, and it is not counted in the games and
    wins, which would otherwise tell that there was one, and when."""
    ratings = list(Rating.objects.filter(user=player).order_by("ladder"))
    places = standings(ratings)
    unseen = _unseen_by(viewer)
    hidden = {}
    if ratings and viewer != player:
        counts = (
            RatingChange.objects.filter(unseen, user=player)
            .values("ladder")
            .annotate(games=Count("pk"), wins=Count("pk", filter=Q(place=1)))
        )
        hidden = {row["ladder"]: row for row in counts}
    ladders = []
    for rating in ratings:
        recent = list(
            RatingChange.objects.filter(user=player, ladder=rating.ladder)
            .exclude(unseen)
            .order_by("-finished_at", "-game_id")
            .only("mu_before", "sigma_before", "mu_after", "sigma_after", "finished_at", "place")[:HISTORY_GAMES]
        )[::-1]
        rank, page = places[rating.ladder]
        games = rating.games - hidden.get(rating.ladder, {}).get("games", 0)
        ladders.append({
            **_shown(rating),
            "rank": rank,
            "page": page,
            "games": games,
            "wins": rating.wins - hidden.get(rating.ladder, {}).get("wins", 0),
            "chart": chart.history(recent, first_number=games - len(recent) + 1),
        })
    return ladders


def _unseen_by(viewer):
    """The rating changes of the games `viewer` may not see: the private ones he did not sit in."""
    unseen = Q(game__private=True)
    if viewer.is_authenticated:
        unseen &= ~Q(game__in=Seat.objects.filter(user=viewer).values("game"))
    return unseen


def changes_on_ladder(games, player, ladder=Ladder.ALL):
    """{game id: change on `ladder`} of `player` in `games`, in one query."""
    changes = RatingChange.objects.filter(game__in=[game.pk for game in games], user=player, ladder=ladder)
    return {change.game_id: _change(change) for change in changes}


_SHOWN_FIELDS = ("user_id", "ladder", "mu", "sigma", "ordinal", "games", "wins", "last_game_at")


def _shown(rating):
    return {
        "rating": rating,
        "ladder": Ladder(rating.ladder),
        "shown": shown(rating.mu, rating.sigma),
        "uncertainty": shown_uncertainty(rating.sigma),
    }


def _change(change):
    before, after = shown(change.mu_before, change.sigma_before), shown(change.mu_after, change.sigma_after)
    return {
        "ladder": Ladder(change.ladder),
        "place": change.place,
        "before": before,
        "after": after,
        "delta": after - before,
        "uncertainty": shown_uncertainty(change.sigma_after),
    }
