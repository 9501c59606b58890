"""Lobby, game page and its htmx partials, and the move endpoint. Thin: the engine decides,
games.services writes, the templates draw."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.emails import has_verified_email

from . import chat, clocks, keyset, replay_views, services, view_cache
from . import lobby as lobby_lists
from .access import can_view, invitation_session_key
from .engine import GameState, view_for, visible_events
from .forms import MoveForm, NewGameForm
from .log_text import Names, event_html, move_log
from .models import Game, Seat
from .moves_forms import UnreadableFields, move_data

PARTIALS = {
    "play": "games/partials/play.html",
    "board": "games/partials/board.html",
    "decision": "games/partials/decision.html",
    "log": "games/partials/log.html",
}


@require_GET
def lobby(request):
    user = request.user
    try:
        mine = lobby_lists.my_games(user, request.GET.get("mine", 1))
        open_cursor = keyset.cursor_in(request.GET, "open_after", "open_before")
    except ValueError as error:
        return render(request, "games/bad_request.html", {"error": str(error)}, status=400)
    open_page = lobby_lists.open_games(user, open_cursor)
    return render(
        request,
        "games/lobby.html",
        {
            "my_games": mine.rows,
            "my_games_page": mine.page,
            "your_move": mine.waiting > 0,
            "waiting": mine.waiting,
            "open_games": open_page.rows,
            "open_page": open_page,
            "finished": lobby_lists.finished_games(user),
        },
    )


@require_GET
def my_games(request):
    """The lobby's "my games" alone, which the lobby fetches again when its socket says that one
    of the player's games changed."""
    if not request.user.is_authenticated:
        return HttpResponseForbidden("Log in to see your games.")
    try:
        mine = lobby_lists.my_games(request.user, request.GET.get("mine", 1))
    except ValueError as error:
        return render(request, "games/partials/bad_request.html", {"error": str(error)}, status=400)
    return render(
        request,
        "games/partials/my_games.html",
        {"my_games": mine.rows, "my_games_page": mine.page, "your_move": mine.waiting > 0, "waiting": mine.waiting},
    )


@login_required
def new_game(request):
    form = NewGameForm(request.POST or None)
    if not has_verified_email(request.user):
        form.fields["rated"].help_text = "Rated games need a verified email address (see your settings)."
    if request.method == "POST" and form.is_valid():
        try:
            game = services.create_game(request.user, **form.cleaned_data)
        except services.GameError as error:
            form.add_error(None, error.message)
            return render(request, "games/new.html", {"form": form}, status=error.status)
        messages.success(request, "Game created. It starts when every seat is taken.")
        return redirect(game)
    return render(request, "games/new.html", {"form": form})


@require_GET
def game_page(request, pk):
    game = _viewable_game(request, pk)
    if replay_views.wanted(game, request.GET):
        return replay_views.page(request, game)
    context = _game_context(request, game)
    context["chat"] = chat.chat_context(request.user, game, context["seats"])
    return render(request, "games/game.html", context)


@require_GET
def game_partial(request, pk, name):
    if name == "replay":
        return replay_views.partial(request, _viewable_game(request, pk))
    if name not in PARTIALS:
        raise Http404("No such part of the game page.")
    if name == "play":
        return _play(request, _viewable_game(request, pk, defer=_LARGE))
    whole_log = name == "log" and request.GET.get("all") == "1"
    context = _game_context(
        request, _viewable_game(request, pk), whole_log=whole_log, shows_log=name in ("play", "log")
    )
    return _render_partial(request, name, context)


@require_GET
def invitation(request, pk, token):
    game = get_object_or_404(Game.objects.defer("state", "first_events"), pk=pk)
    if not services.invitation_valid(game, token):
        raise Http404("This invitation link is not valid.")
    # The session remembers the invitation, so the page's partials and WebSocket work too.
    request.session[invitation_session_key(pk)] = True
    return redirect(game)


@require_POST
def join(request, pk):
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("game", args=[pk]))
    game = get_object_or_404(Game.objects.defer("state", "first_events"), pk=pk)
    token = game.invite_token if request.session.get(invitation_session_key(pk)) else ""
    return _act(request, lambda: services.join_game(game, request.user, token), game)


@login_required
@require_POST
def leave(request, pk):
    game = get_object_or_404(Game.objects.defer("state", "first_events"), pk=pk)
    return _act(request, lambda: services.leave_game(game, request.user), game)


@login_required
@require_http_methods(["GET", "POST"])
def cancel(request, pk):
    """The creator cancels a game that has not started, having confirmed it: the page's button
    opens a dialog (with JavaScript) or this view's confirmation page (without), and only their
    form, which posts `confirm`, cancels. Anything else asks first and changes nothing."""
    game = get_object_or_404(Game.objects.defer("state", "first_events"), pk=pk)
    if not can_view(game, request.user, request.session):
        raise Http404("No such game.")
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        return _act(request, lambda: services.cancel_game(game, request.user), game)
    try:
        services.check_may_cancel(game, request.user)
    except services.GameError as error:
        messages.error(request, error.message)
        return redirect(game)
    return render(request, "games/cancel.html", {"game": game})


@login_required
@require_POST
def take_back_seat(request, pk):
    game = get_object_or_404(Game.objects.defer("state", "first_events"), pk=pk)
    return _act(request, lambda: services.take_back_seat(game, request.user), game)


def _act(request, change, game):
    try:
        change()
    except services.GameError as error:
        messages.error(request, error.message)
    return redirect(game)


@require_POST
def move(request, pk):
    """Accept one move. htmx gets the refreshed play area, or an error fragment with a 4xx."""
    game = get_object_or_404(Game.objects.defer("state", "first_events"), pk=pk)
    if not can_view(game, request.user, request.session):
        # As the page: a private game does not exist for those who may not see it.
        raise Http404("No such game.")
    if not request.user.is_authenticated:
        return _move_error(request, game, "Log in to play.", 403)
    try:
        form = MoveForm(move_data(request.POST))
    except UnreadableFields as error:
        return _move_error(request, game, f"This move could not be read ({error}).", 400)
    if not form.is_valid():
        problems = "; ".join(
            " ".join(errors) if field == NON_FIELD_ERRORS else f"{field}: {' '.join(errors)}"
            for field, errors in form.errors.items()
        )
        return _move_error(request, game, f"This move could not be read ({problems}).", 400)
    try:
        services.submit_move(
            game,
            request.user,
            form.cleaned_data["move"],
            form.cleaned_data["expected_version"],
            seat_index=form.cleaned_data["seat"],
        )
    except services.GameError as error:
        return _move_error(request, game, error.message, error.status)
    if request.htmx:
        return _play(request, _viewable_game(request, pk, defer=_LARGE))
    return redirect(game)


def _render_partial(request, name, context):
    return render(request, "games/partials/unlocalized.html", {**context, "partial": PARTIALS[name]})


def _play(request, game):
    """The play partial, from the cache when this reader's view of this version was rendered
    before (games/view_cache.py). `game`: from `_viewable_game`, so a reader who may not see
    the game has had his 404 before any cache lookup."""
    if not view_cache.cacheable(game):
        return _render_partial(request, "play", _game_context(request, game))
    seats = list(game.seats.all())
    spans = _vacation_spans(game, seats)
    key = view_cache.key(game, _own_seat(request, seats), seats, spans, timezone.get_current_timezone())
    entry = view_cache.get(key)
    if entry is None:
        game.refresh_from_db(fields=_LARGE)
        context = {**_game_context(request, game, spans=spans), "partial": PARTIALS["play"]}
        entry = view_cache.render("games/partials/unlocalized.html", context, key)
    return HttpResponse(view_cache.fill(request, entry))


def _move_error(request, game, message, status):
    context = {"game": game, "error": message}
    if request.htmx:
        response = render(request, "games/partials/move_error.html", context, status=status)
        response["HX-Retarget"] = "#move-error"
        response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, "games/move_error.html", context, status=status)


# The game's columns that only a render needs, not a look in the cache: left for later there.
_LARGE = ("state", "first_events")


def _viewable_game(request, pk, defer=()):
    """The game with its seats and their users (each marked `muted` when the reader mutes its
    player in chat), if the requester may look at it; without the columns in `defer`."""
    games = Game.objects.defer(*defer).prefetch_related(chat.seats_with_mutes(request.user))
    game = get_object_or_404(games, pk=pk)
    if not can_view(game, request.user, request.session):
        raise Http404("No such game.")
    return game


def _own_seat(request, seats):
    # An imported game's seats have no user: no visitor, logged out or not, is one of them.
    return next((s for s in seats if s.user_id is not None and s.user_id == request.user.pk), None)


def _vacation_spans(game, seats):
    """The vacations under way that concern the page: its badges and its clock (one query)."""
    if game.status == Game.Status.ACTIVE and game.clocks_stop_for_vacations:
        return clocks.vacation_spans([s.user for s in seats], timezone.now())
    return {}


def _game_context(request, game, whole_log=False, shows_log=True, spans=None):
    """What the game page and every partial need, in a fixed number of queries: the game and
    its seats (`_viewable_game`), and the events of the recent moves. The stored state is rendered
    as is; history is never replayed here (the replay is games/replay_views.py). `spans`: the
    `_vacation_spans` when the caller has them.

    The log marks as new what other seats did since the reader last looked (`Seat.seen_version`),
    which then becomes this version, when what is rendered `shows_log`."""
    seats = list(game.seats.all())
    own = _own_seat(request, seats)
    seat = own.index if own is not None else None
    context = {
        "game": game,
        "seats": seats,
        "own_seat": own,
        "seat": seat,
        "view": None,
        "your_move": False,
        "invitation_url": None,
    }
    if game.private and own is not None:
        context["invitation_url"] = request.build_absolute_uri(
            reverse("invitation", args=[game.pk, game.invite_token])
        )
    if game.state is not None:
        state = GameState.from_json(game.state)
        view = view_for(state, seat)
        by_index = {s.index: s for s in seats}
        if spans is None:
            spans = _vacation_spans(game, seats)
        away = clocks.vacations_shown(spans, timezone.get_current_timezone())
        for player in view["players"]:
            seat_row = by_index.get(player["seat"])
            player["user"] = seat_row.user if seat_row else None
            player["name"] = seat_row.display_name if seat_row else ""
            player["autopilot"] = seat_row is not None and seat_row.autopilot and not view["is_over"]
            player["vacation_until"] = away.get(seat_row.user_id) if seat_row else None
        context["view"] = view
        acting = [by_index[index].user_id for index in view["to_act"] if index in by_index]
        postponed = clocks.deadline_after_vacations(game, [spans[pk] for pk in acting if pk in spans])
        context["clock"] = _clock(game, view, postponed)
        context["your_move"] = seat is not None and seat in view["to_act"]
        names = Names.for_game(game, seats)
        context["names"] = names
        # The setup is round 0; it belongs with round 1 as long as round 1 is shown.
        since = 0 if whole_log or view["round"] <= 2 else view["round"] - 1
        context["log_entries"] = _log(game, seats, seat, names, since)
        context["log_complete"] = since == 0
        if own is not None and shows_log:
            _mark_new(context["log_entries"], own)
    return context


def _clock(game, view, postponed):
    """The time left on the pending decision: the server's first word, which static/clocks.js
    then counts down. `postponed`: where vacations that began since move the deadline, which the
    sweep does only once the stored one has passed."""
    if game.deadline is None or view["is_over"] or not view["to_act"]:
        return None
    deadline = max(game.deadline, postponed) if postponed else game.deadline
    seconds = max(0, int((deadline - timezone.now()).total_seconds()))
    return {"deadline": deadline, "seconds": seconds, "left": clocks.time_left_text(seconds)}


def _log(game, seats, seat, names, since):
    """The log from round `since` on, as `seat` may read it (None: a spectator), oldest first:
    [{"round", "html"}]. By default the page shows this round and the last, what a player coming
    back to a slow game needs; the whole log is one click away (the log partial with ?all=1).
    One query, bounded by the round stored with each move."""
    index_of = {s.pk: s.index for s in seats}
    entries = [event for event in visible_events(game.first_events, seat) if event["round"] >= since]
    rendered = [{"round": event["round"], "html": event_html(event, names), "version": 0} for event in entries]
    moves = (
        game.moves.filter(round__gte=since)
        .order_by("version")
        .values_list("events", "automatic", "autopilot", "seat_id", "version")
    )
    for events, automatic, autopilot, seat_id, version in moves:
        mover = index_of[seat_id]
        lines = move_log(events, names, seat, mover=mover, automatic=automatic, autopilot=autopilot, since=since)
        rendered += [{**line, "version": version, "mover": mover} for line in lines]
    return rendered


def _mark_new(entries, own):
    """Mark the lines of moves made since the seat's player last looked, but his own moves, and
    remember that he has now seen this version. One UPDATE, and only when there is something new."""
    seen = own.seen_version
    newest = seen
    for entry in entries:
        if entry["version"] > seen:
            newest = max(newest, entry["version"])
            entry["new"] = entry.get("mover") != own.index
    if newest > seen:
        Seat.objects.filter(pk=own.pk, seen_version__lt=newest).update(seen_version=newest)
        own.seen_version = newest
