"""Helpers shared by the web tests: play through the services, find positions with the engine,
serve the site from a process of its own."""

import random
import socket
import subprocess
import time
from contextlib import contextmanager

HTMX = {"HTTP_HX_REQUEST": "true"}


def logged_in(user):
    """A test client with `user` logged in."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


# A browser's WebSocket handshake names the host it asks and the page it comes from.
HOST = (b"host", b"testserver")
ORIGIN = (b"origin", b"http://testserver")


def snapshot(game):
    """What a refused move must leave unchanged: the version, state, status and move count."""
    from games.models import Move

    game.refresh_from_db()
    return game.version, game.state, game.status, Move.objects.filter(game=game).count()


def user_at(game, index):
    return game.seats.get(index=index).user


def state_of(game):
    from games.engine import GameState

    game.refresh_from_db()
    return GameState.from_json(game.state)


def play(game, until=None, moves=None, rng=None):
    """Play random legal moves through the services, as the users in the seats, until
    `until(state)` holds or `moves` moves were made. Returns the current state."""
    from games.engine import random_move, to_act
    from games.play import moving

    rng = rng or random.Random(game.seed)
    users = {seat.index: seat.user for seat in game.seats.all()}
    made = 0
    state = state_of(game)
    while not state.is_over and not (until and until(state)) and (moves is None or made < moves):
        seat = to_act(state)[0]
        moving.submit_move(game, user=users[seat], move=random_move(state, seat, rng), expected_version=game.version)
        state = state_of(game)
        made += 1
    return state


def find_position(predicate, num_players=3, seeds=range(1, 300), **options):
    """Search the engine alone for a seed and a random line of play that reach a position
    where `predicate(state)` holds. Returns (seed, [(seat, move), ...])."""
    from games.engine import apply_move, new_game, random_move, to_act

    for seed in seeds:
        state = new_game(num_players=num_players, seed=seed, **options)
        rng = random.Random(seed)
        history = []
        while not state.is_over:
            if predicate(state):
                return seed, history
            seat = to_act(state)[0]
            move = random_move(state, seat, rng)
            state = apply_move(state, seat, move)
            history.append((seat, move))
    raise LookupError("no seed reaches such a position")


def free_port():
    """A loopback port that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(command, *, env, cwd, log_path, timeout=120):
    """Run `command(port)` (an argv) on a free loopback port, its output going to `log_path`,
    until it accepts connections; yield the port and terminate the server afterwards. A server
    that exits or does not listen within `timeout` seconds raises RuntimeError with its log."""
    port = free_port()
    with open(log_path, "w") as log:
        server = subprocess.Popen(command(port), cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"the server did not start:\n{log_path.read_text()}") from None
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # On a loaded machine daphne may not finish closing its connections in time.
            server.kill()
            server.wait(timeout=10)


@contextmanager
def row_held(game):
    """The row of `game` locked (SELECT ... FOR UPDATE) by another connection, in a thread of its
    own, until the block ends: as a move in progress holds it."""
    import threading

    from django.db import connection, transaction

    from games.models import Game

    locked, release = threading.Event(), threading.Event()

    def hold_the_row():
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=game.pk)
            locked.set()
            release.wait(10)
        connection.close()

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    try:
        assert locked.wait(10)
        yield
    finally:
        release.set()
        holder.join()


def seated_game(names, password, *, seed=None, history=(), **options):
    """A game of len(`names`) players opened by the first and joined by the others (new users of
    those names and `password`), on `seed` when given, then `history` ([(seat, move)]) played
    through the services: the browser tests' seed scripts build their positions so."""
    from accounts.models import User
    from games.play import lifecycle, moving

    users = [User.objects.create_user(name, f"{name}@example.org", password) for name in names]
    game = lifecycle.create_game(users[0], num_players=len(users), **options)
    if seed is not None:
        type(game).objects.filter(pk=game.pk).update(seed=seed)
    for user in users[1:]:
        lifecycle.join_game(game, user=user, token=game.invite_token)
    game.refresh_from_db()
    for seat, move in history:
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
        game.refresh_from_db()
    return game


def command_line(*args):
    """Run `manage.py *args` as manage.py's main runs it (Django's command line), in this process:
    (exit status, stdout, stderr). A refused command writes its message to stderr and exits 1."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from django.core.management import execute_from_command_line

    stdout, stderr = io.StringIO(), io.StringIO()
    with redirect_stdout(stdout), redirect_stderr(stderr):
        try:
            execute_from_command_line(["manage.py", *args])
            status = 0
        except SystemExit as exit_:
            status = exit_.code
    return status, stdout.getvalue(), stderr.getvalue()
