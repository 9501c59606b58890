"""The pages mails lead to: the game at its decision, one-click unsubscribe, and the creator's
invitation form on a private game's page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.access import game_or_404
from games.mail import invitations
from games.mail import unsubscribe as unsubscribe_links
from games.models import Game
from games.web.forms import InviteForm


@login_required
@require_GET
def play_link(request, pk):
    """A mail's link: through the log-in page when needed, then to the game's decision panel.
    A game the visitor may not see answers as one that does not exist (the same 404), so that
    the link tells a stranger nothing, not even whether the game is there."""
    game = game_or_404(request, Game.objects.only("pk", "private", "creator_id"), pk)
    return redirect(reverse("game", args=[game.pk]) + "#decision")


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token):
    """GET shows what the link switches off and asks to confirm; POST (a mail client's one-click
    `List-Unsubscribe=One-Click`, or the confirm button) switches it off. No log-in, no CSRF token:
    the signed token is the authority, and it can only switch mail off."""
    if request.method == "POST":
        try:
            done = unsubscribe_links.unsubscribe(token)
        except ValueError as error:
            return render(request, "games/unsubscribe.html", {"error": str(error)}, status=400)
        return render(request, "games/unsubscribe.html", {"done": done})
    try:
        label = unsubscribe_links.describe_unsubscribe(token)
    except ValueError as error:
        return render(request, "games/unsubscribe.html", {"error": str(error)}, status=400)
    return render(request, "games/unsubscribe.html", {"label": label})


@login_required
@require_POST
def invite(request, pk):
    game = game_or_404(request, Game.objects.defer("state"), pk)
    form = InviteForm(request.POST)
    if not form.is_valid():
        error = form.errors["who"][0]
        return render(request, "games/invitation_refused.html", {"game": game, "error": error}, status=400)
    try:
        done = invitations.invite(game, request.user, form.cleaned_data["who"])
    except PermissionError as error:
        return render(request, "games/invitation_refused.html", {"game": game, "error": str(error)}, status=403)
    except ValueError as error:
        return render(request, "games/invitation_refused.html", {"game": game, "error": str(error)}, status=400)
    messages.success(request, done)
    return redirect(game)
