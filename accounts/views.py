"""The player's own pages beside allauth's: profile, settings (with vacations), account deletion."""

from allauth.core.internal.ratelimit import handler429
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import i18n
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from elgrande_site import cache
from games.play import account_deletion
from games.reading import keyset, list_cache
from games.web import rows

from . import deletion, friends, profile, vacations
from .emails import has_verified_email
from .forms import DeleteAccountForm, SettingsForm, VacationForm
from .models import User


def rate_limited(request):
    """allauth's answer to a request over one of its rate limits (ACCOUNT_RATE_LIMITS), named in
    the site's urls. The limits are counted in Redis: while it cannot be reached none can be
    counted, so every limited request (a log-in, a sign-up, a password reset...) is refused, and
    the page says so, as unavailable for a moment, rather than blame the player for too many."""
    if not cache.unreachable():
        return handler429(request)
    response = render(request, "account/unavailable.html", status=503)
    response["Retry-After"] = "60"
    return response


# Where an htmx form's refusal is shown, by the id of the element the form swaps (its HX-Target):
# the move forms swap #play (templates/games/partials/decision.html), the chat's forms #chat-messages.
ERROR_PLACES = {"play": "#move-error", "chat-messages": "#chat-error"}


def csrf_failure(request, reason=""):
    """The site's answer to a post whose CSRF token does not match (CSRF_FAILURE_VIEW), in the
    player's language: Django's own page spoke of CSRF and DEBUG, and an htmx move swapped it in
    place of the board. The usual cause is a page opened before its player logged in or out in
    another tab (a log-in changes the token); nothing was changed, and reloading the page mends it."""
    message = _(
        "This page is out of date: you logged in or out since it was opened, or your browser did not "
        "send the site's cookie. Nothing was changed: reload the page and try again."
    )
    if request.headers.get("HX-Request") == "true":
        response = render(request, "games/partials/move_error.html", {"error": message}, status=403)
        place = ERROR_PLACES.get(request.headers.get("HX-Target", ""))
        if place is not None:
            response["HX-Retarget"] = place
            response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, "403.html", {"exception": message}, status=403)


@require_POST
def set_language(request):
    """The header's language switcher: Django's set_language (the language cookie, then back to
    the page), and for a signed-in player their setting too, so that their pages and mails follow.
    A language the site does not offer changes nothing (Django's own would set any it knows)."""
    language = request.POST.get("language")
    if language not in dict(settings.LANGUAGES):
        target = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
            target = "/"
        return HttpResponseRedirect(target)
    response = i18n.set_language(request)
    if request.user.is_authenticated:
        request.user.language = language
        request.user.save(update_fields=["language"])
    return response


@require_GET
def profile_page(request, username):
    player = User.objects.filter(username=username, deleted_at__isnull=True).first()
    if player is None:
        # The same for a name nobody has and a deleted player's: a deleted account says nothing.
        raise Http404(_("There is no player of that name."))
    try:
        playing_cursor = keyset.cursor_in(request.GET, "playing_after", "playing_before")
        finished_cursor = keyset.cursor_in(request.GET, "after", "before")
    except ValueError as error:
        return render(request, "games/bad_request.html", {"error": str(error)}, status=400)
    in_play = profile.in_play(player, request.user, playing_cursor)
    playing = rows.compose([profile.row(row, player) for row in in_play.rows])
    return render(
        request,
        "accounts/profile.html",
        {
            "player": player,
            "in_play": playing,
            "in_play_rows": rows.in_play_html(playing),
            "in_play_page": in_play,
            "finished_html": _finished_games(request, player, finished_cursor),
            "following": friends.follows(request.user, player),
            "blocking": request.user.is_authenticated and friends.blocks(request.user, player),
        },
    )


def _finished_games(request, player, cursor):
    """The profile's page of finished games, from the cache while no finished game changed
    (games/reading/list_cache.py): what it shows (games, players' names, rating changes) changes
    only when a game finishes or a finished game, a player or the ratings are changed, which
    raise the generation; the key names the reader, whose private games it lists."""
    def context():
        finished = profile.finished(player, request.user, cursor)
        return {
            "player": player,
            "finished": finished,
            "finished_rows": rows.compose(
                [profile.row(row, player) for row in finished.rows], players=None, ranking="players"
            ),
        }

    return list_cache.rendered(
        request, f"profile-finished:{player.pk}", "accounts/partials/profile_finished.html", context
    )


RELATIONS = {"follow": friends.follow, "unfollow": friends.unfollow, "block": friends.block, "unblock": friends.unblock}


@login_required
@require_POST
def relation(request, pk, action):
    """Follow, unfollow, block or unblock the player `pk` (the profile's buttons), then back to
    their profile."""
    player = friends.people().filter(pk=pk).first()
    if action not in RELATIONS or player is None:
        raise Http404(_("There is no player of that name."))
    try:
        RELATIONS[action](request.user, player)
    except friends.Refused as error:
        messages.error(request, str(error))
        return redirect(player)
    done = {
        "follow": _("You follow %(name)s: they are in your friends list on the lobby."),
        "unfollow": _("You no longer follow %(name)s."),
        "block": _("You block %(name)s: they cannot invite you, join your games or be read by you at a table."),
        "unblock": _("You no longer block %(name)s."),
    }[action]
    messages.success(request, done % {"name": player.username})
    return redirect(player)


@login_required
@require_GET
def player_search(request):
    """Name completion for invitations: the `<option>`s of the names beginning with `who` of the
    players who take invitations (accounts.friends.search), for the invitation form's datalist."""
    try:
        friends.count_search(request.user)
    except friends.TooManySearches as error:
        response = HttpResponse(str(error), status=429, content_type="text/plain; charset=utf-8")
        # The list keeps the names it has (htmx swaps 4xx answers: base.html).
        response["HX-Reswap"] = "none"
        return response
    names = friends.search(request.user, request.GET.get("who", ""))
    return render(request, "accounts/partials/player_names.html", {"names": names})


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request):
    user = request.user
    settings_form = SettingsForm(instance=user)
    vacation_form = VacationForm(user)
    status = 200
    if request.method == "POST" and request.POST.get("action") == "settings":
        settings_form = SettingsForm(request.POST, instance=user)
        if settings_form.is_valid():
            user = settings_form.save()
            # "The browser's language": the switcher's cookie, which LocaleMiddleware reads before
            # the browser's Accept-Language, goes too, or its language would stay (below).
            if not user.language:
                request.COOKIES.pop(settings.LANGUAGE_COOKIE_NAME, None)
            translation.activate(user.language or translation.get_language_from_request(request))
            messages.success(request, _("Your settings are saved."))
            response = redirect("settings")
            if not user.language:
                response.delete_cookie(
                    settings.LANGUAGE_COOKIE_NAME,
                    path=settings.LANGUAGE_COOKIE_PATH,
                    domain=settings.LANGUAGE_COOKIE_DOMAIN,
                    samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                )
            else:
                # The same language once logged out, on this browser.
                response.set_cookie(
                    settings.LANGUAGE_COOKIE_NAME,
                    user.language,
                    max_age=settings.LANGUAGE_COOKIE_AGE,
                    samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                    secure=settings.LANGUAGE_COOKIE_SECURE,
                )
            return response
        status = 400
    elif request.method == "POST" and request.POST.get("action") == "add-vacation":
        vacation_form = VacationForm(user, request.POST)
        if vacation_form.is_valid():
            try:
                vacation = vacations.add(user, vacation_form.cleaned_data["start"], vacation_form.cleaned_data["end"])
            except ValidationError as error:
                vacation_form.add_error(None, error)
            else:
                messages.success(
                    request, _("Vacation taken %(dates)s.") % {"dates": vacations.describe(vacation)}
                )
                return redirect("settings")
        status = 400
    elif request.method == "POST":
        status = 400
        messages.error(request, _("Nothing was changed: that form is unknown here."))
    context = _settings_context(user, settings_form, vacation_form)
    return render(request, "accounts/settings.html", context, status=status)


@login_required
@require_POST
def cancel_vacation(request, pk):
    try:
        vacations.cancel(request.user, pk)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return render(
            request,
            "accounts/settings.html",
            _settings_context(request.user, SettingsForm(instance=request.user), VacationForm(request.user)),
            status=400,
        )
    messages.success(request, _("Vacation called off."))
    return redirect("settings")


@login_required
@require_http_methods(["GET", "POST"])
def delete_account(request):
    form = DeleteAccountForm(request.user, request.POST or None)
    playing = account_deletion.running_games(request.user)
    if request.method == "POST":
        if form.is_valid():
            try:
                deletion.delete_account(request.user)
            except deletion.AccountInUse as error:
                form.add_error(None, str(error))
            else:
                logout(request)
                messages.success(
                    request, _("Your account is deleted. Your finished games stay, under “deleted player”.")
                )
                return redirect("lobby")
        return render(request, "accounts/delete.html", {"form": form, "playing": playing}, status=400)
    return render(request, "accounts/delete.html", {"form": form, "playing": playing})


def _settings_context(user, settings_form, vacation_form):
    today = vacations.local_date(user)
    taken = list(user.vacations.filter(end__gte=today))
    return {
        "settings_form": settings_form,
        "vacation_form": vacation_form,
        "vacations": taken,
        "today": today,
        "days_left": {year: vacations.days_left(user, year) for year in (today.year, today.year + 1)},
        "days_per_year": vacations.DAYS_PER_YEAR,
        "verified": has_verified_email(user),
    }
