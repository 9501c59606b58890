import asyncio
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import timezone

from elgrande_site.database import bounded_calls
from games.access import can_view
from games.broadcast import game_group, spectators_group, user_group
from games.infra import presence
from games.live import own_views, spectators
from games.models import Game

logger = logging.getLogger(__name__)


class GameConsumer(AsyncJsonWebsocketConsumer):
    """Tells an open game page which version of the game exists, and that its chat has something
    new ({"chat": true}); a page that asks for it (?play=gzip&lang=..: static/game.js, when the
    browser can unpack gzip) is sent the view of the new version itself instead, as below.

    A page that asks for no view fetches its own over HTTP with its own session. On connecting,
    the page is told the current version at once: after a dropped connection that is how it
    learns what it missed.

    A logged-in reader's page that asks for it (a seat's, or a spectator's shown another time zone
    than the site's) stays in the game's group, which hears versions only; on a notice this
    consumer renders the page's own view, for whoever the socket's session holds now, and sends
    it on this socket alone, a binary frame as the spectators' below (games/live/own_views.py):
    no seat's view is ever sent to a group, and a page whose session ended or changed hands, or
    whose view cannot travel, is sent the bare version and fetches (a private game's page whose
    session may no longer see the game is closed instead: `still_allowed`). One render at a time per
    page: notices that come while it runs are rendered once, at the newest.

    A spectator's page (a visitor without a seat in the game, shown the site's time zone) that
    asks for it (?play=gzip: static/game.js, when the browser can unpack gzip) joins the game's
    spectators' group instead (games/broadcast.py), served by the process's spectators' hub
    (games/live/spectators.py), which alone is a member of the group: on a version notice the hub
    renders the spectators' view once for all of its pages and hands each a binary frame, gzip of
    {"version", "play": the spectators' view}, so that they fetch nothing. That view is the one every
    visitor who may open the game gets; a seated player's socket never joins that group. A
    notice of a version no newer than the last this socket told of (sent out of order, or twice)
    is dropped."""

    async def connect(self):
        game_id = self.scope["url_route"]["kwargs"]["game_id"]
        found = await self.look(game_id)
        if found is None:
            await self.close(code=4404)
            return
        version, spectator, self.private = found
        self.game_id = game_id
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        wants_play = query.get("play") == ["gzip"]
        # A page opened on a past position says so from the start (static/game.js), so that no
        # notice before its first word is rendered as its reader's view (`receive`).
        self.in_replay = query.get("replay") == ["1"]
        # The language the page is written in: the frames its group gets are in it.
        language = (query.get("lang") or [""])[0]
        if language not in dict(settings.LANGUAGES):
            wants_play = False
        self.version = version
        if wants_play and spectator:
            # The spectators' notices reach this process once, and its hub hands them to each of
            # its spectators' pages (games/live/spectators.py).
            self.hub = spectators.hub()
            self.group = spectators_group(game_id, language)
            await self.hub.join(self.group, self)
        else:
            self.group = game_group(game_id)
            await self.channel_layer.group_add(self.group, self.channel_name)
            if wants_play and self.scope["user"].is_authenticated:
                # A logged-in reader's page (a seat's, or a spectator's in his own time zone) is
                # sent its own view, rendered here for this socket alone (games/live/own_views.py).
                self.own_view = (self.scope["user"].pk, language, game_id)
                self.rendering = None
                self.wanted = 0
        await self.accept()
        if self.scope["user"].is_authenticated:
            if not spectator:
                # A player with the game open gets no "your move" mail (games/infra/presence.py).
                self.presence = (game_id, self.scope["user"].pk)
            # Recorded before the page hears its first word, so that it is there once it has.
            await self.say_present()
            self.heartbeat = asyncio.ensure_future(self.keep_present())
        await self.send_json({"version": version})

    async def say_present(self):
        if hasattr(self, "presence"):
            await presence.aseen(*self.presence)
        # Online now, for the friends lists (games/infra/presence.py), whether seated or watching.
        await presence.aonline(self.scope["user"].pk)

    async def keep_present(self):
        """Say every `presence.refresh_seconds()` that the page is still open, while its session
        still holds the player it was opened for: a page left open once its session was logged out
        (in another tab, on a shared computer) no longer keeps his "your move" mails back, nor
        shows him online to his friends (`signed_in_as`)."""
        while True:
            await asyncio.sleep(presence.refresh_seconds())
            if not await signed_in_as(self.scope, self.scope["user"].pk):
                if hasattr(self, "presence"):
                    # From now the grace period runs, as when the page is closed.
                    await presence.aseen(*self.presence, open=False)
                    del self.presence
                return
            await self.say_present()

    async def disconnect(self, code):
        if hasattr(self, "heartbeat"):
            self.heartbeat.cancel()
        if getattr(self, "rendering", None) is not None:
            self.rendering.cancel()
        if hasattr(self, "presence"):
            # From now the grace period runs.
            await presence.aseen(*self.presence, open=False)
        if hasattr(self, "hub"):
            await self.hub.leave(self.group, self)
        elif hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """Pages only listen; moves go through the HTTP endpoint with its CSRF check. The one thing a
        page says (static/game.js): "replay" while it shows a past position, "live" when it is back;
        meanwhile a page sent its own view gets bare versions, since rendering its reader's view
        would mark as seen the moves he has not looked at. Anything else, JSON or not, is ignored
        rather than decoded."""
        if text_data in ("replay", "live"):
            self.in_replay = text_data == "replay"

    def newer(self, version):
        if version <= self.version:
            return False
        self.version = version
        return True

    async def game_version(self, event):
        if not hasattr(self, "own_view") or self.in_replay:
            # Asked only of a notice the page would be told.
            if event["version"] > self.version and await self.still_allowed() and self.newer(event["version"]):
                await self.send_json({"version": event["version"]})
            return
        # Checked against what the page was sent, not told: a render under way may bring the view
        # of a newer version than its notice's, and then later notices are dropped here.
        if event["version"] <= max(self.version, self.wanted):
            return
        self.wanted = event["version"]
        if self.rendering is None:
            self.rendering = asyncio.create_task(self.send_own_views())

    async def send_own_views(self):
        """Render and send this page's own view of the newest version wanted, until no newer one
        waits (notices that come meanwhile are rendered once, at the newest); the bare version
        when the view cannot be sent (games/live/own_views.py)."""
        try:
            while self.wanted > self.version:
                wanted = self.wanted
                made = None
                # A page that went to a past position meanwhile gets the bare version (`receive`).
                if not self.in_replay:
                    try:
                        made = await own_views.frame(self.scope, *self.own_view)
                    except Exception:  # the rendering thread itself: the page fetches
                        logger.exception("the own view of a page of game %s could not be made", self.own_view[2])
                if made is None or made["version"] < wanted:
                    made = {"version": wanted}
                # A frame is made only for a reader who may see the game now (`make_frame`); the
                # bare version, sent when none could be, only to a page that still may.
                if "frame" not in made and not await self.still_allowed():
                    return
                self.newer(made["version"])
                if "frame" in made:
                    await self.send(bytes_data=made["frame"])
                    # After the frame, off its way to the screen (games/reading/play_view.py), and
                    # not when the page went to a past position meanwhile: it does not show the
                    # frame (static/game.js). Awaited: the next render reads the mark.
                    if made["seen"] is not None and not self.in_replay:
                        await own_views.mark_seen(made["seen"])
                else:
                    await self.send_json({"version": made["version"]})
        finally:
            self.rendering = None

    async def game_play(self, event):
        if event["version"] > self.version and await self.still_allowed() and self.newer(event["version"]):
            await self.send(bytes_data=event["frame"])

    async def game_chat(self, event):
        if await self.still_allowed():
            await self.send_json({"chat": True})

    async def still_allowed(self):
        """Whether this page may still hear of its game. A private game's notices and view go only
        to a page whose session may see the game now (it followed the invitation link, or holds
        one of its players): a page whose player left the game, or whose session was logged out
        since the socket opened, is closed as a game it may not see (4404), and hears nothing
        more. A public game's page always may: the look at the database is a private game's alone
        (a seat's frame is made only for a reader who may see the game, and asks nothing more)."""
        if getattr(self, "shut", False):
            return False
        if not self.private or await self.may_still_view():
            return True
        self.shut = True
        await self.close(code=4404)
        return False

    @database_sync_to_async
    @bounded_calls
    def may_still_view(self):
        """Whether the session the socket's cookies name *now* may look at the game."""
        game = Game.objects.filter(pk=self.game_id).only("pk", "private", "creator").first()
        if game is None:
            return False
        request = own_views.reader_request(self.scope)
        return can_view(game, request.user, request.session)

    @database_sync_to_async
    @bounded_calls
    def look(self, game_id):
        """(The game's version, whether the spectators' view is the visitor's, whether the game is
        private): what the page may hear; None when it may not look at the game. The spectators'
        view is not for a seat's player, nor for a visitor shown another time zone than the site's
        (the view sent to the spectators' group writes the deadline in the site's): their pages get
        their own (games/live/own_views.py)."""
        game = Game.objects.filter(pk=game_id).only("pk", "private", "creator", "version").first()
        user = self.scope["user"]
        if game is None or not can_view(game, user, self.scope["session"]):
            return None
        if not user.is_authenticated:
            return game.version, True, game.private
        if str(user.zone) != str(timezone.get_default_timezone()):
            return game.version, False, game.private
        return game.version, not game.seats.filter(user_id=user.pk).exists(), game.private


async def signed_in_as(scope, user_id):
    """Whether the session the socket's cookies name *now* still holds the user `user_id` (as
    AuthenticationMiddleware would read it, session hash included). A look that fails (the
    database away) counts as yes: nothing private rides on what it guards, and a socket is not
    closed for a moment's outage."""
    try:
        return await _signed_in_as(scope, user_id)
    except Exception:
        logger.warning("whether a socket's session still holds user %s could not be read", user_id, exc_info=True)
        return True


@database_sync_to_async
@bounded_calls
def _signed_in_as(scope, user_id):
    return own_views.reader_request(scope).user.pk == user_id


class LobbyConsumer(AsyncJsonWebsocketConsumer):
    """Tells a player's lobby that one of their games changed, nothing more: the page then fetches
    its "my games" list over HTTP with its own session. Only for a logged-in player (4403 else),
    and only while the page's session still holds him: a lobby left open once its session was
    logged out would otherwise tell whoever sits at the browser when the player's games move, and
    keep him online in his friends' lists; it is closed (4403) at the first notice or heartbeat
    after the log-out."""

    async def connect(self):
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=4403)
            return
        self.user_id = user.pk
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        # Online now, for the friends lists (games/infra/presence.py), while the lobby is open.
        self.heartbeat = asyncio.ensure_future(self.keep_online(user.pk))

    async def keep_online(self, user_id):
        while True:
            await presence.aonline(user_id)
            await asyncio.sleep(presence.refresh_seconds())
            if not await self.still_signed_in():
                return

    async def still_signed_in(self):
        """Whether the page's session still holds the player; if not, the socket is closed (4403)."""
        if getattr(self, "shut", False):
            return False
        if await signed_in_as(self.scope, self.user_id):
            return True
        self.shut = True
        await self.close(code=4403)
        return False

    async def disconnect(self, code):
        if hasattr(self, "heartbeat"):
            self.heartbeat.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """The lobby only listens."""

    async def lobby_changed(self, event):
        if await self.still_signed_in():
            await self.send_json({"changed": True})
