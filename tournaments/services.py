"""What changes a tournament: creation, sign-up and withdrawal, the start, and each round's tables.

Each function runs in one transaction with the tournament's row locked, so that two requests (or a
request and the sweep) are applied one after the other. The games are opened, seated and started
through games.play.services, like any game: their deadlines, timeouts and autopilot are the site's.
A round is over when all its games are; the next one is made at once, from the notice of the game
that finished it (games.signals.game_finished) or, should that be lost, from the deadline sweep
(games.signals.swept, `advance_due`).
"""

import itertools
import logging
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.emails import has_verified_email
from games.mail import outbox
from games.models import Game, Result, Seat
from games.play import lifecycle, moving
from games.play.errors import GameError, StaleVersion
from ratings.models import Rating

from . import mail, pairing
from .models import Entrant, Table, Tournament

logger = logging.getLogger(__name__)


class TournamentError(Exception):
    """A request the tournament cannot accept; `message` is safe to show to the requester."""

    status = 400

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class NotAllowed(TournamentError):
    status = 403


class Conflict(TournamentError):
    status = 409


def create_tournament(organiser, **fields):
    """A new tournament open for sign-up (its organiser does not enter by creating it)."""
    return Tournament.objects.create(organiser=organiser, seed=secrets.randbelow(2**62), **fields)


# A tournament made by the same organiser with the very same settings this many seconds before is
# the new-tournament form sent twice (a second click, a page sent again), not a second tournament.
SENT_TWICE_SECONDS = 30


def created_just_before(organiser, fields):
    """The tournament `organiser` made less than SENT_TWICE_SECONDS ago with these `fields`
    (TournamentForm.tournament_fields; its sign-up's end, reckoned from the moment of each post,
    within SENT_TWICE_SECONDS of theirs), or None. Run in the caller's transaction: the
    organiser's account is locked, so a second post of the form waits for the first to commit,
    then finds its tournament."""
    get_user_model().objects.select_for_update().filter(pk=organiser.pk).values_list("pk").first()
    fields = dict(fields)
    points = fields.pop("points", None)
    # The sign-up's end of each post is its own moment plus the days asked: the same days, asked
    # within the window, end within it of each other; other days end a day or more apart.
    closes = fields.pop("signup_closes_at", None)
    window = timedelta(seconds=SENT_TWICE_SECONDS)
    if closes is not None:
        fields["signup_closes_at__range"] = (closes - window, closes + window)
    recent = Tournament.objects.filter(
        organiser=organiser, created_at__gte=timezone.now() - window, **fields
    ).order_by("-created_at", "-pk")
    return next((tournament for tournament in recent if points is None or tournament.points == points), None)


def sign_up(tournament, user):
    with transaction.atomic():
        tournament = _lock(tournament)
        if tournament.status != Tournament.Status.SIGNUP:
            raise Conflict(_("Sign-up for this tournament is closed."))
        if getattr(user, "is_computer", False):
            raise NotAllowed(_("Computer players cannot enter tournaments."))
        if tournament.rated and not has_verified_email(user):
            raise NotAllowed(
                _("This tournament's games are rated: they are for players with a verified email address.")
            )
        if tournament.entrants.filter(user=user).exists():
            raise Conflict(_("You have already signed up for this tournament."))
        Entrant.objects.create(tournament=tournament, user=user)
    return tournament


def withdraw(tournament, user, *, sure=True):
    """Before the start, the entry is simply removed. After it, the entrant is seated no more:
    the game of the round under way is played on for them by autopilot to its end; that cannot be
    taken back, so a request not `sure` of it is refused. Checked under the tournament's lock: a
    withdrawal posted from the sign-up page as the organiser started the tournament would else be
    applied to the running tournament without its "I am sure"."""
    with transaction.atomic():
        tournament = _lock(tournament)
        entrant = tournament.entrants.filter(user=user, withdrawn_at__isnull=True).first()
        if entrant is None:
            raise Conflict(_("You are not entered in this tournament."))
        if tournament.status == Tournament.Status.SIGNUP:
            entrant.delete()
            return tournament
        if tournament.status != Tournament.Status.RUNNING:
            raise Conflict(_("This tournament is over."))
        if not sure:
            raise TournamentError(_("Tick “I am sure” first: this cannot be taken back."))
        entrant.withdrawn_at = timezone.now()
        entrant.save(update_fields=["withdrawn_at"])
        running = list(Game.objects.filter(
            tournament_table__tournament=tournament, status=Game.Status.ACTIVE, seats__user=user,
        ))
        for game in running:
            _hand_to_autopilot(game, user)
    return tournament


def _hand_to_autopilot(game, user):
    """The seat on autopilot, unless it is already or the game is over. Both can happen between
    this look and the game's lock (another tab's button, the game's last move: they take the
    game's lock, not the tournament's): the services then refuse, and there is nothing to do."""
    for _attempt in range(3):
        game.refresh_from_db()
        seat = Seat.objects.filter(game=game, user=user).first()
        if game.status != Game.Status.ACTIVE or seat is None or seat.autopilot:
            return
        try:
            moving.hand_seat_to_computer(game, user=user, expected_version=game.version)
            return
        except StaleVersion:
            continue
        except GameError:
            continue  # looked at again: on autopilot or over now


def start(tournament, user=None):
    """Start the tournament and make its first round: by its organiser (`user`), or by the sweep
    at the end of sign-up (`user` None). Too few entrants: the organiser is told; at the end of
    sign-up the tournament is cancelled, saying why."""
    with transaction.atomic():
        tournament = _lock(tournament)
        if user is not None and tournament.organiser_id != user.pk:
            raise NotAllowed(_("Only the organiser can start this tournament."))
        if tournament.status != Tournament.Status.SIGNUP:
            raise Conflict(_("This tournament has started already."))
        problem = _cannot_start(tournament)
        if problem:
            if user is not None:
                raise Conflict(problem)
            tournament.status = Tournament.Status.CANCELLED
            tournament.note = problem
            tournament.finished_at = timezone.now()
            tournament.save()
            return tournament
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = timezone.now()
        _make_round(tournament)
    return tournament


def _cannot_start(tournament):
    count = _seatable(tournament).count()
    try:
        sizes = pairing.table_sizes(count, tournament.table_size)
    except pairing.PairingError:
        return _("Too few entrants (%(count)d) for tables of %(size)d.") % {
            "count": count, "size": tournament.table_size}
    if tournament.format == Tournament.Format.GROUPS and (tournament.rounds < 2 or len(sizes) > pairing.LARGEST_TABLE):
        return _("Groups then a final needs at least 2 rounds and at most 5 groups.")
    return ""


def advance(tournament_id):
    """Make the next round of a running tournament whose round is over, or finish it after its
    last round. Does nothing while a game of the round is still being played. Returns whether it
    changed the tournament."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return False
        games = Game.objects.filter(
            tournament_table__tournament=tournament, tournament_table__round=tournament.current_round
        )
        if games.exclude(status__in=[Game.Status.FINISHED, Game.Status.CANCELLED]).exists():
            return False
        if tournament.current_round >= tournament.rounds or not _make_round(tournament):
            tournament.status = Tournament.Status.FINISHED
            tournament.finished_at = timezone.now()
            tournament.save()
    return True


def advance_due(now=None):
    """The sweep's part: start the tournaments whose sign-up has closed, and advance those whose
    round is over (a notice of a finished game may have been lost). Returns how many changed."""
    now = now or timezone.now()
    # One statement when there is nothing to do: it runs after every deadline sweep.
    due = due_tournaments(now).order_by().values_list("pk", "status")
    changed = 0
    for tournament_id, status in due:
        if status == Tournament.Status.SIGNUP:
            try:
                start(Tournament(pk=tournament_id))
                changed += 1
            except TournamentError:
                pass  # started meanwhile
            except GameError:
                # As below: logged, and the other tournaments still move on.
                logger.exception("the first round of tournament %s could not be made", tournament_id)
        else:
            try:
                changed += advance(tournament_id)
            except GameError:
                # A game the services refuse to open (an entrant's account deleted meanwhile, say):
                # logged, and the other tournaments still move on.
                logger.exception("the next round of tournament %s could not be made", tournament_id)
    return changed


def due_tournaments(now):
    """The tournaments `advance_due` starts or advances at `now`."""
    playing = Game.objects.filter(tournament_table__tournament=OuterRef("pk"), status=Game.Status.ACTIVE)
    return Tournament.objects.filter(
        Q(status=Tournament.Status.SIGNUP, signup_closes_at__lte=now)
        | Q(Q(status=Tournament.Status.RUNNING), ~Exists(playing))
    )


def _lock(tournament):
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


# ---- the rounds -------------------------------------------------------------------------------------


def results(tournament, rounds=None):
    """[(round, GameResult)] of the tournament's finished games, by round and table: the archive's
    `Result` rows, which the transaction that finishes a game writes (games/play/results.py), read
    in one query, each game's players in the order of its standings."""
    rows = Result.objects.filter(game__tournament_table__tournament=tournament)
    if rounds is not None:
        rows = rows.filter(game__tournament_table__round__in=rounds)
    rows = rows.order_by("game__tournament_table__round", "game__tournament_table__number", "place", "seat")
    out = []
    games = itertools.groupby(
        rows.values_list("game__tournament_table__round", "game_id", "user_id", "place", "score"),
        key=lambda row: row[:2],
    )
    for (round_number, _game_id), players in games:
        places, scores = {}, {}
        for _round, _game, user_id, place, score in players:
            places[user_id], scores[user_id] = place, score
        out.append((round_number, pairing.GameResult(places=places, scores=scores)))
    return out


def seated(tournament):
    """{round: [[user ids of a table], ...]} of the tables made so far, by table number."""
    rounds = {}
    seats = Seat.objects.filter(game__tournament_table__tournament=tournament).values_list(
        "game__tournament_table__round", "game__tournament_table__number", "user_id")
    tables = {}
    for round_number, number, user_id in seats:
        tables.setdefault((round_number, number), []).append(user_id)
    for (round_number, _number), players in sorted(tables.items()):
        rounds.setdefault(round_number, []).append(players)
    return rounds


def ranking(tournament):
    """The standings (pairing.Standing, best first) of every entrant, withdrawn ones marked."""
    entrants = list(tournament.entrants.all())
    players = [entrant.user_id for entrant in entrants]
    withdrawn = {entrant.user_id for entrant in entrants if entrant.withdrawn_at is not None}
    played = [result for _round, result in results(tournament)]
    if tournament.format == Tournament.Format.GROUPS and tournament.status == Tournament.Status.FINISHED:
        return _groups_final_ranking(tournament, players, played, withdrawn)
    return pairing.standings(players, played, tournament.points, withdrawn)


def _groups_final_ranking(tournament, players, played, withdrawn):
    """After the final: its table first, in its order; then everyone else by their standings."""
    overall = pairing.standings(players, played, tournament.points, withdrawn)
    final = [result for _round, result in results(tournament, [tournament.rounds])]
    if not final:
        return overall
    final_order = pairing.standings(final[0].players, final, tournament.points)
    at_final = {standing.player for standing in final_order}
    ordered = [next(s for s in overall if s.player == f.player) for f in final_order]
    for standing, in_final in zip(ordered, final_order, strict=True):
        standing.rank = in_final.rank
    rest = [standing for standing in overall if standing.player not in at_final]
    for index, standing in enumerate(rest):
        standing.rank = len(ordered) + index + 1
    return ordered + rest


def _seatable(tournament):
    """The entries seated in the next round: not withdrawn, and of an account not deleted since
    (a deleted account takes no seat: games.play.steps._lock_player; seating one refused the
    whole round, so the tournament never started or went on)."""
    return tournament.entrants.filter(withdrawn_at__isnull=True, user__deleted_at__isnull=True)


def _make_round(tournament):
    """Seat the next round and open its games; False when too few players are left to seat."""
    number = tournament.current_round + 1
    active = list(_seatable(tournament).values_list("user_id", flat=True))
    try:
        tables = _seating(tournament, number, active)
    except pairing.PairingError:
        return False
    tables = [table for table in tables if len(table) >= pairing.SMALLEST_TABLE]
    if not tables:
        return False
    users = {user.pk: user for user in type(tournament.organiser).objects.filter(pk__in=active)}
    made = []
    for index, players in enumerate(tables, start=1):
        game = lifecycle.create_game(users[players[0]], num_players=len(players), **tournament.game_options())
        for user_id in players[1:]:
            # The tournament seats its entrants: a block between two of them refuses no seat (a
            # refusal would stop the round, and the tournament with it, for good).
            game = lifecycle.join_game(game, user=users[user_id], seated_by_site=True)
        made.append(Table.objects.create(tournament=tournament, round=number, number=index, game=game))
    tournament.current_round = number
    tournament.save()
    table_ids = [table.pk for table in made]
    # Recorded with the tables, in their transaction: the games' own mail decisions, made once it
    # commits, find each entrant's table mail, which stands for his first "your move"
    # (games/mail/decisions.py); sent once the tables are there for its link.
    created = mail.tables_made(table_ids)
    transaction.on_commit(lambda: outbox.queue_sending(created), robust=True)
    return True


def _ratings(tournament, players):
    if tournament.first_round != Tournament.FirstRound.RATING:
        return None
    return dict(
        Rating.objects.filter(user_id__in=players, ladder=tournament.table_size).values_list("user_id", "ordinal")
    )


def _seating(tournament, number, active):
    size, seed = tournament.table_size, f"{tournament.seed}-{number}"
    if number == 1:
        ratings = _ratings(tournament, active)
        if tournament.format == Tournament.Format.GROUPS:
            return pairing.groups(active, size, ratings, seed)
        return pairing.first_round(active, size, ratings, seed)
    history = seated(tournament)
    if tournament.format == Tournament.Format.SWISS:
        played = [result for _round, result in results(tournament)]
        order = [standing.player for standing in pairing.standings(active, played, tournament.points)]
        return pairing.swiss_round(order, size, [table for tables in history.values() for table in tables])
    still_in = set(active)
    groups = [[player for player in group if player in still_in] for group in history[1]]
    if number < tournament.rounds:
        return groups
    played = [result for _round, result in results(tournament)]
    group_standings = [
        [standing.player for standing in pairing.standings(group, played, tournament.points)]
        for group in groups
        if group
    ]
    return [pairing.finalists(group_standings, size)]
