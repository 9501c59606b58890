"""The lobby's "quick game" (games/web/finding.py)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.play.errors import GameError
from games.web import finding
from games.words.texts import colon


@login_required
@require_POST
def quick_game(request):
    form = finding.QuickGameForm(request.POST)
    if not form.is_valid():
        problems = "; ".join(f"{form.fields[name].label}{colon()} {' '.join(errors)}" if name in form.fields
                             else " ".join(errors) for name, errors in form.errors.items())
        messages.error(request, _("The quick game's options could not be read (%(problem)s).") % {"problem": problems})
        return redirect("lobby")
    try:
        game, outcome = finding.quick_game(request.user, form.cleaned_data)
    except GameError as error:
        messages.error(request, error.message)
        return redirect("lobby")
    if outcome == "joined":
        messages.success(request, _("You joined game %(number)d.") % {"number": game.pk})
    elif outcome == "created":
        messages.success(request, _("No open game had these options: this one is yours. It starts when every seat "
                                    "is taken."))
    elif outcome == "again":
        messages.info(request, _("You took a seat in this game a moment ago with the same options: here it is."))
    else:
        messages.info(request, _("You are already waiting in game %(number)d, with these options.")
                      % {"number": game.pk})
    return redirect(game)
