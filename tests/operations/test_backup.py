"""Backups as docs/operations.md takes and restores them: `pg_dump` of the database, restored into
an empty one, after which the site carries on with its running games (a deadline that passed is
played, a mail that waited goes out); and the game records exported as files that another copy of
the site imports."""

import json
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game, Move, Notification
from tests.support.helpers import play, serving
from tests.support.smtp import smtp_server

ROOT = Path(__file__).resolve().parents[2]
MANAGE = [sys.executable, str(ROOT / "manage.py")]

postgresql_only = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="pg_dump and pg_restore back up PostgreSQL (CI sets DATABASE_URL)",
)


def database_url(name=None):
    parts = urlsplit(os.environ["DATABASE_URL"])
    return parts._replace(path=f"/{name or connection.settings_dict['NAME']}").geturl()


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_restored_backup_carries_on_its_running_games_and_mails(start_game, tmp_path):
    running = start_game(3, time_per_move=86400)
    play(running, moves=4)
    running.refresh_from_db()
    # When the backup is taken: the game's deadline has passed, and a mail waits to go out.
    Game.objects.filter(pk=running.pk).update(deadline=timezone.now() - timezone.timedelta(minutes=5))
    waiting = Notification.objects.filter(game=running).first()
    assert waiting is not None and waiting.status == Notification.Status.PENDING
    Notification.objects.filter(pk=waiting.pk).update(next_attempt_at=timezone.now() - timezone.timedelta(minutes=1))
    version, moves = running.version, Move.objects.filter(game=running).count()

    dump = tmp_path / "elgrande.dump"
    subprocess.run(["pg_dump", "--format=custom", "--no-owner", f"--file={dump}", database_url()], check=True)
    restored = f"elgrande_restored_{os.getpid()}"
    admin = database_url("postgres")
    create = ["-c", f'DROP DATABASE IF EXISTS "{restored}"', "-c", f'CREATE DATABASE "{restored}"']
    subprocess.run(["psql", admin, *create], check=True, capture_output=True)
    try:
        subprocess.run(["pg_restore", "--no-owner", f"--dbname={database_url(restored)}", str(dump)], check=True)
        with smtp_server() as (box, smtp_port):
            carry_on_from(
                database_url(restored), smtp_port, tmp_path, game=running.pk, mail=waiting.pk, version=version
            )
        assert any(waiting.subject in message["Subject"] for message in box.messages)
    finally:
        subprocess.run(["psql", admin, "-c", f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)'], capture_output=True)
    # The copy carried on by itself: the original is as it was when the backup was taken.
    running.refresh_from_db()
    assert running.version == version and Move.objects.filter(game=running).count() == moves


def carry_on_from(database, smtp_port, tmp_path, *, game, mail, version):
    """Run the embedded site on `database` (a restored backup) until `game` moved on from `version`
    (its deadline had passed) and `mail` was sent."""
    import psycopg

    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(DATABASE_URL=database, DEBUG="1", EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}?starttls=off",
               DEADLINE_SWEEP_SECONDS="1", PYTHONUNBUFFERED="1")
    subprocess.run([*MANAGE, "migrate", "--check"], cwd=ROOT, env=env, check=True, capture_output=True)

    def state():
        with psycopg.connect(database) as restored:
            return (restored.execute("SELECT version FROM games_game WHERE id = %s", [game]).fetchone()[0],
                    restored.execute("SELECT status FROM games_notification WHERE id = %s", [mail]).fetchone()[0])

    assert state() == (version, "pending")
    # Its ticker sweeps, as beat does in production.
    with serving(lambda port: [*MANAGE, "runserver", "--noreload", f"127.0.0.1:{port}"], env=env, cwd=ROOT,
                 log_path=tmp_path / "site.log"):
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not (state()[0] > version and state()[1] == "sent"):
            time.sleep(0.5)
    assert state()[0] > version, (tmp_path / "site.log").read_text()[-3000:]
    assert state()[1] == "sent"


@pytest.mark.django_db(transaction=True)
def test_the_records_export_is_read_back_by_another_copy_of_the_site(start_game, tmp_path):
    from django.test import Client
    from django.urls import reverse

    other_database = tmp_path / "other.sqlite3"
    if connection.vendor == "sqlite":
        # Another copy of the site, empty: the test database as this transactional test starts it,
        # migrated and without rows, copied with SQLite's backup instead of a `manage.py migrate`
        # of its own (a start of Django and every migration).
        connection.ensure_connection()
        with closing(sqlite3.connect(other_database)) as other:
            connection.connection.backup(other)
    finished = start_game(2, short_game=True, veto=False)
    play(finished)
    finished.refresh_from_db()
    assert finished.status == Game.Status.FINISHED
    unfinished = start_game(3)
    folder = tmp_path / "records"
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    if connection.vendor == "sqlite":
        env["DATABASE_URL"] = f"sqlite:///{connection.settings_dict['NAME']}"
    else:
        env["DATABASE_URL"] = database_url()
    result = subprocess.run([*MANAGE, "export_records", str(folder)], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"Wrote 1 game records to {folder}."
    files = sorted(folder.iterdir())
    assert [path.name for path in files] == [f"el-grande-game-{finished.pk}.json"]
    assert not (folder / f"el-grande-game-{unfinished.pk}.json").exists()
    downloaded = Client().get(reverse("game_record", args=[finished.pk]))
    assert json.loads(files[0].read_bytes()) == json.loads(downloaded.content)

    # Another copy of the site, empty: the record is imported and replays to the same game.
    other = {**env, "DATABASE_URL": f"sqlite:///{other_database}", "REDIS_URL": ""}
    if connection.vendor != "sqlite":
        subprocess.run([*MANAGE, "migrate", "--noinput", "-v0"], cwd=ROOT, env=other, check=True)
    importing = [*MANAGE, "import_game", str(files[0])]
    result = subprocess.run(importing, cwd=ROOT, env=other, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Imported {files[0]} as game ")
