from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from .access import can_view
from .broadcast import game_group, user_group
from .models import Game


class GameConsumer(AsyncJsonWebsocketConsumer):
    """Tells an open game page which version of the game exists, and that its chat has something
    new ({"chat": true}), nothing more.

    The page then fetches its own view over HTTP with its own session, so no seat's private
    facts can travel over this socket. On connecting, the page is told the current version at
    once: after a dropped connection that is how it learns what it missed.
    """

    async def connect(self):
        game_id = self.scope["url_route"]["kwargs"]["game_id"]
        version = await self.visible_version(game_id)
        if version is None:
            await self.close(code=4404)
            return
        self.group = game_group(game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"version": version})

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """Pages only listen; moves go through the HTTP endpoint with its CSRF check. Whatever
        arrives, JSON or not, is ignored rather than decoded."""

    async def game_version(self, event):
        await self.send_json({"version": event["version"]})

    async def game_chat(self, event):
        await self.send_json({"chat": True})

    @database_sync_to_async
    def visible_version(self, game_id):
        game = Game.objects.filter(pk=game_id).only("pk", "private", "creator", "version").first()
        if game is None or not can_view(game, self.scope["user"], self.scope["session"]):
            return None
        return game.version


class LobbyConsumer(AsyncJsonWebsocketConsumer):
    """Tells a player's lobby that one of their games changed, nothing more: the page then fetches
    its "my games" list over HTTP with its own session. Only for a logged-in player (4403 else)."""

    async def connect(self):
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=4403)
            return
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """The lobby only listens."""

    async def lobby_changed(self, event):
        await self.send_json({"changed": True})
