"""The daily digest: for the players who chose it, one mail a day at DIGEST_HOUR of their own time
zone listing the slow games waiting for their move, instead of single "your move" mails."""

from django.utils import timezone, translation
from django.utils.translation import ngettext

from accounts.emails import has_verified_email
from accounts.models import User
from games import clocks
from games.engine import GameState, view_for
from games.mail import composing, kinds, links, outbox
from games.models import Game, Seat
from games.words.texts import fill_view

# The digest goes out at this hour of the player's own day.
DIGEST_HOUR = 7


def send_digests(now):
    """One mail a day to each player who chose the digest, listing the slow games waiting for
    their move, sent at DIGEST_HOUR or the first call after it in the player's own time zone.
    Keyed by the player's calendar day, so calling it often (hourly from Celery beat, or every
    sweep) sends each player one digest a day."""
    created = []
    players = User.objects.filter(digest=User.Digest.DAILY, notify_your_move=True, is_active=True)
    for user in players:
        local = timezone.localtime(now, user.zone)
        if local.hour < DIGEST_HOUR or not has_verified_email(user):
            continue
        with translation.override(user.mail_language):
            created += _digest(user, local)
    outbox.queue_sending(created)
    return len(created)


def _digest(user, local):
    """The digest mail of `user` on the day of `local` (their time), recorded; [] when no game
    waits for them."""
    waiting = []
    seats = (
        Seat.objects.filter(user=user, game__status=Game.Status.ACTIVE, game__time_per_move__gte=kinds.LIVE_BELOW)
        .select_related("game")
        .order_by("game__deadline")
    )
    seats = [seat for seat in seats if seat.index in seat.game.to_act]
    deadlines = _deadlines_shown([seat.game for seat in seats], local)
    for seat in seats:
        view = fill_view(view_for(GameState.from_json(seat.game.state), seat.index))
        waiting.append({
            "game": seat.game,
            "asked": composing.asked(view),
            "url": links.play_url(seat.game),
            "deadline": timezone.localtime(deadlines[seat.game.pk], user.zone) if seat.game.deadline else None,
        })
    if not waiting:
        return []
    day = local.date()
    return outbox.record_message(
        user=user,
        game=None,
        version=day.toordinal(),
        kind="digest",
        context={"waiting": waiting, "day": day, "time_zone": user.zone.key},
        subject=ngettext(
            "A game waits for your move", "%(count)d games wait for your move", len(waiting)
        ) % {"count": len(waiting)},
    )


def _deadlines_shown(games, now):
    """{game id: the deadline its page counts down to at `now`} (`clocks.deadline_shown`): later
    than the stored one while a player to act is on a vacation that began during it, which the
    sweep stores only once the stored one has passed. No query unless a player to act may be on
    a vacation that stops the clock."""
    shown = {game.pk: game.deadline for game in games}
    stopping = {game.pk: game for game in games if game.deadline and game.clocks_stop_for_vacations}
    if not stopping:
        return shown
    seats_of = {}
    for seat in clocks.with_vacation_hint(Seat.objects.filter(game_id__in=list(stopping)), now):
        seats_of.setdefault(seat.game_id, []).append(seat)
    away = [seat for game_id, seats in seats_of.items() for seat in seats
            if seat.maybe_away and seat.index in stopping[game_id].to_act]
    if not away:
        return shown
    spans = clocks.vacation_spans(User.objects.filter(pk__in={seat.user_id for seat in away}), now)
    for game_id, game in stopping.items():
        shown[game_id] = clocks.deadline_shown(game, seats_of.get(game_id, []), spans)
    return shown
