"""The tournaments' pages: the list, the new-tournament form, a tournament's page, and its buttons
(sign up, withdraw, start). Thin: tournaments/services.py changes, tournaments/pages.py reads."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from . import pages, services
from .forms import TournamentForm
from .models import Tournament


def tournament_list(request):
    return render(request, "tournaments/list.html", pages.listing())


@login_required
@require_http_methods(["GET", "POST"])
def new_tournament(request):
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        fields = form.tournament_fields()
        with transaction.atomic():
            # The same form sent twice (a second click) makes one tournament: the second is shown it.
            twin = services.created_just_before(request.user, fields)
            tournament = twin or services.create_tournament(request.user, **fields)
        if twin is not None:
            messages.info(request, _("You made this tournament a moment ago with the same settings: here it is."))
        return redirect(tournament)
    return render(request, "tournaments/new.html", {"form": form}, status=400 if form.errors else 200)


def tournament_page(request, tournament_id):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    return render(request, "tournaments/tournament.html", pages.tournament_context(tournament, request.user))


def _act(request, tournament_id, change):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    try:
        change(tournament)
    except services.TournamentError as error:
        messages.error(request, error.message)
        return render(
            request, "tournaments/tournament.html", pages.tournament_context(tournament, request.user),
            status=error.status,
        )
    return redirect(tournament)


@login_required
@require_POST
def sign_up(request, tournament_id):
    return _act(request, tournament_id, lambda t: services.sign_up(t, request.user))


def _sure(request, tournament):
    """A step that cannot be taken back (starting, withdrawing from a running tournament) is sent
    only with its "I am sure" tick: a stray click or a forged form without it changes nothing."""
    if request.POST.get("sure") != "1":
        raise services.TournamentError(_("Tick “I am sure” first: this cannot be taken back."))


@login_required
@require_POST
def withdraw(request, tournament_id):
    def change(tournament):
        # The services ask for the tick once the tournament is locked: it may start meanwhile.
        services.withdraw(tournament, request.user, sure=request.POST.get("sure") == "1")

    return _act(request, tournament_id, change)


@login_required
@require_POST
def start(request, tournament_id):
    def change(tournament):
        _sure(request, tournament)
        services.start(tournament, request.user)

    return _act(request, tournament_id, change)
