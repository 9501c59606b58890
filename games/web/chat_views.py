"""The table talk's endpoints: read the chat (htmx: the list alone; without JavaScript: a page of
its own, also for older messages), write in it, mute a player. Whoever may not see the game gets
404, as on the game page."""

from django import forms
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from games.access import game_or_404
from games.models import ChatMessage, Game
from games.play import chat
from games.play.errors import GameError

# Beyond what a BigAutoField holds, an id cannot be stored: refused rather than sent to the database.
LARGEST_ID = 2**63 - 1


class ChatForm(forms.Form):
    # CharField strips the text, refuses empty and over-long text and any NUL character.
    text = forms.CharField(
        max_length=ChatMessage.MAX_LENGTH,
        error_messages={
            "required": gettext_lazy("Write something before sending."),
            "max_length": gettext_lazy(
                "A message is at most %(limit_value)d characters (this one has %(show_value)d)."
            ),
            "null_characters_not_allowed": gettext_lazy("A message cannot hold NUL characters."),
        },
    )

    def clean_text(self):
        text = chat.without_invisible(self.cleaned_data["text"])
        if not text:
            raise forms.ValidationError(self.fields["text"].error_messages["required"])
        problem = chat.problem_with_text(text)
        if problem:
            raise forms.ValidationError(problem)
        return text


class OlderForm(forms.Form):
    before = forms.IntegerField(required=False, min_value=1, max_value=LARGEST_ID)


class MuteForm(forms.Form):
    seat = forms.IntegerField(min_value=0, max_value=4)
    muted = forms.TypedChoiceField(
        choices=[("1", gettext_lazy("mute")), ("0", gettext_lazy("unmute"))], coerce=lambda value: value == "1"
    )


@require_http_methods(["GET", "POST"])
def chat_view(request, pk):
    game, seats = _load(request, pk)
    if request.method == "POST":
        return _post(request, game, seats)
    older = OlderForm(request.GET)
    if not older.is_valid():
        reason = _first_error(older)
        return _error(request, game, seats, _("No such page of the table talk: %(reason)s") % {"reason": reason}, 400)
    return _render(request, game, seats, before=older.cleaned_data["before"])


def _post(request, game, seats):
    try:
        seat = chat.writer_seat(game, seats, request.user)
        form = ChatForm(request.POST)
        if not form.is_valid():
            raise GameError(_first_error(form))
        chat.post_message(game, seat, form.cleaned_data["text"])
    except GameError as error:
        return _error(request, game, seats, error.message, error.status)
    return _render(request, game, seats)


@require_POST
def mute(request, pk):
    game, seats = _load(request, pk)
    form = MuteForm(request.POST)
    try:
        if not form.is_valid():
            raise GameError(_("This request could not be read: %(reason)s") % {"reason": _first_error(form)})
        chat.set_muted(request.user, seats, form.cleaned_data["seat"], form.cleaned_data["muted"])
    except GameError as error:
        return _error(request, game, seats, error.message, error.status)
    return _render(request, game, seats)


def _load(request, pk):
    game = game_or_404(
        request,
        Game.objects.only("pk", "private", "creator", "status", "colours").prefetch_related(
            chat.seats_with_mutes(request.user)
        ),
        pk,
    )
    return game, list(game.seats.all())


def _render(request, game, seats, before=None):
    """htmx gets the chat's list (what its notices and links swap); a browser without JavaScript
    goes back to the game's chat, or, browsing older messages, gets a page of its own."""
    context = {"game": game, "chat": chat.chat_context(request.user, game, seats, before=before)}
    if request.htmx:
        return render(request, "games/partials/chat_messages.html", context)
    if request.method == "POST":
        return redirect(game.get_absolute_url() + "#chat")
    return render(request, "games/chat.html", context)


def _error(request, game, seats, message, status):
    if request.htmx:
        response = render(request, "games/partials/move_error.html", {"error": message}, status=status)
        response["HX-Retarget"] = "#chat-error"
        response["HX-Reswap"] = "innerHTML"
        return response
    context = {"game": game, "chat": chat.chat_context(request.user, game, seats), "error": message}
    return render(request, "games/chat.html", context, status=status)


def _first_error(form):
    return " ".join(error for errors in form.errors.values() for error in errors)
