"""Lobby, game page and its htmx partials, and the move endpoint. Thin: the engine decides,
games.services writes, the templates draw."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from . import lobby as lobby_lists
from . import services
from .access import can_view, invitation_session_key
from .engine import GameState, view_for
from .forms import MoveForm, NewGameForm
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
    return render(
        request,
        "games/lobby.html",
        {
            "my_games": lobby_lists.my_games(user),
            "open_games": lobby_lists.open_games(user),
            "finished": lobby_lists.finished_games(user),
        },
    )


@login_required
def new_game(request):
    form = NewGameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        game = services.create_game(request.user, **form.cleaned_data)
        messages.success(request, "Game created. It starts when every seat is taken.")
        return redirect(game)
    return render(request, "games/new.html", {"form": form})


@require_GET
def game_page(request, pk):
    context = _game_context(request, pk)
    return render(request, "games/game.html", context)


@require_GET
def game_partial(request, pk, name):
    if name not in PARTIALS:
        raise Http404("No such part of the game page.")
    context = _game_context(request, pk)
    if name == "log" and request.GET.get("all") == "1":
        context["log_entries"] = context["view"]["log"] if context["view"] else []
        context["log_complete"] = True
    return _render_partial(request, name, context)


@require_GET
def invitation(request, pk, token):
    game = get_object_or_404(Game.objects.defer("state"), pk=pk)
    if not services.invitation_valid(game, token):
        raise Http404("This invitation link is not valid.")
    # The session remembers the invitation, so the page's partials and WebSocket work too.
    request.session[invitation_session_key(pk)] = True
    return redirect(game)


@require_POST
def join(request, pk):
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={reverse('game', args=[pk])}")
    game = get_object_or_404(Game.objects.defer("state"), pk=pk)
    token = game.invite_token if request.session.get(invitation_session_key(pk)) else ""
    return _act(request, lambda: services.join_game(game, request.user, token), game)


@login_required
@require_POST
def leave(request, pk):
    game = get_object_or_404(Game.objects.defer("state"), pk=pk)
    return _act(request, lambda: services.leave_game(game, request.user), game)


@login_required
@require_POST
def cancel(request, pk):
    game = get_object_or_404(Game.objects.defer("state"), pk=pk)
    return _act(request, lambda: services.cancel_game(game, request.user), game)


def _act(request, change, game):
    try:
        change()
    except services.GameError as error:
        messages.error(request, error.message)
    return redirect(game)


@require_POST
def move(request, pk):
    """Accept one move. htmx gets the refreshed play area, or an error fragment with a 4xx."""
    game = get_object_or_404(Game.objects.defer("state"), pk=pk)
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
        return _render_partial(request, "play", _game_context(request, pk))
    return redirect(game)


def _render_partial(request, name, context):
    return render(request, "games/partials/unlocalized.html", {**context, "partial": PARTIALS[name]})


def _move_error(request, game, message, status):
    context = {"game": game, "error": message}
    if request.htmx:
        response = render(request, "games/partials/move_error.html", context, status=status)
        response["HX-Retarget"] = "#move-error"
        response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, "games/move_error.html", context, status=status)


def _game_context(request, pk):
    """What the game page and every partial need, in a fixed number of queries: the game and
    its seats. The stored state is rendered as is; history is never replayed here."""
    seats_with_users = Prefetch("seats", queryset=Seat.objects.select_related("user"))
    game = get_object_or_404(Game.objects.prefetch_related(seats_with_users), pk=pk)
    if not can_view(game, request.user, request.session):
        raise Http404("No such game.")
    seats = list(game.seats.all())
    own = next((s for s in seats if s.user_id == request.user.pk), None)
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
        users = {s.index: s.user for s in seats}
        for player in view["players"]:
            player["user"] = users.get(player["seat"])
        context["view"] = view
        context["your_move"] = seat is not None and seat in view["to_act"]
        context.update(_recent_log(view))
    return context


def _recent_log(view):
    """The log of this round and the last one: what a player coming back to a slow game needs.
    The whole log is one click away (the log partial with ?all=1)."""
    since = view["round"] - 1
    recent = [entry for entry in view["log"] if entry["round"] >= since]
    return {"log_entries": recent, "log_complete": len(recent) == len(view["log"])}
