"""Load the running site on loopback from several concurrent clients.

Starts Daphne on 127.0.0.1 with the same settings as the site (DATABASE_URL, REDIS_URL; without
DATABASE_URL a scratch SQLite file is used, never db.sqlite3), prepares users and games through
the play room (games/play/), then measures:

- the game page: GET /games/<id>/ by logged-in players of games in progress, beside its baseline,
  the log-in page logged out, the two in turns (`--turns`);
- move submission: POST /games/<id>/move/ of random legal moves, one driver per game, each seat's
  page holding its socket as static/game.js does, so each POST asks for no view in its answer (the
  mover's page takes it from its socket's frame) and is timed to the mover's own view in hand too;
- move to screen: from the start of a move's POST to the arrival of its version on the
  WebSocket of a spectator's page of that game, and to another seat's page having its new view
  (from its socket's frame, or fetched after a bare notice, as static/game.js does; a version
  whose view was skipped for a newer one, rendered once for both, is on the screen with that one),
  split at the bare notice; beside the bare channel-layer group send, measured on the idle server before the
  move phase and during it (to a game of its own: the same load), and beside an empty HTTP request
  (GET /healthz) during it, followed (with Redis) by a bare send once answered: the least a move's
  way holds is one request and then one send;
- many watchers: `--watchers` logged-out spectators' pages of one game (each a WebSocket and a
  keep-alive connection) do as static/game.js does: they take the spectators' view that their
  socket brings with a version (a gzip frame, games/live/consumers.py), or re-fetch the play partial
  when a notice comes without it (`--fetch` makes every page ask for notices only, as before);
  from the start of each of `--watch-moves` moves' POST to every page's new view in hand.

Prints requests per second and p50/p95 latencies. Run from the repository root:

    .venv/bin/python bench/web.py [--clients 4] [--seconds 10]
"""

import argparse
import contextlib
import http.client
import json
import os
import random
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"
START_SECONDS = 120


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def report(name, latencies, elapsed, cpu=None):
    print(
        f"{name:<34} {len(latencies):>7} {len(latencies) / elapsed:>9.1f} "
        f"{percentile(latencies, 0.5) * 1000:>9.1f} {percentile(latencies, 0.95) * 1000:>9.1f}"
        + (f" {cpu * 1000:>9.1f}" if cpu is not None else "")
    )


def ratio(name, latencies, baseline, goal=1.5, note=None):
    """p95 over p95, with its goal, or with `note` when it has none (a figure to read the goals by)."""
    said = f"goal <= {goal}x" if note is None else note
    print(f"{name:<52} {percentile(latencies, 0.95) / percentile(baseline, 0.95):>6.2f}x ({said})")


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]



def start_servers(workers, env, log, server="daphne"):
    """The web processes: `daphne`, that many Daphne processes sharing one listening socket, so the
    kernel spreads connections over them; `gunicorn`, the production command (Gunicorn's master
    and that many Uvicorn workers, docs/operations.md); `runserver`, `make run`'s server (one
    process; `workers` is ignored). Several workers need Redis, so that a move made on one reaches
    sockets on all."""
    if server == "daphne":
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((HOST, 0))
        listener.listen(256)
        port = listener.getsockname()[1]
        servers = [
            subprocess.Popen(
                [
                    sys.executable, "-m", "daphne", "--fd", str(listener.fileno()),
                    "--access-log", os.devnull, "elgrande_site.asgi:application",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=[listener.fileno()],
            )
            for _ in range(workers)
        ]
        listener.close()
    else:
        port = free_port()
        if server == "gunicorn":
            command = [sys.executable, "-m", "gunicorn", "--config", str(ROOT / "deploy" / "gunicorn.conf.py"),
                       "--workers", str(workers), "--bind", f"{HOST}:{port}", "elgrande_site.asgi:application"]
        else:
            command = [sys.executable, "manage.py", "runserver", "--noreload", f"{HOST}:{port}"]
        servers = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)]
    # A machine shared with other benchmarks (load 15-20 on two CPUs) took over 30 s to serve the
    # first page of two fresh processes.
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if any(server.poll() is not None for server in servers):
            stop_servers(servers)
            raise SystemExit(f"a server did not start; see {log.name}")
        try:
            player = http.client.HTTPConnection(HOST, port, timeout=5)
            player.request("GET", "/")
            if player.getresponse().status == 200:
                time.sleep(0.5 * workers)  # let every worker finish loading Django
                return port, servers
        except OSError:
            time.sleep(0.2)
    stop_servers(servers)
    raise SystemExit(f"the server did not start within {START_SECONDS} s")


def stop_servers(servers):
    for server in servers:
        server.terminate()
    for server in servers:
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()


class Player:
    """One browser: a session cookie, a CSRF token and a keep-alive connection."""

    def __init__(self, port, session_key):
        self.port = port
        self.session_key = session_key
        self.connection = http.client.HTTPConnection(HOST, port, timeout=30)
        self.csrf = None

    def request(self, method, path, body=None, extra=None):
        cookie = f"sessionid={self.session_key}" + (f"; csrftoken={self.csrf}" if self.csrf else "")
        headers = {"Cookie": cookie, "Host": f"{HOST}:{self.port}", **(extra or {})}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["HX-Request"] = "true"
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        content = response.read()
        if self.csrf is None:
            match = re.search(r"csrftoken=([A-Za-z0-9]+)", response.getheader("Set-Cookie") or "")
            if match:
                self.csrf = match.group(1)
        return response.status, content


def login_session(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def prepare(num_games, num_players, warm_moves):
    """Games in progress, each with its players' session keys by seat."""
    from django.core.management import call_command

    from accounts.models import User
    from games.engine import GameState, random_move, to_act
    from games.play import lifecycle, moving

    call_command("migrate", verbosity=0)
    run = f"{time.time_ns():x}"[-8:]
    rng = random.Random(1)
    games = []
    for number in range(num_games):
        users = [
            User.objects.create_user(f"bench-{run}-{number}-{seat}", password=None) for seat in range(num_players)
        ]
        game = lifecycle.create_game(users[0], num_players=num_players, time_per_move=604800)
        for user in users[1:]:
            game = lifecycle.join_game(game, user=user)
        for _ in range(warm_moves):
            state = GameState.from_json(game.state)
            seat = to_act(state)[0]
            user = game.seats.get(index=seat).user
            game = moving.submit_move(
                game, user=user, move=random_move(state, seat, rng), expected_version=game.version
            )
        sessions = {seat.index: login_session(seat.user) for seat in game.seats.all()}
        games.append((game.pk, sessions))
    return games


def _with_children(pid):
    """`pid` and the processes it started, theirs included (Gunicorn's workers under its master)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            found.extend(_with_children(int(child)))
    return found


def server_cpu(servers):
    """CPU seconds (user + system) the web processes have used so far, from /proc: each server and
    the processes it started (with `--server gunicorn`, its Uvicorn workers do the work)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for server in servers:
        for pid in _with_children(server.pid):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def machine_cpu():
    """(busy, idle) CPU seconds of the whole machine so far, all its CPUs, from /proc/stat (idle
    counts the time waiting on the disk too)."""
    ticks = os.sysconf("SC_CLK_TCK")
    fields = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / ticks, idle / ticks


def bench_game_page(port, games, clients, seconds):
    return bench_get(port, [(f"/games/{game_id}/", sessions) for game_id, sessions in games], clients, seconds)


def bench_login_page(port, clients, seconds):
    """The baseline: the log-in page, logged out (a form, the site's frame, no game)."""
    return bench_get(port, [("/accounts/login/", {0: ""})], clients, seconds)


def bench_pages_in_turns(port, games, clients, seconds, turns, servers):
    """The log-in page (the baseline) and the game page, each for `seconds` in all, in `turns`
    turns each (log-in page first): whatever else the machine does meanwhile (a checkpoint, another
    process) falls on both alike, not on one phase of ten seconds. For each: (latencies, seconds
    measured, the web processes' CPU per request)."""
    measured = {"login": [[], 0.0, 0.0], "game": [[], 0.0, 0.0]}
    for _ in range(turns):
        for name in measured:
            cpu = server_cpu(servers)
            if name == "login":
                latencies, elapsed = bench_login_page(port, clients, seconds / turns)
            else:
                latencies, elapsed = bench_game_page(port, games, clients, seconds / turns)
            measured[name][0] += latencies
            measured[name][1] += elapsed
            measured[name][2] += server_cpu(servers) - cpu
    return tuple((latencies, elapsed, cpu / len(latencies)) for latencies, elapsed, cpu in measured.values())


def bench_get(port, pages, clients, seconds):
    """`clients` concurrent clients GET the (path, sessions by seat) of `pages` in turn, each as
    one of the seats, for `seconds`."""
    latencies = []
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def client(number):
        path, sessions = pages[number % len(pages)]
        player = Player(port, list(sessions.values())[number % len(sessions)])
        mine = []
        while time.perf_counter() < stop:
            started = time.perf_counter()
            status, _ = player.request("GET", path)
            mine.append(time.perf_counter() - started)
            assert status == 200, (path, status)
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    run_threads(client, clients)
    return latencies, time.perf_counter() - started


def send_bare(game_id, version):
    """A bare version notice to the game's pages, from this process's channel layer."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from games.broadcast import game_group

    layer = get_channel_layer()
    notice = (game_group(game_id), {"type": "game.version", "version": version})
    if hasattr(layer, "group_send_many_now"):
        # As a move's POST sends its notices (games/broadcast.py): from this thread, on the
        # layer's kept connections. async_to_sync made an event loop and a connection for each
        # send, and timed them too: 1-3 ms idle, far more with the bench's own threads busy
        # (bench/README.md, the ninth pass).
        layer.group_send_many_now([notice], 3)
    else:
        async_to_sync(layer.group_send)(*notice)


def bench_bare_send(port, game_id, count, until=None):
    """The baseline of a move reaching a screen: a bare channel-layer group send from this process
    to the game's group, until it arrives on a socket of the game's page (the one hop every notice
    takes; with Redis only: the in-memory layer lives in the server's process). Its own sockets,
    closed after: they are told of versions far ahead of the game's. `count` sends, or, with
    `until` (a time.perf_counter() value), as many as fit before it (beside the move phase, to a
    game of its own)."""
    from websockets.sync.client import connect

    latencies = []
    with connect(f"ws://{HOST}:{port}/ws/games/{game_id}/", origin=f"http://{HOST}:{port}") as page:
        page.recv()
        number = 0
        while number < count if until is None else time.perf_counter() < until:
            version = 10**9 + number
            number += 1
            started = time.perf_counter()
            send_bare(game_id, version)
            while json.loads(page.recv(timeout=30))["version"] != version:
                pass
            latencies.append(time.perf_counter() - started)
            time.sleep(0.02)
    return latencies


def bench_empty_requests(port, until, bare_game=None):
    """The least a move's way holds: one HTTP request to a web process, here one that does nothing
    (GET /healthz: no session, no database), and, with `bare_game` (Redis only), once it is
    answered a bare group send to that game's page, as a move's notice goes out once its POST is
    done; one such pair every 20 ms on a keep-alive connection until `until` (beside the move
    phase: the same load). Returns (each request's time, each pair's time to the notice on the
    page, problems)."""
    from websockets.sync.client import connect

    player = Player(port, "")
    requests, pairs, problems = [], [], []
    page = None
    # websockets' connect() wants a `with` (a warning otherwise): the stack closes the page's socket.
    opened = contextlib.ExitStack()
    try:
        if bare_game is not None:
            page = opened.enter_context(
                connect(f"ws://{HOST}:{port}/ws/games/{bare_game}/", origin=f"http://{HOST}:{port}"))
            page.recv()
        number = 0
        while time.perf_counter() < until:
            started = time.perf_counter()
            status, _ = player.request("GET", "/healthz")
            answered = time.perf_counter()
            if status != 200:
                problems.append(f"GET /healthz answered {status}")
                break
            requests.append(answered - started)
            if page is not None:
                # Versions of their own (bench_bare_send's are 10**9 + n): each loop waits for its own.
                version = 2 * 10**9 + number
                number += 1
                send_bare(bare_game, version)
                while json.loads(page.recv(timeout=30))["version"] != version:
                    pass
                pairs.append(time.perf_counter() - started)
            time.sleep(0.02)
    except Exception as error:  # noqa: BLE001 - said in the report, not lost with the thread
        problems.append(f"empty requests: {error!r}")
    finally:
        opened.close()
    return requests, pairs, problems


def bench_moves(port, games, seconds, bare_game=None, empty_game=None, pace=0.0):
    """One driver per game posts random legal moves; another seat's page listens, as static/game.js
    does: it takes its own view from its socket's frame, or fetches its play partial when the
    socket brings a bare version. With `bare_game` (Redis only), a thread meanwhile measures the
    bare group send to that game's page: the baseline under the same load; and another an empty
    HTTP request's, followed by a bare send to `empty_game`'s page (bench_empty_requests)."""
    import gzip

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from games.engine import GameState, random_move, to_act
    from games.models import Game

    submit_latencies, arrival_latencies, screen_latencies, refused = [], [], [], []
    # POST start -> the mover's own new view in hand: the answer's end when it brought the view,
    # else the frame of that version on the mover's page's socket.
    own_latencies = []
    # Where a screen's time went, per move seen on both sockets: POST start -> the bare notice on a
    # plain socket (the POST until its commit, and the notice's trip), then -> the seat's view in
    # hand (its render by the socket's process and the frame, or the page's fetch); and how the
    # seat's page got each view (frames, fetches).
    to_notice, notice_to_screen, ways = [], [], [0, 0]
    lock = threading.Lock()
    stop = time.perf_counter() + seconds
    bare, empty = [], []
    if bare_game is not None:
        baseline = threading.Thread(target=lambda: bare.extend(bench_bare_send(port, bare_game, 0, until=stop)))
        baseline.start()
    empties = threading.Thread(target=lambda: empty.append(bench_empty_requests(port, stop, empty_game)))
    empties.start()

    def driver(number):
        game_id, sessions = games[number]
        players = {seat: Player(port, key) for seat, key in sessions.items()}
        for player in players.values():
            player.request("GET", f"/games/{game_id}/")
        submitted, arrived, screens, movers, mine = {}, {}, {}, {}, []
        rng = random.Random(number)
        # The other clients: a spectator's page (a separate connection and session), and another
        # seat's page (seat 0's, as static/game.js: its socket asks for its view in frames, with
        # the page's cookies, the CSRF one included; on a bare notice it fetches its play partial).
        watcher = Player(port, sessions[0])
        watcher.csrf = players[0].csrf
        address, origin = f"ws://{HOST}:{port}/ws/games/{game_id}/", f"http://{HOST}:{port}"
        cookies = {"Cookie": f"sessionid={sessions[0]}; csrftoken={players[0].csrf}"}
        seat_page = connect(address + "?play=gzip&lang=en", origin=origin, additional_headers=cookies)
        # The other seats' pages' sockets, as static/game.js opens them (each mover's page posts
        # asking for no view in the answer, games/web/views.py `move`, and takes it from there):
        # they record when each page has the view of its own move in hand.
        own_views, own_sockets, opened = {}, {}, contextlib.ExitStack()
        for seat in sessions:
            if seat != 0:
                own_sockets[seat] = opened.enter_context(connect(
                    address + "?play=gzip&lang=en", origin=origin,
                    additional_headers={"Cookie": f"sessionid={sessions[seat]}; csrftoken={players[seat].csrf}"}))
                own_sockets[seat].recv()

        def drain(seat, own_socket):
            try:
                for message in own_socket:
                    if isinstance(message, bytes):
                        version = json.loads(gzip.decompress(message))["version"]
                        own_views.setdefault((seat, version), time.perf_counter())
            except (ConnectionClosed, OSError):
                pass

        for seat, own_socket in own_sockets.items():
            threading.Thread(target=drain, args=(seat, own_socket), daemon=True).start()
        frames = fetches = 0
        # What seat 0's page shows from its own moves' answers, and whether its move is being
        # posted: as static/game.js, it fetches nothing for a version it has or is being answered.
        own_answer, own_post = [0], [False]
        with seat_page as seat_socket, connect(address, origin=origin) as page:
            seat_socket.recv()
            page.recv()

            def listen():
                try:
                    for message in page:
                        arrived[json.loads(message)["version"]] = time.perf_counter()
                except ConnectionClosed:
                    pass

            def look():
                nonlocal frames, fetches
                try:
                    for message in seat_socket:
                        if isinstance(message, bytes):
                            view = json.loads(gzip.decompress(message))
                            shown = re.search(r'data-version="(\d+)"', view["play"])
                            assert shown and int(shown.group(1)) == view["version"], view["version"]
                            screens.setdefault(view["version"], time.perf_counter())
                            own_views.setdefault((0, view["version"]), screens[view["version"]])
                            frames += 1
                            continue
                        if own_post[0] or json.loads(message)["version"] <= own_answer[0]:
                            continue
                        status, content = watcher.request("GET", f"/games/{game_id}/partials/play/")
                        shown = re.search(rb'data-version="(\d+)"', content)
                        if status == 200 and shown:
                            screens.setdefault(int(shown.group(1)), time.perf_counter())
                            fetches += 1
                except (ConnectionClosed, OSError):
                    pass

            threading.Thread(target=listen, daemon=True).start()
            threading.Thread(target=look, daemon=True).start()
            while time.perf_counter() < stop:
                game = Game.objects.only("state", "version", "status").get(pk=game_id)
                if game.status != Game.Status.ACTIVE:
                    break
                state = GameState.from_json(game.state)
                seat = to_act(state)[0]
                body = urlencode(
                    {
                        "move": json.dumps(random_move(state, seat, rng)),
                        "expected_version": game.version,
                        "csrfmiddlewaretoken": players[seat].csrf,
                    }
                )
                own_post[0] = seat == 0
                started = time.perf_counter()
                status, content = players[seat].request(
                    "POST", f"/games/{game_id}/move/", body, extra={"X-View-By-Socket": "1"})
                mine.append(time.perf_counter() - started)
                if seat == 0 and status in (200, 204):
                    own_answer[0] = game.version + 1
                own_post[0] = False
                if status not in (200, 204):
                    refused.append((status, content[:200]))
                    continue
                if status == 200:
                    # The answer brought the mover's view (a site that ignores the header).
                    own_views.setdefault((seat, game.version + 1), time.perf_counter())
                submitted[game.version + 1] = started
                movers[game.version + 1] = seat
                if pace:
                    time.sleep(pace)
            time.sleep(0.5)
            opened.close()
        # A page shows a version once it has the view of that version or of a newer one: a page
        # whose render was under way when notices came renders the newest of them once
        # (games/live/consumers.py), and the versions it skipped reached its screen with it.
        screen_at = {v: shown_at(screens, v) for v in submitted if movers[v] != 0}
        own_at = {v: shown_at({u: at for (s, u), at in own_views.items() if s == movers[v]}, v) for v in submitted}
        with lock:
            own_latencies.extend(own_at[v] - t for v, t in submitted.items() if own_at[v] is not None)
            submit_latencies.extend(mine)
            arrival_latencies.extend(arrived[v] - t for v, t in submitted.items() if v in arrived)
            screen_latencies.extend(
                screen_at[v] - t for v, t in submitted.items() if movers[v] != 0 and screen_at[v] is not None)
            for v, t in submitted.items():
                if movers[v] != 0 and screen_at[v] is not None and v in arrived:
                    to_notice.append(arrived[v] - t)
                    notice_to_screen.append(screen_at[v] - arrived[v])
            ways[0] += frames
            ways[1] += fetches
            missing = [v for v in submitted if v not in arrived]
            if missing:
                refused.append(("no WebSocket message for versions", missing[:5]))

    started = time.perf_counter()
    run_threads(driver, len(games))
    elapsed = time.perf_counter() - started
    if bare_game is not None:
        baseline.join()
    empties.join()
    (empty_requests, empty_pairs, empty_problems), = empty
    refused.extend(empty_problems)
    parts = {"to_notice": to_notice, "notice_to_screen": notice_to_screen, "ways": ways, "bare": bare,
             "own": own_latencies, "empty": empty_requests, "empty then bare": empty_pairs}
    return submit_latencies, arrival_latencies, screen_latencies, refused, elapsed, parts


def shown_at(views, version):
    """When a page had in hand the view of `version` or of a newer one, from `views` ({version:
    time it came}); None if it never had."""
    return min((at for shown, at in views.items() if shown >= version), default=None)


def bench_socket_burst(port, games, count):
    """`count` pages of one game connect at the same moment, hear one move, and leave together.
    Returns the seconds until all were connected, until all had heard the move, until all had
    left, and the problems seen (failed handshakes, missing messages, group members left over)."""
    import asyncio

    import redis
    from django.conf import settings
    from websockets.asyncio.client import connect

    from games.engine import GameState, random_move, to_act
    from games.models import Game

    game_id, sessions = games[0]
    problems = []

    async def burst():
        async def arrive():
            page = await connect(f"ws://{HOST}:{port}/ws/games/{game_id}/", origin=f"http://{HOST}:{port}",
                                 open_timeout=120)
            await page.recv()
            return page

        started = time.perf_counter()
        results = await asyncio.gather(*(arrive() for _ in range(count)), return_exceptions=True)
        connected = time.perf_counter() - started
        pages = [page for page in results if not isinstance(page, BaseException)]
        if len(pages) < count:
            problems.append(f"{count - len(pages)} handshakes failed, e.g. {results[0]!r}")

        game = await asyncio.to_thread(Game.objects.only("state", "version").get, pk=game_id)
        state = GameState.from_json(game.state)
        seat = to_act(state)[0]
        # Through the server, as a player would: embedded, only its process reaches the pages.
        player = Player(port, sessions[seat])
        await asyncio.to_thread(player.request, "GET", f"/games/{game_id}/")
        body = urlencode({"move": json.dumps(random_move(state, seat, random.Random(seat))),
                          "expected_version": game.version, "csrfmiddlewaretoken": player.csrf})
        started = time.perf_counter()
        status, _ = await asyncio.to_thread(player.request, "POST", f"/games/{game_id}/move/", body)
        if status != 200:
            problems.append(f"the move was refused with {status}")
        heard = await asyncio.gather(*(asyncio.wait_for(page.recv(), 30) for page in pages), return_exceptions=True)
        delivered = time.perf_counter() - started
        missing = sum(isinstance(message, BaseException) for message in heard)
        if missing:
            problems.append(f"{missing} pages did not hear the move")
        started = time.perf_counter()
        await asyncio.gather(*(page.close() for page in pages), return_exceptions=True)
        group = f"asgi:group:game-{game_id}"
        members = redis.Redis.from_url(settings.REDIS_URL) if settings.REDIS_URL else None
        while members is not None and members.zcard(group) and time.perf_counter() - started < 30:
            await asyncio.sleep(0.05)
        left = time.perf_counter() - started
        if members is not None and members.zcard(group):
            problems.append(f"{members.zcard(group)} group members left over")
        return connected, delivered, left

    connected, delivered, left = asyncio.run(burst())
    return connected, delivered, left, problems


class Page:
    """A logged-out spectator's game page: its WebSocket (taking the view in gzip frames unless
    `fetch`) and the keep-alive connection on which it re-fetches the play partial (HTTP/1.1, as
    htmx would)."""

    def __init__(self, port, game_id, fetch=False):
        self.port, self.game_id, self.fetch = port, game_id, fetch
        self.shown = -1
        self.fetched = {}  # version -> when its play partial had arrived
        self.framed = self.refetched = 0  # versions shown from a frame, and from a re-fetch
        self.frames = []

    async def open(self):
        import asyncio

        from websockets.asyncio.client import connect

        query = "" if self.fetch else "?play=gzip&lang=en"
        self.socket = await connect(f"ws://{HOST}:{self.port}/ws/games/{self.game_id}/{query}",
                                    origin=f"http://{HOST}:{self.port}", open_timeout=120)
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        self.shown = int(json.loads(await self.socket.recv())["version"])
        await self.refetch(self.shown)

    async def refetch(self, version):
        self.writer.write(
            f"GET /games/{self.game_id}/partials/play/ HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
            "HX-Request: true\r\n\r\n".encode()
        )
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        else:  # chunked
            body = b""
            while size := int((await self.reader.readline()).strip(), 16):
                body += await self.reader.readexactly(size + 2)
            await self.reader.readline()
        match = re.search(rb'data-version="(\d+)"', body)
        if status != 200 or not match:
            raise RuntimeError(f"the play partial answered {status}")
        self.shown = max(self.shown, int(match.group(1)))
        self.fetched.setdefault(version, time.perf_counter())
        self.refetched += 1

    async def listen(self):
        import zlib

        from websockets.exceptions import ConnectionClosed

        try:
            async for message in self.socket:
                if isinstance(message, bytes):
                    # The frame is in hand: its time is taken before it is unpacked, as a re-fetch's
                    # is before the browser draws it. Only its head is read now (the version); the
                    # whole is checked after the run (`check_frames`), not on this one client
                    # process's clock that 500 pages share.
                    head = zlib.decompressobj(31).decompress(message, 64)
                    version = int(re.match(rb'\{"version": (\d+),', head).group(1))
                    if version > self.shown:
                        self.shown = version
                        self.fetched.setdefault(version, time.perf_counter())
                        self.framed += 1
                        self.frames.append(message)
                    continue
                notice = json.loads(message)
                if "version" in notice and notice["version"] > self.shown:
                    await self.refetch(notice["version"])
        except ConnectionClosed:
            pass

    def check_frames(self):
        """Every frame taken was gzip of {"version", "play": that version's play partial}."""
        import gzip

        for message in self.frames:
            framed = json.loads(gzip.decompress(message))
            match = re.search(r'data-version="(\d+)"', framed["play"])
            if not match or int(match.group(1)) != framed["version"]:
                raise RuntimeError("a frame without its version's play partial")

    async def close(self):
        await self.socket.close()
        self.writer.close()


def bench_watchers(port, game_id, sessions, count, moves, fetch=False, servers=()):
    """`count` logged-out spectators' pages of one game; a player makes `moves` moves one after
    another, each once every page has the one before. Returns the seconds from each move's POST
    start to each page's new view in hand (from a frame, or re-fetched), the worst page of each
    move, how many views came in frames and how many were re-fetched, each move's POST (start to
    answer) and the CPU seconds the web processes (`servers`) used for each move, from its POST's
    start to its view in every page's hand (the POST, the notices, the spectators' renders and
    frames, the re-fetches), and the problems seen."""
    import asyncio

    from games.engine import GameState, random_move, to_act
    from games.models import Game

    problems = []

    async def watch():
        pages = [Page(port, game_id, fetch) for _ in range(count)]
        for start in range(0, count, 100):  # connect in waves: the burst measures the rush
            results = await asyncio.gather(*(page.open() for page in pages[start:start + 100]),
                                           return_exceptions=True)
            failed = [result for result in results if isinstance(result, BaseException)]
            if failed:
                problems.append(f"{len(failed)} pages did not open, e.g. {failed[0]!r}")
        pages = [page for page in pages if page.shown >= 0 and page.fetched]
        listeners = [asyncio.create_task(page.listen()) for page in pages]
        players = {seat: Player(port, key) for seat, key in sessions.items()}
        for player in players.values():
            await asyncio.to_thread(player.request, "GET", f"/games/{game_id}/")
        rng = random.Random(7)
        arrivals, worst, posts, cpus = [], [], [], []
        for _ in range(moves):
            game = await asyncio.to_thread(Game.objects.only("state", "version", "status").get, pk=game_id)
            if game.status != Game.Status.ACTIVE:
                problems.append("the game ended before the last move")
                break
            state = GameState.from_json(game.state)
            seat = to_act(state)[0]
            body = urlencode({"move": json.dumps(random_move(state, seat, rng)),
                              "expected_version": game.version, "csrfmiddlewaretoken": players[seat].csrf})
            version = game.version + 1
            # A fresh connection: the server may have closed an idle one while the pages re-fetched.
            players[seat].connection.close()
            players[seat].connection = http.client.HTTPConnection(HOST, port, timeout=30)
            cpu = server_cpu(servers)
            started = time.perf_counter()
            status, _ = await asyncio.to_thread(players[seat].request, "POST", f"/games/{game_id}/move/", body)
            posts.append(time.perf_counter() - started)
            if status != 200:
                problems.append(f"a move was refused with {status}")
                continue
            deadline = time.perf_counter() + 30
            while time.perf_counter() < deadline and not all(version in page.fetched for page in pages):
                await asyncio.sleep(0.01)
            done = [page.fetched[version] - started for page in pages if version in page.fetched]
            if len(done) < len(pages):
                problems.append(f"{len(pages) - len(done)} pages did not show version {version} within 30 s")
            arrivals += done
            worst.append(max(done, default=float("nan")))
            cpus.append(server_cpu(servers) - cpu)
            await asyncio.sleep(0.5)
        for task in listeners:
            if task.done() and task.exception():
                problems.append(f"a page failed: {task.exception()!r}")
            task.cancel()
        await asyncio.gather(*(page.close() for page in pages), return_exceptions=True)
        for page in pages:
            try:
                page.check_frames()
            except Exception as error:
                problems.append(f"a page's frame was wrong: {error!r}")
                break
        # The re-fetch of each page's opening is not a move's.
        ways = (sum(page.framed for page in pages), sum(page.refetched - 1 for page in pages))
        return arrivals, worst, ways, posts, cpus

    arrivals, worst, ways, posts, cpus = asyncio.run(watch())
    return arrivals, worst, ways, posts, cpus, problems


def run_threads(target, count):
    from django.db import connection

    def run(number):
        try:
            target(number)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients (and games being played)")
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of each measurement")
    parser.add_argument("--players", type=int, default=4, help="players per game")
    parser.add_argument("--warm-moves", type=int, default=60, help="moves played before measuring")
    parser.add_argument("--turns", type=int, default=5,
                        help="turns of the log-in page and the game page, which share --seconds each")
    parser.add_argument("--workers", type=int, default=1, help="web processes (more than one needs REDIS_URL)")
    parser.add_argument("--server", choices=["daphne", "gunicorn", "runserver"], default="daphne",
                        help="the web command: Daphne processes, the production command, or make run's server")
    parser.add_argument("--sockets", type=int, default=500, help="pages in the burst that connect and leave at once")
    parser.add_argument("--watchers", type=lambda text: [int(n) for n in text.split(",") if int(n)],
                        default=[100, 300, 500],
                        help="spectators' pages of one game, one round for each number of the comma-separated "
                             "list (0: skip)")
    parser.add_argument("--watch-moves", type=int, default=10, help="moves made while the watchers look on")
    parser.add_argument("--move-seconds", type=float, default=None,
                        help="duration of the move phase (default: --seconds); at a high load few moves fit in 10 s")
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds each driver waits after a move (a light load: what a move's way takes unqueued)")
    parser.add_argument("--fetch", action="store_true",
                        help="the watchers' pages take no views in frames and re-fetch on every notice")
    args = parser.parse_args()
    if args.workers > 1 and not os.environ.get("REDIS_URL"):
        parser.error("several workers share WebSocket groups only through Redis: set REDIS_URL")

    env = dict(os.environ, DEBUG=os.environ.get("DEBUG", "0"), PYTHONPATH=str(ROOT))
    # DEBUG=0 needs a key; this process and the servers must share it (it signs the sessions).
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    env.setdefault("SITE_URL", "http://127.0.0.1")  # DEBUG=0 wants it too
    scratch = None
    if "DATABASE_URL" not in env:
        scratch = tempfile.NamedTemporaryFile(prefix="elgrande-bench-", suffix=".sqlite3", delete=False)
        env["DATABASE_URL"] = f"sqlite:///{scratch.name}"
    os.environ.update(DATABASE_URL=env["DATABASE_URL"], DEBUG=env["DEBUG"], SECRET_KEY=env["SECRET_KEY"],
                      SITE_URL=env["SITE_URL"])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")
    import django

    django.setup()
    from django.conf import settings

    games = prepare(args.clients + 2, args.players, args.warm_moves)
    # A game of its own for the bare sends' baseline, nobody moving in it; another for the empty
    # requests' sends (a page passes on no version older than one it has had: the two loops'
    # notices must not meet on one page).
    spare, spare_for_empty = games.pop(), games.pop()
    if env["DEBUG"] == "0" and "STATIC_ROOT" not in os.environ:
        # DEBUG=0 pages name the static files by their hashed names (docs/operations.md).
        env["STATIC_ROOT"] = tempfile.mkdtemp(prefix="elgrande-bench-static-")
        collect = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"]
        subprocess.run(collect, cwd=ROOT, env=env, check=True)
    log = tempfile.NamedTemporaryFile(prefix="elgrande-bench-server-", suffix=".log", delete=False)
    port, servers = start_servers(args.workers, env, log, args.server)
    try:
        print(f"database {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, "
              f"channel layer {'redis' if settings.REDIS_URL else 'in-memory'}, "
              f"{args.workers} {args.server} worker(s), {args.clients} clients, {args.players} players per game, "
              f"{os.cpu_count()} CPUs")
        print(f"load average before: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
        print(f"{'':<34} {'count':>7} {'per s':>9} {'p50 ms':>9} {'p95 ms':>9} {'CPU ms':>9}")
        # Each figure beside its baseline measured in this run (the machine may be shared), the two
        # pages in turns.
        (logins, elapsed, login_cpu), (latencies, page_elapsed, page_cpu) = bench_pages_in_turns(
            port, games, args.clients, args.seconds, args.turns, servers)
        report("log-in page GET (baseline)", logins, elapsed, login_cpu)
        report("game page GET", latencies, page_elapsed, page_cpu)
        ratio("game page p95 / log-in page p95", latencies, logins)
        print(f"{'game page CPU / log-in page CPU':<52} {page_cpu / login_cpu:>6.2f}x (goal <= 1.5x)")
        # Before the moves are measured: those may play the burst's game to its end.
        connected, delivered, left, problems = bench_socket_burst(port, games, args.sockets)
        watched = []
        for count in args.watchers:
            watched.append((count, *bench_watchers(port, *games[-1], count, args.watch_moves, args.fetch, servers)))
        bare = bench_bare_send(port, spare[0], 50) if settings.REDIS_URL else []
        cpu, machine, own = server_cpu(servers), machine_cpu(), time.process_time()
        submits, arrivals, screens, refused, elapsed, parts = bench_moves(
            port, games, args.move_seconds or args.seconds, spare[0] if settings.REDIS_URL else None,
            spare_for_empty[0] if settings.REDIS_URL else None, args.pace,
        )
        # The whole move in the server: the POST, its notices and the other seats' views.
        web_cpu = server_cpu(servers) - cpu
        move_cpu = web_cpu / max(1, len(submits))
        own = time.process_time() - own
        busy, idle = (after - before for after, before in zip(machine_cpu(), machine, strict=True))
        report("move POST", submits, elapsed, move_cpu)
        report("move -> other client's WebSocket", arrivals, elapsed)
        report("move -> another seat's screen", screens, elapsed)
        report("move -> the mover's own screen", parts["own"], elapsed)
        report("  POST start -> bare notice", parts["to_notice"], elapsed)
        report("  bare notice -> seat's view", parts["notice_to_screen"], elapsed)
        print(f"  the seat's page took {parts['ways'][0]} views from frames and fetched {parts['ways'][1]}")
        # Where the machine's CPUs went meanwhile: a screen's time under this closed loop is mostly
        # waiting for one (bench/README.md, the eighth and thirteenth passes).
        whole = max(busy + idle, 1e-9)
        print(f"  the CPUs during the moves: web processes {web_cpu / whole:.0%}, this bench's clients "
              f"{own / whole:.0%}, the rest (PostgreSQL, Redis, others) {max(0.0, busy - web_cpu - own) / whole:.0%}, "
              f"idle {idle / whole:.0%}")
        report("empty request GET /healthz, moves", parts["empty"], elapsed)
        if bare:
            # The baseline twice: on the idle server before the move phase, and during it (the
            # drivers' load), to a game of its own.
            report("bare group send -> socket, idle", bare, elapsed)
            report("bare group send -> socket, moves", parts["bare"], elapsed)
            ratio("another seat's screen p95 / bare send p95, idle", screens, bare, goal=2)
            ratio("another seat's screen p95 / bare send p95, moves", screens, parts["bare"], goal=2)
            # What no change to the move can go under: its way holds at least one HTTP request
            # and, once it is answered, one group send, timed one after the other under the same
            # load (bench_empty_requests).
            report("empty request, then a bare send", parts["empty then bare"], elapsed)
            ratio("(empty request, then bare send) p95 / bare send p95", parts["empty then bare"], parts["bare"],
                  note="the least a move's way can take")
            # The screen's first part alone: a screen that follows a move's commit cannot come in
            # under the POST that commits it (bench/README.md, the twelfth pass).
            ratio("(POST start -> bare notice) p95 / bare send p95", parts["to_notice"], parts["bare"],
                  note="the POST's part of the screen")
            # The screen over that least, in the same run: what a change to the move's own way can
            # still bring down (bench/README.md, the thirteenth pass).
            ratio("another seat's screen p95 / (empty request, then bare send) p95", screens,
                  parts["empty then bare"], note="the screen over the least it can take")
        else:
            print("bare group send -> socket: with REDIS_URL only (the in-memory layer is the server's)")
        if refused:
            print(f"{len(refused)} problem(s), e.g. {refused[:3]}; server log: {log.name}")
        print(f"{args.sockets} pages of one game at once: all connected in {connected:.2f} s, all heard a move "
              f"{delivered:.2f} s after it began, all left in {left:.2f} s")
        if problems:
            print(f"burst problems: {'; '.join(problems)}; server log: {log.name}")
        for count, seen, worst, ways, posts, cpus, watch_problems in watched:
            print(f"{count} spectators of one game, {len(worst)} moves ({ways[0]} views came in "
                  f"socket frames, {ways[1]} were re-fetched): move POST start -> every "
                  f"spectator's new view in hand p50 {percentile(seen, 0.5) * 1000:.0f} ms, "
                  f"p95 {percentile(seen, 0.95) * 1000:.0f} ms; the last spectator of a move: "
                  f"p50 {percentile(worst, 0.5) * 1000:.0f} ms, worst {max(worst, default=float('nan')) * 1000:.0f} ms")
            print(f"    its moves' POST p50 {percentile(posts, 0.5) * 1000:.0f} ms, p95 "
                  f"{percentile(posts, 0.95) * 1000:.0f} ms; web processes' CPU per move (POST to every view "
                  f"in hand) p50 {percentile(cpus, 0.5) * 1000:.0f} ms, "
                  f"max {max(cpus, default=float('nan')) * 1000:.0f} ms")
            if watch_problems:
                print(f"watcher problems: {'; '.join(watch_problems)}; server log: {log.name}")
        print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    finally:
        stop_servers(servers)
        if scratch is not None:
            os.unlink(scratch.name)


if __name__ == "__main__":
    main()
