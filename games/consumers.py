from channels.generic.websocket import AsyncJsonWebsocketConsumer


def group_name(game_id):
    return f"game-{game_id}"


class GameConsumer(AsyncJsonWebsocketConsumer):
    """Tells an open game page that a new version exists, nothing more.

    The page then fetches its own view over HTTP with its own session, so no seat's private
    facts can travel over this socket.
    """

    async def connect(self):
        self.group = group_name(self.scope["url_route"]["kwargs"]["game_id"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def game_version(self, event):
        await self.send_json({"version": event["version"]})
