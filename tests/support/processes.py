"""Processes around the site for the fault tests: Celery workers and beat, the embedded server, the
environment they run in, a TCP proxy that can drop, silence or fill a connection, and waiting for
games to move on."""

import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game, Move

ROOT = Path(__file__).resolve().parents[2]


INTERVAL = 0.5


# A loaded machine (CI, xdist) needs a moment beyond the interval to run the sweep itself.
SLACK = 3.0


needs_celery = pytest.mark.skipif(
    not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
    reason="a real Celery worker needs REDIS_URL and a PostgreSQL DATABASE_URL (CI sets both)",
)


def database_url(host=None, port=None):
    """The test database as a DATABASE_URL for a subprocess, optionally through another port."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(settings['NAME']).resolve()}"
    user = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    return (
        f"postgres://{user}@{host or settings['HOST'] or '127.0.0.1'}:{port or settings['PORT'] or 5432}"
        f"/{settings['NAME']}"
    )


def environment(**overrides):
    env = {**os.environ, "DEADLINE_SWEEP_SECONDS": str(INTERVAL), "DATABASE_URL": database_url(), "LOG_LEVEL": "INFO"}
    env.pop("DEADLINE_TICKER", None)
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


class Process:
    """A subprocess in a session of its own, so that SIGKILL takes its children with it, as a
    crash of the machine or the OOM killer would."""

    def __init__(self, args, env, log_path, pass_fds=()):
        self.log_path = log_path
        self.log = open(log_path, "ab")
        self.popen = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True, pass_fds=pass_fds,
        )

    def output(self):
        return Path(self.log_path).read_text(errors="replace")

    def wait_for_output(self, text, timeout=60):
        until(lambda: text in self.output() or self.popen.poll() is not None, timeout, f"{text!r} in {self.log_path}")
        assert self.popen.poll() is None, self.output()

    def kill(self, sig=signal.SIGKILL):
        try:
            os.killpg(self.popen.pid, sig)
        except ProcessLookupError:
            pass
        self.popen.wait(timeout=30)
        self.log.close()


@pytest.fixture
def processes():
    started = []
    yield started
    for process in started:
        if process.popen.poll() is None:
            process.kill()


def until(predicate, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def make_overdue(game, ago=1):
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=ago))
    game.refresh_from_db()
    return game.version


def moved(game, version):
    return Game.objects.filter(pk=game.pk, version__gt=version).exists()


def assert_moves_within(game, version, seconds):
    started = time.monotonic()
    until(lambda: moved(game, version), seconds, f"game {game.pk} to move on from version {version}")
    assert Move.objects.filter(game=game, version=version + 1, automatic=True).exists()
    return time.monotonic() - started


def celery(*args):
    return [sys.executable, "-m", "celery", "-A", "elgrande_site", *args, "--loglevel=INFO"]


def start_worker(processes, tmp_path, name, env, concurrency=1):
    worker = Process(
        celery("worker", f"--concurrency={concurrency}", "--without-gossip", "--without-mingle",
               "--without-heartbeat", "-n", f"{name}@%h"),
        env, tmp_path / f"{name}.log",
    )
    processes.append(worker)
    worker.wait_for_output(" ready.")
    return worker


def worker_idle(worker, sweeps):
    """Whether `worker` has ended every task it took, `sweeps` of them the deadline sweeps that
    found a game overdue (the log leaves out Celery's lines for the sweeps, but each such sweep
    says what it did when it ends)."""
    text = worker.output()
    taken = set(re.findall(r"Task games\.tasks\.\w+\[([^]]+)\] received", text))
    ended = set(re.findall(r"Task games\.tasks\.\w+\[([^]]+)\] (?:succeeded|raised)", text))
    return taken <= ended and text.count("deadline sweep: ") >= sweeps


def start_beat(processes, tmp_path, name, env):
    beat = Process(celery("beat", "-s", str(tmp_path / "beat-schedule")), env, tmp_path / f"{name}.log")
    processes.append(beat)
    beat.wait_for_output("beat: Starting")
    return beat


class Proxy:
    """A TCP relay on 127.0.0.1 in front of the database, which can fail in the ways a database
    fails, and come back on the same port:

    - `down()`: every connection cut and new ones refused (the server stopped, or restarted);
    - `silent()`: the connections stay open but nothing more passes either way, new ones are
      accepted and hear nothing (a frozen server, a network that drops packets: TCP keepalives
      would notice a network cut, but not a relay that acknowledges what it drops); the
      connections it silenced stay so after `up()`, as connections whose state a firewall lost;
    - `full()`: every connection cut, and new ones answered as PostgreSQL answers when it has no
      connection left ("sorry, too many clients already").
    """

    def __init__(self, target):
        self.target = target
        self.port = 0
        # Connections relayed to the database so far: how many its clients opened.
        self.relayed = 0
        self.connections = set()
        self.silenced = set()
        self.lock = threading.Lock()
        self.running = False
        self.mode = "up"

    def up(self):
        self.mode = "up"
        if self.running:
            return
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", self.port))
        self.port = self.listener.getsockname()[1]
        self.listener.listen(64)
        self.listener.settimeout(0.1)
        self.running = True
        self.acceptor = threading.Thread(target=self._accept, args=(self.listener,), daemon=True)
        self.acceptor.start()

    def down(self):
        self.running = False
        self.acceptor.join()
        self.listener.close()
        self._cut()

    def silent(self):
        self.mode = "silent"
        with self.lock:
            self.silenced |= self.connections

    def full(self):
        self.mode = "full"
        self._cut()

    def _cut(self):
        with self.lock:
            for sock in self.connections:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            self.connections.clear()

    def _accept(self, listener):
        while self.running:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            client.settimeout(None)
            if self.mode == "full":
                threading.Thread(target=self._too_many_clients, args=(client,), daemon=True).start()
                continue
            if self.mode == "silent":
                with self.lock:
                    self.connections.add(client)
                    self.silenced.add(client)
                threading.Thread(target=self._pump, args=(client, None), daemon=True).start()
                continue
            server = socket.create_connection(self.target)
            with self.lock:
                self.connections.update((client, server))
                self.relayed += 1
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source, sink):
        try:
            while data := source.recv(65536):
                if sink is not None and source not in self.silenced:
                    sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    if sock is not None:
                        sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    @staticmethod
    def _too_many_clients(client):
        """What the postmaster answers a connection beyond max_connections: it declines SSL and
        GSS encryption, reads the start-up packet, and answers with a FATAL error, 53300."""
        try:
            while True:
                header = client.recv(8, socket.MSG_WAITALL)
                if len(header) < 8:
                    return
                length, code = struct.unpack("!ii", header)
                if code in (80877103, 80877104):  # SSLRequest, GSSENCRequest
                    client.sendall(b"N")
                    continue
                client.recv(length - 8, socket.MSG_WAITALL)
                break
            fields = b"".join(
                kind + text.encode() + b"\0"
                for kind, text in ((b"S", "FATAL"), (b"V", "FATAL"), (b"C", "53300"),
                                   (b"M", "sorry, too many clients already"))
            ) + b"\0"
            client.sendall(b"E" + struct.pack("!i", len(fields) + 4) + fields)
        except OSError:
            pass
        finally:
            client.close()


def start_embedded(processes, tmp_path, env, name="daphne"):
    """The embedded site (no REDIS_URL: its ticker thread sweeps) served by Daphne on a free port."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
    server = Process(
        [sys.executable, "-m", "daphne", "--fd", str(listener.fileno()), "elgrande_site.asgi:application"],
        env, tmp_path / f"{name}.log", pass_fds=[listener.fileno()],
    )
    listener.close()
    processes.append(server)
    return server, port


needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="a database server to lose needs a PostgreSQL DATABASE_URL (CI sets it)"
)


@pytest.fixture
def proxy():
    """A Proxy in front of the test database, up; taken down at the end."""
    settings = connection.settings_dict
    relay = Proxy((settings["HOST"] or "127.0.0.1", int(settings["PORT"] or 5432)))
    relay.up()
    yield relay
    if relay.running:
        relay.down()
