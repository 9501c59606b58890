"""Table talk: each game's chat. The seated players write while the game runs; whoever may see the
game reads, also once it is over; a reader's mutes hide the muted players' lines from that reader
alone.

A message is announced on the game's channel group after its commit with a notice that carries no
text; each page then fetches what its own reader may read (games/web/chat_views.py).
"""

import unicodedata
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import BooleanField, Prefetch, Value
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Block
from accounts.usernames import INVISIBLE as SHOWING_NOTHING
from games import broadcast
from games.models import ChatMessage, ChatMute, Game, Seat
from games.play.errors import Conflict, GameError, NotAllowed
from games.words.log_text import Names

# The chat shows this many messages at a time; older ones a page at a time by id (keyset).
PAGE_SIZE = 50
# At most RATE_LIMIT messages per RATE_WINDOW seconds from one player in one game.
RATE_LIMIT = 5
RATE_WINDOW = 10
# The seat's last line, written again within this many seconds, is the form sent twice (a second
# click or Enter, a page sent again), not a second line.
SENT_TWICE_SECONDS = 10
# Characters that reorder the text shown after them (bidirectional embeddings, overrides and
# isolates): in a message they could make a line read as someone else's.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Characters that show nothing (zero-width space, word joiner, byte-order mark): taken out of a
# message, so that two lines or names that look alike are alike. The zero-width joiner stays, as
# emoji sequences are made with it.
INVISIBLE = str.maketrans("", "", "\u200b\u2060\ufeff")


def without_invisible(text):
    """The text without the characters that show nothing, stripped; empty ("Write something") when
    all it holds is such characters and white space, among them the Hangul fillers (U+3164...) and
    the blank Braille pattern, which Python's strip() keeps: a line of them showed as an empty one."""
    text = text.translate(INVISIBLE).strip()
    if all(char.isspace() or ord(char) in SHOWING_NOTHING or char == BLANK_BRAILLE for char in text):
        return ""
    return text


BLANK_BRAILLE = "\u2800"


class TooFast(GameError):
    status = 429


def seats_with_mutes(user):
    """The seats of a game with their users, each marked `muted` when `user` mutes its player, and
    `blocked` when `user` blocks them (accounts/friends.py): the lines of both are hidden from
    `user` alone."""
    if user.is_authenticated:
        # Written out: the same EXISTS built with the ORM's Exists and OuterRef took 1 ms of CPU
        # to build and compile, on every game page (bench/README.md, "The cached game page").
        muted = RawSQL(MUTED_SQL, (user.pk,), output_field=BooleanField())
        blocked = RawSQL(BLOCKED_SQL, (user.pk,), output_field=BooleanField())
    else:
        muted = blocked = Value(False)
    return Prefetch("seats", queryset=Seat.objects.select_related("user").annotate(muted=muted, blocked=blocked))


def _exists(model, reader, other):
    table, seat = model._meta.db_table, Seat._meta.db_table
    reader, other = model._meta.get_field(reader).column, model._meta.get_field(other).column
    player = Seat._meta.get_field("user").column
    return (
        f'EXISTS (SELECT 1 FROM "{table}" WHERE "{table}"."{reader}" = %s'
        f' AND "{table}"."{other}" = "{seat}"."{player}")'
    )


# Whether the reader (the parameter) mutes, or blocks, the player of the seat: Seat's own table is
# the queryset's first, so its name qualifies its user column.
MUTED_SQL = _exists(ChatMute, "user", "muted_user")
BLOCKED_SQL = _exists(Block, "blocker", "blocked")


def problem_with_text(text):
    """Why `text` (already stripped) cannot be a message, or None. Empty, over-long and NUL-holding
    text is refused by the form's field before this."""
    for character in text:
        if unicodedata.category(character) in ("Zl", "Zp"):
            return _(
                "A message is one line of plain text: it cannot hold a line or paragraph separator (%(character)s)."
            ) % {"character": f"U+{ord(character):04X}"}
        if unicodedata.category(character) == "Cc" or character in BIDI_CONTROLS:
            return _(
                "A message is one line of plain text: it cannot hold the control character %(character)s."
            ) % {"character": f"U+{ord(character):04X}"}
    return None


def writer_seat(game, seats, user):
    """The seat from which `user` may write in `game`'s chat; raises why they may not."""
    if not user.is_authenticated:
        raise NotAllowed(_("Log in to talk at this table."))
    seat = next((seat for seat in seats if seat.user_id == user.pk), None)
    if seat is None:
        raise NotAllowed(_("Only the players at this table can write here; spectators read."))
    if game.status == Game.Status.OPEN:
        raise Conflict(_("The table talk opens when the game starts."))
    if game.status != Game.Status.ACTIVE:
        raise Conflict(_("This game is over: its table talk is kept to read, but closed."))
    return seat


def post_message(game, seat, text):
    """Store one message from `seat` (see `writer_seat`) and announce it, within the rate limit.
    The seat's last line sent again at once is that line, stored and announced once: the game's
    row is locked, so that a second post of the form waits for the first, then finds its line.
    The game's row, not the seat's: a move locks the game first, then its Move row's key to the
    seat is checked under FOR KEY SHARE at commit (PostgreSQL), as the message's key to the game
    is; a seat locked first would wait for the move's game while the move waits for it, a
    deadlock. FOR NO KEY UPDATE waits for a move (FOR UPDATE) and for another line of the game,
    and lets the keys of rows inserted meanwhile be checked."""
    with transaction.atomic():
        Game.objects.select_for_update(no_key=True).filter(pk=game.pk).values_list("pk").first()
        last = ChatMessage.objects.filter(seat=seat).order_by("-pk").only("text", "created_at").first()
        if (last is not None and last.text == text
                and last.created_at >= timezone.now() - timedelta(seconds=SENT_TWICE_SECONDS)):
            return last
        _count_against_rate_limit(game.pk, seat.user_id)
        message = ChatMessage.objects.create(game=game, seat=seat, text=text)
        game_id = game.pk
        transaction.on_commit(lambda: broadcast.send_chat(game_id), robust=True)
    return message


def forget_messages_of(user):
    """Blank the text of every line `user` wrote, when their account is deleted: the lines keep
    their place in the table talk, under "deleted player", but say nothing any more."""
    return ChatMessage.objects.filter(seat__user=user).exclude(text="").update(text="")


def _count_against_rate_limit(game_id, user_id):
    """Count one message in the current window of this player in this game (in Django's cache,
    shared by the web processes when it is Redis); raise TooFast past the limit."""
    key = f"chat-rate-{game_id}-{user_id}"
    cache.add(key, 0, timeout=RATE_WINDOW)
    try:
        count = cache.incr(key)
    except ValueError:
        # The window ended between the two calls: this message opens the next one.
        cache.set(key, 1, timeout=RATE_WINDOW)
        count = 1
    if count > RATE_LIMIT:
        raise TooFast(
            _(
                "Slow down: at most %(count)d messages in %(seconds)d seconds. Your message was not "
                "sent; send it again in a few seconds."
            )
            % {"count": RATE_LIMIT, "seconds": RATE_WINDOW}
        )


def set_muted(user, seats, seat_index, muted):
    """`user` mutes (or unmutes) the player in seat `seat_index` of a game whose `seats` (from
    `seats_with_mutes(user)`) are given; the seat's mark follows."""
    if not user.is_authenticated:
        raise NotAllowed(_("Log in to mute a player."))
    seat = next((seat for seat in seats if seat.index == seat_index), None)
    if seat is None or seat.user_id is None:
        raise GameError(_("There is no player to mute in that seat."))
    if seat.user_id == user.pk:
        raise GameError(_("You cannot mute yourself."))
    if muted:
        ChatMute.objects.get_or_create(user=user, muted_user_id=seat.user_id)
    else:
        ChatMute.objects.filter(user=user, muted_user_id=seat.user_id).delete()
    seat.muted = muted


def chat_context(user, game, seats, before=None):
    """What the chat's templates need: the latest PAGE_SIZE messages that `user` reads (before
    message id `before` when browsing older ones), oldest first, in one query; `seats` come from
    `seats_with_mutes(user)`."""
    shown = game.status in (Game.Status.ACTIVE, Game.Status.FINISHED)
    own = next((seat for seat in seats if user.is_authenticated and seat.user_id == user.pk), None)
    context = {
        "shown": shown,
        "before": before,
        "can_write": own is not None and game.status == Game.Status.ACTIVE,
        "open": game.status == Game.Status.ACTIVE,
        "max_length": ChatMessage.MAX_LENGTH,
        # The players a logged-in reader may mute or unmute: every other seat with a user.
        "mutable": [seat for seat in seats if user.is_authenticated and seat.user_id not in (None, user.pk)],
        "messages": [],
        "older_than": None,
    }
    if not shown:
        return context
    hidden = [seat.pk for seat in seats if seat.muted or getattr(seat, "blocked", False)]
    rows = _latest_messages(game.pk, hidden, before)
    if len(rows) > PAGE_SIZE:
        rows = rows[:PAGE_SIZE]
        context["older_than"] = rows[-1].pk
    names = Names.for_game(game, seats)
    index_of = {seat.pk: seat.index for seat in seats}
    context["messages"] = [
        {"pk": row.pk, "author": names.player(index_of[row.seat_id]), "text": row.text, "created_at": row.created_at,
         "mine": own is not None and row.seat_id == own.pk}
        for row in reversed(rows)
    ]
    return context


def _latest_messages(game_id, hidden_seats, before):
    """The game's latest PAGE_SIZE + 1 messages, newest first, but those of `hidden_seats`, and
    before message id `before` when given. Written out: the ORM's queryset took 0.5 ms of CPU to
    build and compile on every game page, this 0.07 (bench/README.md, "The cached game page")."""
    table = ChatMessage._meta.db_table
    where, params = ['"game_id" = %s'], [game_id]
    if hidden_seats:
        where.append(f'"seat_id" NOT IN ({", ".join(["%s"] * len(hidden_seats))})')
        params += list(hidden_seats)
    if before is not None:
        where.append('"id" < %s')
        params.append(int(before))
    params.append(PAGE_SIZE + 1)
    sql = (
        f'SELECT "id", "game_id", "seat_id", "text", "created_at" FROM "{table}"'
        f' WHERE {" AND ".join(where)} ORDER BY "id" DESC LIMIT %s'
    )
    return list(ChatMessage.objects.raw(sql, params))
