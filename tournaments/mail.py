"""The mail each entrant gets when a round is made: their table, through the site's mail outbox
(games.mail.outbox: a Notification row per recipient and game, rendered in the recipient's
language and time zone, sent off the request and retried like any other)."""

import logging

from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.emails import wants_mail
from games.engine import GameState
from games.mail import composing, kinds, links, outbox

from .models import Table

logger = logging.getLogger(__name__)

KIND = "tournament_table"


def tables_made(table_ids):
    """Record the mails of these new tables, in the caller's transaction; returns the ids of the
    mails recorded, for the caller to queue once it commits."""
    created = []
    tables = Table.objects.filter(pk__in=table_ids).select_related("tournament", "game")
    for table in tables:
        seats = list(table.game.seats.select_related("user"))
        state = GameState.from_json(table.game.state)
        names = [seat.display_name for seat in seats]
        for seat in seats:
            user = seat.user
            if not wants_mail(user, kinds.SETTING_OF_KIND[KIND]):
                continue
            try:
                # In a savepoint: a failed write leaves the round's transaction usable.
                with transaction.atomic():
                    created += _table_mail(table, state, seat, names)
            except Exception:
                # Recorded in the round's transaction: a mail that cannot be made must not stop
                # the round. Its entrant then gets the game's own "your move", if it is his.
                logger.exception("the table mail of entrant %s for game %s could not be made", user.pk,
                                 table.game_id)
    return created


def _table_mail(table, state, seat, names):
    user = seat.user
    context = {
        "tournament": table.tournament,
        "table": table,
        "players": names,
        "url": links.play_url(table.game),
        "tournament_url": links.absolute(reverse("tournament", args=[table.tournament_id])),
        "deadline": table.game.deadline,
        "time_zone": user.zone.key,
    }
    # The entrant who decides first is told what, with what his own seat may see: this
    # mail stands for the game's "your move" (games/mail/decisions.py, `decide`).
    with translation.override(user.mail_language):
        context.update(composing.decision_context(state, seat.index))
    with translation.override(user.mail_language):
        subject = _(
            "%(tournament)s, round %(round)d: your table is game %(number)d"
        ) % {"tournament": table.tournament.name, "round": table.round, "number": table.game_id}
        # Version 0: one mail per entrant and table, however often this runs.
        return outbox.record_message(
            user=user, game=table.game, version=0, kind=KIND, context=context, subject=subject)
