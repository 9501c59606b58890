"""Lobby, game page and its htmx partials, and the move endpoint. Thin: the engine decides,
games.reading.selectors reads, games.moves.moves_forms reads posted fields into moves, games.play writes,
the templates draw."""

import hashlib

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.exceptions import NON_FIELD_ERRORS
from django.db import transaction
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.emails import has_verified_email
from games.access import game_or_404, invitation_session_key
from games.mail.turn_report import page_context as turn_report_context
from games.models import Game
from games.moves.moves_forms import UnreadableFields, read_move
from games.play import chat, lifecycle, moving
from games.play.errors import GameError
from games.reading import keyset, list_cache, page_game, play_view, selectors, view_cache
from games.reading.selectors import (
    game_context,
    game_for_move,
    game_for_play,
    own_seat,
    seat_view,
    viewable_game,
)
from games.web import finding, replay_views, rows
from games.web.forms import NewGameForm

PARTIALS = {
    "play": play_view.PLAY_PARTIAL,
    "board": "games/partials/board.html",
    "decision": "games/partials/decision.html",
    "log": "games/partials/log.html",
}


@require_GET
def lobby(request):
    user = request.user
    try:
        # The finished games' generation read once for the three lists that are kept under it.
        generation = list_cache.generation_of(request)
        mine = selectors.my_games(user, request.GET.get("mine", 1), prepare=rows.compose_mine, generation=generation)
        open_cursor = keyset.cursor_in(request.GET, "open_after", "open_before")
    except ValueError as error:
        return render(request, "games/bad_request.html", {"error": str(error)}, status=400)
    open_page = selectors.open_games(user, open_cursor, prepare=rows.compose_open, generation=generation)
    open_games = finding.with_creator_ratings(open_page.rows)
    return render(
        request,
        "games/lobby.html",
        {
            **_my_games_context(mine),
            "open_games": open_games,
            "open_games_rows": rows.open_games_html(open_games, get_token(request) if user.is_authenticated else None),
            "open_page": open_page,
            "finished_html": _recently_finished(request),
            "friends": finding.friends_of(user),
            "quick_fields": finding.quick_fields(),
        },
    )


def _recently_finished(request):
    """The lobby's recently finished games, from the cache while no finished game changed
    (games/reading/list_cache.py)."""
    return list_cache.rendered(
        request, "lobby-finished", "games/partials/recently_finished.html",
        lambda: {"finished": rows.compose(selectors.finished_games(request.user), players=None, ranking="ranking")},
        query=False,
    )


@require_GET
def my_games(request):
    """The lobby's "my games" alone, which the lobby fetches again when its socket says that one
    of the player's games changed."""
    if not request.user.is_authenticated:
        return HttpResponseForbidden(_("Log in to see your games."))
    try:
        mine = selectors.my_games(request.user, request.GET.get("mine", 1), prepare=rows.compose_mine)
    except ValueError as error:
        return render(request, "games/partials/bad_request.html", {"error": str(error)}, status=400)
    return render(request, "games/partials/my_games.html", _my_games_context(mine))


def _my_games_context(mine):
    """What templates/games/partials/my_games.html reads of the player's games (`selectors.MyGames`,
    its rows composed as they were read)."""
    return {
        "my_games": mine.rows,
        "my_games_rows": rows.my_games_html(mine.rows),
        "my_games_page": mine.page,
        "your_move": mine.waiting > 0,
        "waiting": mine.waiting,
    }


@login_required
def new_game(request):
    form = NewGameForm(request.POST or None)
    if not has_verified_email(request.user):
        form.fields["rated"].help_text = _("Rated games need a verified email address (see your settings).")
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                # The same form sent twice (a second click) opens one game: the second is shown it.
                twin = lifecycle.created_just_before(request.user, form.cleaned_data)
                game = twin or lifecycle.create_game(request.user, **form.cleaned_data)
        except GameError as error:
            form.add_error(None, error.message)
            return render(request, "games/new.html", {"form": form}, status=error.status)
        if twin is not None:
            messages.info(request, _("You opened this game a moment ago with the same options: here it is."))
        elif game.status == game.Status.ACTIVE:
            messages.success(request, gettext("Practice game created and started."))
        else:
            messages.success(request, _("Game created. It starts when every seat is taken."))
        return redirect(game)
    # A form refused for its fields is answered 400, as its other refusals are.
    return render(request, "games/new.html", {"form": form}, status=400 if form.errors else 200)


@require_GET
def game_page(request, pk):
    position = "at" in request.GET or "back" in request.GET
    game = viewable_game(request, pk) if position else page_game.viewable_page_game(request, pk)
    if game.status == Game.Status.ACTIVE and not position:
        return _cached_page(request, game)
    if game.get_deferred_fields():
        page_game.load_large(game)
    if replay_views.wanted(game, request.GET):
        return replay_views.page(request, game)
    own = own_seat(request, list(game.seats.all()))
    # Read before game_context marks this version seen.
    seen_before = own.seen_version if own is not None else None
    context = game_context(request, game)
    context["chat"] = chat.chat_context(request.user, game, context["seats"])
    context.update(turn_report_context(game, context["own_seat"], context["seats"], seen_before))
    return render(request, "games/game.html", context)


@require_GET
def game_partial(request, pk, name):
    if name == "replay":
        return replay_views.partial(request, viewable_game(request, pk))
    if name not in PARTIALS:
        raise Http404(_("No such part of the game page."))
    if name == "play":
        return _play(request, game_for_play(request, pk))
    whole_log = name == "log" and request.GET.get("all") == "1"
    context = game_context(
        request, viewable_game(request, pk), whole_log=whole_log, shows_log=name in ("play", "log")
    )
    return _render_partial(request, name, context)


@require_GET
def invitation(request, pk, token):
    # A game that does not exist answers as a wrong link does: the link is all a stranger has.
    game = Game.objects.defer("state", "first_events").filter(pk=pk).first()
    if game is None or not lifecycle.invitation_valid(game, token=token):
        raise Http404(_("This invitation link is not valid."))
    # The session remembers the invitation, so the page's partials and WebSocket work too.
    request.session[invitation_session_key(pk)] = True
    return redirect(game)


@require_POST
def join(request, pk):
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("game", args=[pk]))
    game = game_or_404(request, Game.objects.defer("state", "first_events"), pk)
    token = game.invite_token if request.session.get(invitation_session_key(pk)) else ""
    return _act(request, lambda: lifecycle.join_game(game, user=request.user, token=token), game)


@login_required
@require_POST
def leave(request, pk):
    game = game_or_404(request, Game.objects.defer("state", "first_events"), pk)
    return _act(request, lambda: lifecycle.leave_game(game, user=request.user), game)


@login_required
@require_http_methods(["GET", "POST"])
def cancel(request, pk):
    """The creator cancels a game that has not started, having confirmed it: the page's button
    opens a dialog (with JavaScript) or this view's confirmation page (without), and only their
    form, which posts `confirm`, cancels. Anything else asks first and changes nothing."""
    game = game_or_404(request, Game.objects.defer("state", "first_events"), pk)
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        return _act(request, lambda: lifecycle.cancel_game(game, user=request.user), game)
    try:
        lifecycle.check_may_cancel(game, user=request.user)
    except GameError as error:
        messages.error(request, error.message)
        return redirect(game)
    return render(request, "games/cancel.html", {"game": game})


@login_required
@require_POST
def hand_seat_to_computer(request, pk):
    """The seat's player lets the computer play it now; the form posts the version it was shown."""
    game = game_or_404(request, Game.objects.defer("state", "first_events"), pk)
    try:
        version = int(request.POST.get("expected_version", ""))
    except ValueError:
        messages.error(request, _("This request could not be read: it names no version of the game."))
        return redirect(game)
    return _act(request, lambda: moving.hand_seat_to_computer(
        game, user=request.user, expected_version=version
    ), game)


@login_required
@require_POST
def take_back_seat(request, pk):
    game = game_or_404(request, Game.objects.defer("state", "first_events"), pk)
    return _act(request, lambda: moving.take_back_seat(game, user=request.user), game)


@login_required
@require_POST
def answers_ahead(request, pk):
    """The seat's standing "allow" to every veto question: `on` is "1" to set it, "0" to take it
    back (a form sent twice does the same twice); `seat` names the player's own seat."""
    game = game_or_404(request, Game.objects.defer("state", "first_events"), pk)
    on, seat = request.POST.get("on"), request.POST.get("seat", "")
    # ASCII digits, and few: str.isdigit() also takes "²" and other scripts' digits, which int()
    # refuses, and int() refuses more than 4,300 digits; no seat has more than one.
    if on not in ("0", "1") or not (seat.isascii() and seat.isdigit() and len(seat) <= 3):
        messages.error(request, _("This form could not be read: reload the page and try again."))
        return redirect(game)
    return _act(request, lambda: moving.set_answers_ahead(
        game, user=request.user, on=on == "1", seat_index=int(seat)
    ), game)


def _act(request, change, game):
    try:
        change()
    except GameError as error:
        messages.error(request, error.message)
    return redirect(game)


# The header of a move's post from a page whose socket brings its reader's views in frames.
VIEW_BY_SOCKET = "X-View-By-Socket"


@require_POST
def move(request, pk):
    """Accept one move, in a straight line (games/moves/moves_forms.py): the game is loaded once, the
    posted fields are read by the form of the seat's decision, moving.submit_move applies the
    move and hands the saved game back, and htmx gets the play area rendered from it (or an error
    fragment with a 4xx); a plain post is redirected to the page. A page whose socket brings its
    views in frames (the header `VIEW_BY_SOCKET`) gets a 204 with the new version in
    `X-Game-Version`, and its view from its socket."""
    if not request.user.is_authenticated:
        # Read without a lock: a game this visitor may not see is a 404 first, as the page.
        return _move_error(request, game_for_move(request, pk), _("Log in to play."), 403)
    try:
        # The move's transaction begins with its one read of the game, which locks the game's row
        # (one round trip where the read and the lock were two: bench/README.md, the tenth pass).
        with transaction.atomic():
            game = game_for_move(request, pk, lock=True)
            form, refusal = _read_move(request, game)
            if refusal is None:
                game = moving.submit_move(
                    game,
                    user=request.user,
                    move=form.move(),
                    expected_version=form.cleaned_data["expected_version"],
                    seat_index=form.cleaned_data["seat"],
                    seats=list(game.seats.all()),
                    locked=True,
                )
    except GameError as error:
        # Said once the transaction has rolled back.
        return _move_error(request, game, error.message, error.status)
    if refusal is not None:
        # Said once the game's row is free again.
        return _move_error(request, game, *refusal)
    if request.htmx and request.headers.get(VIEW_BY_SOCKET) == "1" and view_cache.cacheable(game):
        # The page's socket takes frames (static/game.js says so): it brings the mover's new view
        # as it brings every other seat's, rendered once by the process holding it
        # (games/live/own_views.py), so this request renders nothing. A render here was 10 of the
        # POST's 24 ms of CPU (bench/README.md, "The move POST without the mover's render").
        return HttpResponse(status=204, headers={"X-Game-Version": str(game.version)})
    if request.htmx:
        return _play(request, game)
    return redirect(game)


def _read_move(request, game):
    """(The form of the seat's decision with the posted move, None), or (None, (the refusal's
    message, its status))."""
    own = own_seat(request, list(game.seats.all()))
    view = seat_view(game, own.index) if own is not None and game.status == Game.Status.ACTIVE else None
    try:
        form = read_move(request.POST, view, game.version)
    except UnreadableFields as error:
        return None, (_("This move could not be read (%(problem)s).") % {"problem": error}, 400)
    if not form.is_valid():
        if set(form.errors) <= {NON_FIELD_ERRORS, "move"}:
            # Sentences written for the player ("This is not one of the moves open to you now."):
            # said as they are.
            return None, (" ".join(e for errors in form.errors.values() for e in errors), 400)
        problems = "; ".join(
            " ".join(errors) if field == NON_FIELD_ERRORS else f"{field}: {' '.join(errors)}"
            for field, errors in form.errors.items()
        )
        return None, (_("This move could not be read (%(problem)s).") % {"problem": problems}, 400)
    return form, None


def _render_partial(request, name, context):
    return render(request, "games/partials/unlocalized.html", {**context, "partial": PARTIALS[name]})


def _play(request, game):
    """The play partial, from the cache when this reader's view of this version was rendered
    before (games/reading/view_cache.py). `game`: from `viewable_game` or `game_for_move`, so a reader
    who may not see the game has had his 404 before any cache lookup."""
    if not view_cache.cacheable(game):
        return _render_partial(request, "play", game_context(request, game))
    return HttpResponse(view_cache.body_for_reader(request, play_view.cached_play(request, game)))


def _cached_page(request, game):
    """A running game's page around its play partial from the view cache (the same entry the
    partial and the spectators' sockets get), and its frame too (`_frame`): only the site's
    header and the chat are rendered per request. Measured in bench/README.md, "Speed"."""
    seats = list(game.seats.all())
    own = own_seat(request, seats)
    frame_key = _frame_key(game, own, seats)
    keyed = play_view.play_key(request, game)
    # Both entries in one trip to the cache (Redis in production).
    found = cache.get_many([frame_key, keyed[0]])
    # Rendered before the play partial, whose render marks this version seen: the turn report
    # opens on what is new to them.
    frame = found.get(frame_key) or _frame(game, own, seats, frame_key)
    body = view_cache.body_for_reader(request, play_view.cached_play(request, game, keyed, found.get(keyed[0])))
    context = {
        "game": game,
        "frame": frame,
        "play_html": mark_safe(body),
        # The partial's first tag says whether the reader is to act (templates/games/partials/play.html).
        "your_move": 'data-your-move="1"' in body[: body.find(">") + 1],
        "chat": chat.chat_context(request.user, game, seats),
    }
    return render(request, "games/game.html", context)


def _frame_key(game, own, seats):
    """The view cache's key of the page's frame (`_frame`) for the reader seated at `own` (None: a
    spectator): per game, version, reader and language."""
    varying = repr((
        game.seed,
        game.status,
        sorted((s.index, s.user_id, s.display_name) for s in seats),
        translation.get_language(),
    ))
    reader = "spectator" if own is None else f"seat-{own.index}-user-{own.user_id}-seen-{own.seen_version}"
    return f"page:{game.pk}:{game.version}:{reader}:{hashlib.blake2b(varying.encode(), digest_size=16).hexdigest()}"


def _frame(game, own, seats, key):
    """The page's head above the play partial (its title, options and the seat's turn report) and
    the map's words below it, rendered once per (game, version, reader, language) and kept in the
    view cache under `key` (`_frame_key`) beside the play partial. Rendered without the request:
    nothing of the reader's own but their seat's report, which the key names (its index, user and
    the version it had seen before this visit, which opens the report)."""
    context = {"game": game, **turn_report_context(game, own, seats, own.seen_version if own else None)}
    frame = (
        mark_safe(render_to_string("games/partials/page_top.html", context)),
        mark_safe(render_to_string("games/partials/map_texts.html")),
    )
    cache.set(key, frame, view_cache.TIMEOUT)
    return frame


def _move_error(request, game, message, status):
    context = {"game": game, "error": message}
    if request.htmx:
        response = render(request, "games/partials/move_error.html", context, status=status)
        response["HX-Retarget"] = "#move-error"
        response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, "games/move_error.html", context, status=status)
