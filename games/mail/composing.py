"""A game mail's subject, text and HTML, drawn from what the recipient's own seat may see and
rendered in the recipient's language and time zone."""

from contextlib import contextmanager

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.engine import view_for
from games.mail import game_over_mail, kinds, links, turn_report, unsubscribe
from games.words.texts import ASKED, fill_view, seat_name

# A player's place at the end of a game (2 to 5 players), in a mail's subject.
PLACES = {
    1: pgettext_lazy("place in a game", "1st"),
    2: pgettext_lazy("place in a game", "2nd"),
    3: pgettext_lazy("place in a game", "3rd"),
    4: pgettext_lazy("place in a game", "4th"),
    5: pgettext_lazy("place in a game", "5th"),
}


def asked(view):
    decision = view["decision"]
    return ASKED.get(decision["kind"], gettext_lazy("your move")) if decision else None


def decision_context(state, seat):
    """What email/decision.txt and .html read of the seat's decision: {"view": the seat's own view,
    "asked": its decision in words or None, "hand": its power cards}; from `view_for(state, seat)`
    alone."""
    view = fill_view(view_for(state, seat))
    return {"view": view, "asked": asked(view), "hand": ", ".join(str(card) for card in view.get("hand", ()))}


def game_mail(kind, *, user, game, state, seat, seats):
    """(subject, text, html) of a mail about `game` for the player in `seat`. Everything in it comes
    from `view_for(state, seat)` and the game's public fields: what that seat may see."""
    decision = decision_context(state, seat)
    view = decision["view"]
    players = [
        {
            "label": player["label"],
            "name": seat_name(seats[player["seat"]]) if player["seat"] in seats else "",
            "score": player["score"],
            "you": player["seat"] == seat,
        }
        for player in view["players"]
    ]
    what = decision["asked"]
    context = {
        **decision,
        "players": players,
        "deadline": timezone.localtime(game.deadline, user.zone) if game.deadline else None,
        "time_zone": user.zone.key,
        "url": links.play_url(game),
    }
    if kind.endswith("your_move"):
        context.update(turn_report.mail_context(game, seat, seats))
    if kind == "game_finished":
        ranking = {index: place for place, index in view["ranking"]}
        context["ranking"] = sorted(
            ({"place": ranking[index], **player} for index, player in enumerate(players)),
            key=lambda row: row["place"],
        )
        context["place"] = ranking[seat]
        context.update(game_over_mail.context(game, seat, seats, links.absolute))
    return render_mail(kind, user=user, game=game, context=context, subject=_subject(kind, game, view, what, context))


def _subject(kind, game, view, what, context):
    values = {"number": game.pk, "round": view["round"], "asked": what}
    if kind == "game_started":
        if what:
            return _("Game %(number)s has started: %(asked)s") % values
        return _("Game %(number)s has started") % values
    if kind == "game_finished":
        place = PLACES.get(context["place"], context["place"])
        return _("Game %(number)s is over: you placed %(place)s") % {**values, "place": place}
    if kind == "reminder_half":
        return _("Game %(number)s, round %(round)s: %(asked)s (half your time is gone)") % values
    if kind == "reminder_last":
        return _("Game %(number)s, round %(round)s: %(asked)s (less than 12 hours left)") % values
    return _("Game %(number)s, round %(round)s: %(asked)s") % values


@contextmanager
def written_for(user):
    """Render inside the recipient's language and time zone: the `date` filter shows a time in the
    zone active while rendering, which is the mover's (or UTC in the sweep), not the recipient's.
    An address without an account keeps the language and zone of the caller (the inviter's)."""
    if user is None:
        yield
        return
    with translation.override(user.mail_language), timezone.override(user.zone):
        yield


def render_mail(kind, *, user, game, context, subject, address=""):
    """(subject, text, html) from the kind's templates under templates/email/, rendered
    `written_for` their recipient: every mail's body is rendered here."""
    context = {
        **context,
        "game": game,
        "kind": kind,
        "recipient": user.username if user is not None else address,
        # An address without an account (an invitation) has no settings to speak of.
        "member": user is not None,
        "unsubscribe_url": unsubscribe.unsubscribe_url(kind, user, address),
        "settings_url": links.absolute(reverse("settings")),
        "setting_label": kinds.SETTING_LABELS[kinds.SETTING_OF_KIND[kind]],
        # Mails name the site by SITE_NAME and SITE_URL, never by the host a request came to.
        "site_name": settings.SITE_NAME,
        "site_url": links.absolute("/"),
    }
    template = "reminder" if kind.startswith("reminder") else ("your_move" if kind.endswith("your_move") else kind)
    with written_for(user):
        return (
            subject,
            render_to_string(f"email/{template}.txt", context),
            render_to_string(f"email/{template}.html", context),
        )
