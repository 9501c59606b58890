"""Spectators' pages get the spectators' view of a new version over their socket, rendered once for
them all by the spectators' hub of their process (games/live/spectators.py) when the version notice
reaches it, so that hundreds of them fetch nothing; the notices themselves carry versions only
(games/broadcast.py). Players' pages never join the spectators' groups: they are sent their own
view by their own socket's process, or the version (tests/test_own_views_socket.py). Against the
site's own channel layer: in memory, or Redis when REDIS_URL is set."""

import asyncio
import logging
import threading

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import strip_tags

from accounts.models import User
from games import broadcast
from games.live import spectators as hub_module
from games.models import Game
from games.play import after_save, lifecycle
from games.reading import play_view
from tests.support.helpers import HTMX, find_position, logged_in, state_of, user_at
from tests.support.page_positions import hidden_retake_in_question
from tests.support.redis_relay import layer_through, relayed_redis
from tests.support.sockets import frames_page, heard, logged_out_play, move_now, opened, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def renders(monkeypatch):
    """The games whose spectators' view was rendered for their sockets, in order."""
    games = []
    real = play_view.spectators_play

    def counted(game_id):
        games.append(game_id)
        return real(game_id)

    monkeypatch.setattr(play_view, "spectators_play", counted)
    return games


def seat_play(game, seat):
    response = logged_in(user_at(game, seat)).get(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
    return response.content.decode()


async def move(game, seat=None, choice=None):
    await database_sync_to_async(move_now)(game, seat, choice)


async def test_spectators_get_the_new_versions_view_itself_the_one_a_logged_out_visitor_fetches(
    clock, start_game, make_user, renders
):
    game = await database_sync_to_async(start_game)(3)
    stranger = await database_sync_to_async(make_user)("stranger")
    spectators = [
        await opened(frames_page(game), game.version),
        await opened(frames_page(game), game.version),
        await opened(frames_page(game, await database_sync_to_async(session_cookie)(stranger)), game.version),
    ]
    await move(game)
    fetched = await database_sync_to_async(logged_out_play)(game)
    assert f'data-version="{game.version}"' in fetched
    for spectator in spectators:
        assert await heard(spectator) == {"frame": True, "version": game.version, "play": fetched}
        assert await spectator.receive_nothing()
        await spectator.disconnect()
    # Rendered once for all of them, and kept in the view cache for those who fetch it.
    assert renders == [game.pk]


async def test_players_pages_never_get_a_view_but_their_own_here_without_the_csrf_cookie_only_the_version(
    start_game, renders
):
    """Their pages ask for frames, but their sockets bring no CSRF cookie, which a seat's forms need
    (tests/test_own_views_socket.py for those that do)."""
    game = await database_sync_to_async(start_game)(3)
    players = []
    for seat in range(3):
        user = await database_sync_to_async(user_at)(game, seat)
        header = await database_sync_to_async(session_cookie)(user)
        players.append(await opened(frames_page(game, header), game.version))
    spectator = await opened(frames_page(game), game.version)
    for _ in range(2):
        await move(game)
        for player in players:
            assert await heard(player) == {"version": game.version}
        assert (await heard(spectator))["version"] == game.version
    for player in players:
        assert await player.receive_nothing()
        await player.disconnect()
    await spectator.disconnect()


async def test_without_a_spectator_listening_nothing_is_rendered_for_the_sockets(start_game, renders):
    game = await database_sync_to_async(start_game)(3)
    user = await database_sync_to_async(user_at)(game, 0)
    player = await opened(frames_page(game, await database_sync_to_async(session_cookie)(user)), game.version)
    fetching_spectator = await opened(frames_page(game, frames=False), game.version)
    await move(game)
    assert await heard(player) == {"version": game.version}
    assert await heard(fetching_spectator) == {"version": game.version}
    assert renders == []
    await player.disconnect()
    await fetching_spectator.disconnect()


async def test_a_spectator_shown_another_time_zone_gets_his_own_view_not_the_hubs(
    clock, start_game, make_user, renders
):
    game = await database_sync_to_async(start_game)(3)
    madrid = await database_sync_to_async(make_user)("madrid")
    await database_sync_to_async(User.objects.filter(pk=madrid.pk).update)(time_zone="Europe/Madrid")
    madrid = await database_sync_to_async(User.objects.get)(pk=madrid.pk)
    spectator = await opened(frames_page(game, await database_sync_to_async(session_cookie)(madrid)), game.version)
    await move(game)
    # Rendered by his socket's process for him alone (games/live/own_views.py), in his time zone.
    got = await heard(spectator)
    assert got["frame"] and got["version"] == game.version

    def fetched():
        return logged_in(madrid).get(reverse("game_partial", args=[game.pk, "play"]), **HTMX).content.decode()

    assert got["play"] == await database_sync_to_async(fetched)()
    assert got["play"] != await database_sync_to_async(logged_out_play)(game)
    assert renders == []
    await spectator.disconnect()


async def test_a_spectators_view_tells_no_secret_a_retaken_hidden_card(clock, start_game, make_user):
    seed, history = await database_sync_to_async(find_position)(hidden_retake_in_question, 3, veto=True)
    game = await database_sync_to_async(start_game)(3, seed=seed, veto=True)
    *before, (last_seat, last_move) = history
    for seat, choice in before:
        await move(game, seat, choice)
    spectator = await opened(frames_page(game), game.version)
    await move(game, last_seat, last_move)
    state = await database_sync_to_async(state_of)(game)
    [(_, taker, card)] = [step for step in state.action["steps"] if step[0] == "retake"]
    secret = f"takes back power card {card}."
    assert secret in strip_tags(await database_sync_to_async(seat_play)(game, taker))

    sent = await heard(spectator)
    assert sent["version"] == game.version
    assert secret not in strip_tags(sent["play"])
    # Word for word the spectators' view: nothing of any seat's own (hands, secret choices).
    assert sent["play"] == await database_sync_to_async(logged_out_play)(game)
    for seat in range(3):
        assert sent["play"] != await database_sync_to_async(seat_play)(game, seat)
    await spectator.disconnect()


async def test_older_and_repeated_notices_are_dropped(start_game, renders):
    game = await database_sync_to_async(start_game)(3)
    spectator = await opened(frames_page(game), game.version)
    user = await database_sync_to_async(user_at)(game, 0)
    player = await opened(frames_page(game, await database_sync_to_async(session_cookie)(user)), game.version)
    await move(game)
    assert (await heard(spectator))["version"] == game.version
    assert await heard(player) == {"version": game.version}

    # Sent as broadcast sends them (each notice to a spectators' group saying its group, which the
    # spectators' hub reads): no newer than what the pages were handed, so nothing is rendered.
    rendered = len(renders)
    for version in (game.version - 1, game.version):
        await broadcast._group_send([
            (broadcast.spectators_group(game.pk, "en"), {"type": "game.version", "version": version}),
            (broadcast.game_group(game.pk), {"type": "game.version", "version": version}),
        ])
    assert await spectator.receive_nothing(timeout=0.3)
    assert await player.receive_nothing(timeout=0.1)
    assert len(renders) == rendered
    await move(game)
    assert (await heard(spectator))["version"] == game.version
    assert await heard(player) == {"version": game.version}
    await spectator.disconnect()
    await player.disconnect()


async def test_a_view_too_large_to_send_leaves_the_spectators_to_fetch_it(start_game, monkeypatch):
    game = await database_sync_to_async(start_game)(3)
    monkeypatch.setattr(hub_module, "MAX_FRAME", 100)
    spectator = await opened(frames_page(game), game.version)
    await move(game)
    assert await heard(spectator) == {"version": game.version}
    await spectator.disconnect()


async def test_a_view_that_fails_to_render_leaves_the_spectators_to_fetch_it(start_game, monkeypatch, caplog):
    game = await database_sync_to_async(start_game)(3)

    def broken(game_id):
        raise RuntimeError("no template today")

    monkeypatch.setattr(play_view, "spectators_play", broken)
    spectator = await opened(frames_page(game), game.version)
    with caplog.at_level(logging.ERROR, logger="games.live.spectators"):
        await move(game)
        assert await heard(spectator) == {"version": game.version}
    assert "could not be rendered" in caplog.text
    await spectator.disconnect()


def connections_held_by_the_hubs_threads():
    """Whether each of the hub's rendering threads holds a database connection now, once it has
    ended what it was doing (a barrier makes each of them answer)."""
    from django.db import connection

    barrier = threading.Barrier(hub_module.RENDERING_THREADS, timeout=10)

    def held():
        barrier.wait()
        return connection.connection is not None

    asked = [hub_module._RENDERING.submit(held) for _ in range(hub_module.RENDERING_THREADS)]
    return [done.result(timeout=30) for done in asked]


async def test_a_render_gives_its_database_connection_back_as_it_ends(start_game):
    """The hub's threads hold no connection between renders. Channels' close of a thread's old
    connections after each call did not do it in tests: channels' test communicator makes that
    close a no-op, in every thread, while a test waits on a page, which is when a render ends. The
    connection then stayed with the thread, and stood in the way of the test database being
    dropped ("being accessed by other users")."""
    game = await database_sync_to_async(start_game)(3)
    spectator = await opened(frames_page(game), game.version)
    await move(game)
    assert (await heard(spectator))["frame"]
    assert await asyncio.to_thread(connections_held_by_the_hubs_threads) == [False] * hub_module.RENDERING_THREADS
    await spectator.disconnect()


@pytest.fixture
def sent_notices(monkeypatch):
    """Every message given to the channel layer, as (group, message), however it is sent."""
    layer = get_channel_layer()
    sent = []
    group_send = layer.group_send

    async def recorded(group, message):
        sent.append((group, message))
        await group_send(group, message)

    monkeypatch.setattr(layer, "group_send", recorded)
    if hasattr(layer, "group_send_many"):  # the Redis layer: it sends without its group_send
        many = layer.group_send_many

        async def recorded_many(notices):
            sent.extend((group, message) for group, message in notices)
            monkeypatch.setattr(layer, "group_send", group_send)  # not twice
            try:
                await many(notices)
            finally:
                monkeypatch.setattr(layer, "group_send", recorded)

        monkeypatch.setattr(layer, "group_send_many", recorded_many)
        now = layer.group_send_many_now

        def recorded_now(notices, seconds):  # from a thread without an event loop
            sent.extend((group, message) for group, message in notices)
            now(notices, seconds)

        monkeypatch.setattr(layer, "group_send_many_now", recorded_now)
    return sent


async def test_the_notices_carry_versions_only_and_the_spectators_hub_renders_their_view(
    start_game, sent_notices, renders
):
    game = await database_sync_to_async(start_game)(3)
    spectator = await opened(frames_page(game), game.version)
    sent_notices.clear()  # the game's start
    await move(game)
    assert (await heard(spectator))["frame"]
    assert renders == [game.pk]
    # What went through the channel layer: the version, to the game's group and to each of its
    # spectators' groups (saying its group, for the hub); no page, no frame, nothing of a view.
    groups = [broadcast.game_group(game.pk), *broadcast.spectators_groups(game.pk)]
    notices = [(group, message) for group, message in sent_notices if group in groups]
    assert sorted(group for group, _ in notices) == sorted(groups)
    for group, message in notices:
        said = {"group": group} if group != broadcast.game_group(game.pk) else {}
        assert message == {"type": "game.version", "version": game.version, **said}
    await spectator.disconnect()


@pytest.fixture
def renders_by_language(monkeypatch):
    """(game id, language, version) of each spectators' view rendered, in order."""
    rendered = []
    real = play_view.spectators_play

    def counted(game_id):
        found = real(game_id)
        rendered.append((game_id, translation.get_language(), found and found[0]))
        return found

    monkeypatch.setattr(play_view, "spectators_play", counted)
    return rendered


async def test_the_hub_renders_once_per_game_version_and_language_however_many_pages(
    clock, start_game, renders_by_language
):
    game = await database_sync_to_async(start_game)(3)
    languages = ["en"] * 4 + ["fr"] * 3 + ["it"]
    pages = [await opened(frames_page(game, language=language), game.version) for language in languages]
    for _ in range(2):
        await move(game)
        for each, language in zip(pages, languages):
            got = await heard(each)
            assert got["frame"] and got["version"] == game.version
            with translation.override(language):
                assert got["play"] == await database_sync_to_async(logged_out_play)(game, language)
    assert sorted(renders_by_language) == sorted(
        (game.pk, language, version) for language in ("en", "fr", "it") for version in (game.version - 1, game.version)
    )
    for each in pages:
        assert await each.receive_nothing()
        await each.disconnect()


async def test_versions_that_come_while_a_render_runs_are_rendered_once_at_the_newest(
    start_game, renders_by_language, monkeypatch
):
    game = await database_sync_to_async(start_game)(3)
    held, release = threading.Event(), threading.Event()
    counted = play_view.spectators_play

    def slow_first(game_id):
        found = counted(game_id)
        if not held.is_set():
            held.set()  # the first render is done, and waits here while three more moves are made
            release.wait(30)
        return found

    monkeypatch.setattr(play_view, "spectators_play", slow_first)
    spectator = await opened(frames_page(game), game.version)
    await move(game)
    first = game.version
    assert await asyncio.to_thread(held.wait, 30)
    for _ in range(3):
        await move(game)
    # The three notices reached the hub meanwhile, and wait for the render under way.
    await asyncio.sleep(0.3)
    assert [version for _, _, version in renders_by_language] == [first]
    release.set()
    assert (await heard(spectator))["version"] == first
    assert (await heard(spectator))["version"] == game.version
    assert await spectator.receive_nothing()
    # The newest only: not the two in between.
    assert [version for _, _, version in renders_by_language] == [first, game.version]
    await spectator.disconnect()


async def test_a_render_held_up_keeps_nothing_else_waiting(start_game, monkeypatch):
    """While the render of one game's view hangs, the hub still hands out that game's table talk
    and another game's frames: renders run off its receive loop, each group's on its own."""
    stuck, other = [await database_sync_to_async(start_game)(3) for _ in range(2)]
    held, release = threading.Event(), threading.Event()
    real = play_view.spectators_play

    def hanging(game_id):
        if game_id == stuck.pk:
            held.set()
            release.wait(30)
        return real(game_id)

    monkeypatch.setattr(play_view, "spectators_play", hanging)
    watching_stuck = await opened(frames_page(stuck), stuck.version)
    watching_other = await opened(frames_page(other), other.version)
    try:
        await move(stuck)
        assert await asyncio.to_thread(held.wait, 30)
        await database_sync_to_async(broadcast.send_chat)(stuck.pk)
        assert await heard(watching_stuck) == {"chat": True}
        await move(other)
        got = await heard(watching_other)
        assert got["frame"] and got["version"] == other.version
    finally:
        release.set()
    got = await heard(watching_stuck)
    assert got["frame"] and got["version"] == stuck.version
    await watching_stuck.disconnect()
    await watching_other.disconnect()


async def test_a_spectators_frame_is_only_ever_the_spectators_view(clock, start_game, make_user, renders):
    """A seated player's page, even one asking for frames, never joins a spectators' group: the
    hub hands frames to spectators only, and renders them with no reader (no seat, no user)."""
    game = await database_sync_to_async(start_game)(3)
    seated = await database_sync_to_async(user_at)(game, 0)
    player = await opened(frames_page(game, await database_sync_to_async(session_cookie)(seated)), game.version)
    spectator = await opened(frames_page(game), game.version)
    hub = hub_module.hub()
    [group] = hub.members
    assert group == broadcast.spectators_group(game.pk, "en")
    assert len(hub.members[group]) == 1
    await move(game)
    assert await heard(player) == {"version": game.version}
    framed = await heard(spectator)
    assert framed["play"] == await database_sync_to_async(logged_out_play)(game)
    assert framed["play"] != await database_sync_to_async(seat_play)(game, 0)
    await player.disconnect()
    await spectator.disconnect()


async def test_a_cancelled_or_open_games_spectators_fetch_their_view(make_user, renders):
    creator = await database_sync_to_async(make_user)()
    game = await database_sync_to_async(lifecycle.create_game)(creator, num_players=3)
    spectator = await opened(frames_page(game), game.version)
    joiner = await database_sync_to_async(make_user)()
    await database_sync_to_async(lifecycle.join_game)(game, user=joiner)
    await database_sync_to_async(game.refresh_from_db)()
    # An open game's page has forms of its reader's own (join, leave): never sent.
    assert await heard(spectator) == {"version": game.version}
    await database_sync_to_async(lifecycle.cancel_game)(game, user=creator)
    await database_sync_to_async(game.refresh_from_db)()
    assert game.status == Game.Status.CANCELLED
    assert await heard(spectator) == {"version": game.version}
    assert renders == [game.pk, game.pk]
    await spectator.disconnect()


async def test_spectators_taking_views_still_hear_the_table_talk(start_game):
    game = await database_sync_to_async(start_game)(3)
    spectator = await opened(frames_page(game), game.version)
    await database_sync_to_async(broadcast.send_chat)(game.pk)
    assert await heard(spectator) == {"chat": True}
    await spectator.disconnect()


async def test_two_versions_announced_together_send_one_view_of_the_latest_version(start_game, renders, monkeypatch):
    """As the deadline sweep announces its batch's commits together (games/play/after_save.py)."""
    game = await database_sync_to_async(start_game)(3)
    spectator = await opened(frames_page(game), game.version)
    held = []
    monkeypatch.setattr(after_save, "announce_on_commit", held.extend)

    def two_moves_announced_together():
        for _ in range(2):
            move_now(game)
        versions = [announcement.versions for announcement in held]
        assert versions == [{game.pk: game.version - 1}, {game.pk: game.version}]
        after_save.announce(held)

    await database_sync_to_async(two_moves_announced_together)()
    assert (await heard(spectator))["version"] == game.version
    assert await spectator.receive_nothing()
    assert renders == [game.pk]
    await spectator.disconnect()


def invited_cookie(game):
    client = Client()
    client.get(reverse("invitation", args=[game.pk, game.invite_token]))
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


async def test_a_private_games_invited_spectator_gets_its_spectators_view_and_a_stranger_no_socket(clock, start_game):
    game = await database_sync_to_async(start_game)(3, private=True)
    spectator = await opened(frames_page(game, await database_sync_to_async(invited_cookie)(game)), game.version)
    stranger = frames_page(game)
    connected, _ = await stranger.connect()
    assert not connected
    await move(game)
    sent = await heard(spectator)
    assert sent["version"] == game.version
    # What the invited visitor would fetch: the spectators' view, without the record's link.
    invited = Client()
    await database_sync_to_async(invited.get)(reverse("invitation", args=[game.pk, game.invite_token]))
    response = await database_sync_to_async(invited.get)(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
    assert sent["play"] == response.content.decode()
    await spectator.disconnect()


async def test_each_spectator_gets_the_view_in_the_language_of_his_page(clock, start_game, renders):
    game = await database_sync_to_async(start_game)(3)
    english = await opened(frames_page(game, language="en"), game.version)
    french = await opened(frames_page(game, language="fr"), game.version)
    italian = await opened(frames_page(game, language="it"), game.version)
    # A page that names no language of the site, or a made-up one, fetches its own view.
    unnamed = await opened(frames_page(game, language=""), game.version)
    forged = await opened(frames_page(game, language="xx"), game.version)
    await move(game)
    for communicator, language in ((english, "en"), (french, "fr"), (italian, "it")):
        got = await heard(communicator)
        assert got["frame"] and got["version"] == game.version
        fetched = await database_sync_to_async(logged_out_play)(game, language)
        assert got["play"] == fetched, language
    assert len(renders) == 3
    assert await heard(unnamed) == {"version": game.version}
    assert await heard(forged) == {"version": game.version}
    for communicator in (english, french, italian, unnamed, forged):
        await communicator.disconnect()


async def group_members(group):
    """How many channels the channel layer has in `group`, the in-memory one or Redis."""
    layer = get_channel_layer()
    if hasattr(layer, "_group_key"):
        return await layer.connection(layer.consistent_hash(group)).zcard(layer._group_key(group))
    return len(layer.groups.get(group, {}))


async def test_a_process_is_one_member_of_a_spectators_group_whatever_its_spectators(start_game, renders):
    game = await database_sync_to_async(start_game)(3)
    group = broadcast.spectators_group(game.pk, "en")
    pages = [await opened(frames_page(game), game.version) for _ in range(3)]
    assert await group_members(group) == 1
    await move(game)
    for each in pages:
        assert (await heard(each))["version"] == game.version
    assert renders == [game.pk]

    # The first two leave: the last still hears the next move.
    for each in pages[:2]:
        await each.disconnect()
    assert await group_members(group) == 1
    await move(game)
    assert (await heard(pages[2]))["version"] == game.version
    # The last leaves: nobody listens, and the next move renders nothing for the sockets.
    await pages[2].disconnect()
    assert await group_members(group) == 0
    await move(game)
    assert renders == [game.pk, game.pk]


async def test_a_page_that_fails_to_take_a_notice_does_not_keep_it_from_the_others(caplog):
    from games.live.spectators import Hub

    class Page:
        def __init__(self, fails=False):
            self.fails, self.heard = fails, []

        async def game_version(self, message):
            if self.fails:
                raise ConnectionError("gone")
            self.heard.append(message["version"])

    hub = Hub()
    pages = [Page(), Page(fails=True), Page()]
    hub.members["game-1-spectators-en"] = dict.fromkeys(pages)
    hub.members["game-2-spectators-en"] = {Page(): None}
    with caplog.at_level(logging.ERROR):
        await hub.hand_out({"type": "game.version", "version": 7, "group": "game-1-spectators-en"})
    assert [each.heard for each in pages] == [[7], [], [7]]
    assert "could not be given game.version" in caplog.text
    # A group without local pages, and a page that was never a member leaving, change nothing.
    await hub.hand_out({"type": "game.version", "version": 8, "group": "game-3-spectators-en"})
    await hub.leave("game-1-spectators-en", Page())
    assert [each.heard for each in pages] == [[7], [], [7]]
    assert list(hub.members["game-1-spectators-en"]) == pages


class FailingLayer:
    """A channel layer whose group_add and receive fail, as Redis gone away would make them."""

    def __init__(self, fail_add=False):
        self.fail_add = fail_add
        self.added, self.discarded = [], []

    async def new_channel(self):
        return "specific.test!hub"

    async def group_add(self, group, channel):
        if self.fail_add:
            raise ConnectionError("Redis is away")
        self.added.append(group)

    async def group_discard(self, group, channel):
        self.discarded.append(group)

    async def receive(self, channel):
        raise ConnectionError("Redis is away")


class ClosablePage:
    def __init__(self):
        self.closed = None

    async def close(self, code=None):
        self.closed = code


class FlakyLayer:
    """A channel layer that works, or fails as Redis away makes it fail while `away`: its receive
    waits for what `deliver` gives the channel it receives on."""

    def __init__(self):
        self.away = False
        self.receiving = []  # the channels received on, in order
        self.groups = {}
        self.inbox = asyncio.Queue()
        self.count = 0

    async def new_channel(self):
        self.count += 1
        return f"specific.test!hub{self.count}"

    async def group_add(self, group, channel):
        if self.away:
            raise ConnectionError("Redis is away")
        self.groups.setdefault(group, set()).add(channel)

    async def group_discard(self, group, channel):
        if self.away:
            raise ConnectionError("Redis is away")
        self.groups.get(group, set()).discard(channel)

    async def receive(self, channel):
        self.receiving.append(channel)
        while True:
            to, message = await self.inbox.get()
            if to == channel:
                return message

    async def deliver(self, group, message):
        for channel in self.groups.get(group, ()):
            await self.inbox.put((channel, {**message, "group": group}))


class ListeningPage:
    def __init__(self):
        self.heard = asyncio.Queue()

    async def game_version(self, message):
        await self.heard.put(message["version"])


async def test_a_join_that_fails_leaves_no_member_behind_and_no_receive():
    from games.live.spectators import Hub

    hub = Hub()
    hub.layer = FailingLayer(fail_add=True)
    with pytest.raises(ConnectionError):
        await hub.join("game-1-spectators-en", ClosablePage())
    assert hub.members == {}
    # Nor a receive on a channel of no group: its failure, when Redis came back, closed the pages
    # of the joins that had succeeded meanwhile.
    assert hub.channel is None and hub._task is None

    # Redis back: the next page joins, and hears the group's notices.
    group = "game-1-spectators-en"
    hub.layer = layer = FlakyLayer()
    page = ListeningPage()
    await hub.join(group, page)
    await layer.deliver(group, {"type": "game.version", "version": 3})
    assert await asyncio.wait_for(page.heard.get(), 3) == 3
    await hub.leave(group, page)


async def test_a_leave_that_fails_still_stops_the_hub_and_the_next_page_hears(caplog):
    from games.live.spectators import Hub

    group = "game-1-spectators-en"
    hub = Hub()
    hub.layer = layer = FlakyLayer()
    leaving = ListeningPage()
    await hub.join(group, leaving)
    first = hub.channel
    layer.away = True
    with caplog.at_level(logging.WARNING):
        await hub.leave(group, leaving)
    assert "could not leave" in caplog.text
    # Nobody is left: the hub stopped listening, though its channel could not leave the group.
    assert hub.members == {} and hub.channel is None and hub._task is None

    layer.away = False
    page = ListeningPage()
    await hub.join(group, page)
    assert hub.channel != first
    await layer.deliver(group, {"type": "game.version", "version": 5})
    assert await asyncio.wait_for(page.heard.get(), 3) == 5
    await hub.leave(group, page)


async def test_when_the_hub_cannot_receive_its_pages_are_closed_to_reconnect(caplog):
    from games.live.spectators import RECONNECT, Hub

    hub = Hub()
    hub.layer = FailingLayer()
    pages = [ClosablePage(), ClosablePage()]
    with caplog.at_level(logging.ERROR):
        for each in pages:
            await hub.join("game-1-spectators-en", each)
        for _ in range(50):
            if all(each.closed for each in pages):
                break
            await asyncio.sleep(0.01)
    # A code that tells the page to reconnect (it is then told the version it missed), and one
    # Daphne lets an application close with (1000 or 3000-4999): with 1011, which Daphne refuses,
    # the pages stayed open and nobody fed them.
    assert [each.closed for each in pages] == [RECONNECT, RECONNECT]
    assert RECONNECT == 1000 or 3000 <= RECONNECT <= 4999
    assert hub.members == {} and hub.channel is None
    # The dead channel leaves its group where the layer still can, so that the game does not
    # count as watched (a spectators' view rendered for nobody) until the membership expires.
    assert hub.layer.discarded == ["game-1-spectators-en"]
    assert "could not receive" in caplog.text
    # A page joining afterwards finds a hub that listens again.
    hub.layer = FailingLayer()
    await hub.join("game-1-spectators-en", ClosablePage())
    assert hub.channel is not None


@pytest.fixture
def redis_relay():
    with relayed_redis() as relay:
        yield relay


class ServedPage:
    """A spectators' consumer as its hub sees it, its socket served as Daphne serves one: a close
    with a code Daphne refuses from an application raises, and the socket stays open; closed, the
    page connects again (joins the hub) every half second until it may, and is then told the
    game's version, as a consumer tells its page on connecting."""

    def __init__(self, hub, group, game):
        self.hub, self.group, self.game = hub, group, game
        self.version = -1
        self.reconnecting = None

    async def connect(self):
        while True:
            try:
                await self.hub.join(self.group, self)
                break
            except Exception:
                await asyncio.sleep(0.5)
        self.version = max(self.version, self.game["version"])

    async def close(self, code=None):
        if not (code == 1000 or 3000 <= code <= 4999):
            raise ValueError(f"invalid close code {code} (must be 1000 or from [3000, 4999])")
        self.reconnecting = asyncio.create_task(self.connect())

    async def game_version(self, message):
        self.version = max(self.version, message["version"])

    async def hears(self, version, timeout=90):
        """Whether the page hears of `version` within `timeout` seconds (a bound, not a speed)."""
        for _ in range(timeout * 10):
            if self.version >= version:
                return True
            await asyncio.sleep(0.1)
        return False


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: a Redis to lose (CI sets it)")
@pytest.mark.parametrize("fault", ["down", "silent"])
async def test_after_redis_was_away_the_hubs_pages_hear_the_later_moves(fault, redis_relay, caplog):
    """The hub alone receives here (a real server's consumers receive too, and which of them sees
    Redis fail first is chance): Redis through a relay that refuses, or holds its connections
    without a word, for a few seconds."""
    from games.live.spectators import Hub

    group = "game-1-spectators-en"
    game = {"version": 1}
    hub = Hub()
    hub.layer = layer_through(redis_relay)
    notices = get_channel_layer()  # the services' layer, which reaches Redis itself

    async def move():
        game["version"] += 1
        await notices.group_send(group, {"type": "game.version", "version": game["version"], "group": group})

    pages = [ServedPage(hub, group, game) for _ in range(3)]
    try:
        for page in pages:
            await page.connect()
        await move()
        assert await asyncio.gather(*(page.hears(game["version"]) for page in pages)) == [True] * 3

        getattr(redis_relay, fault)()
        await asyncio.sleep(6)
        redis_relay.up()
        # Moves after Redis came back reach every page: told on reconnecting, or sent.
        for _ in range(2):
            await move()
            heard = await asyncio.gather(*(page.hears(game["version"]) for page in pages))
            assert heard == [True] * 3, caplog.text[-2000:]
    finally:
        for page in pages:
            if page.reconnecting is not None:
                page.reconnecting.cancel()
            await hub.leave(group, page)
        if hub._task is not None:
            hub._task.cancel()
        await hub.layer.close_pools()
