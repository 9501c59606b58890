"""The channels-redis layer with a connection pool that makes a burst wait instead of fail."""

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class WaitingRedisChannelLayer(RedisChannelLayer):
    """channels-redis builds redis-py's default pool, which raises "Too many connections" as soon
    as more commands are in flight than it may open: hundreds of pages connecting or leaving at
    once then fail their handshake or leave dead group members behind. A blocking pool of the
    same size queues those commands for the next free connection instead (each takes a
    millisecond or so). Each entry of `hosts` must be a dict with an `address`; its other keys
    go to the pool (max_connections, timeout: how long a command may wait for a connection)
    and on to each connection (socket_timeout...)."""

    def create_pool(self, index):
        host = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(host.pop("address"), **host)
