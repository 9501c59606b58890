"""A database written by the code before the games app had rooms (main at ec17503, by
tests/support/stored/write_database.py) is loaded at the migrations it was written at, migrated to
today's, and played on: the game under way to its end and its ratings, its mail decision left by a
process killed after the commit, its mails still unsent, the unsubscribe links of the mails it
composed, the computer's next move in the practice game, and the pages of the finished game."""

import json
import random
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone

from games.engine import GameState, random_move, to_act
from games.mail import kinds, late_decisions, outbox
from games.models import Game, MailToDecide, Notification, Result
from games.play import computer_moves, lifecycle, moving
from ratings.models import Rating, RatingChange
from tests.support import stored_rows

pytestmark = pytest.mark.django_db(transaction=True)

STORED = Path(__file__).parent / "support" / "stored"


def load_stored(name):
    """Migrate to the migrations `name` was written at, insert its rows through the models of that
    state, and migrate to today's."""
    written_at = list(json.loads((STORED / f"{name}-migrations.json").read_text()).items())
    executor = MigrationExecutor(connection)
    executor.migrate(written_at)
    models_then = MigrationExecutor(connection).loader.project_state(written_at).apps
    records = json.loads((STORED / f"{name}.json").read_text())
    for record in records:
        model = models_then.get_model(record["model"])
        values = {}
        for name_, value in record["fields"].items():
            field = model._meta.get_field(name_)
            if field.many_to_many:
                assert value == [], f"{record['model']}.{name_}: many-to-many rows are not stored here"
            elif field.is_relation:
                values[field.attname] = value
            else:
                values[name_] = field.to_python(value)
        model(pk=record["pk"], **values).save(force_insert=True)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    # Rows inserted with their ids: the sequences go past them (PostgreSQL) for the rows to come.
    models = {apps.get_model(record["model"]) for record in records}
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)


@pytest.fixture(scope="module")
def migrated_rows(django_db_setup, django_db_blocker):
    """The stored database loaded and migrated once for the module: its rows at today's migrations,
    serialized. The migrations back to where it was written and forward again took about 2 s of
    processor per test (bench/README.md); each test loads these rows into its own emptied database."""
    with django_db_blocker.unblock():
        load_stored("main-ec17503")
        rows = stored_rows.serialized()
        # Emptied as a transactional test leaves it, for the tests to come.
        call_command("flush", verbosity=0, interactive=False, reset_sequences=False)
    return rows


@pytest.fixture
def stored(migrated_rows):
    stored_rows.load(migrated_rows)
    return {
        "finished": Game.objects.get(status=Game.Status.FINISHED),
        "under_way": Game.objects.get(status=Game.Status.ACTIVE, practice=False),
        "practice": Game.objects.get(status=Game.Status.ACTIVE, practice=True),
        "open": Game.objects.get(status=Game.Status.OPEN),
    }


def play_to_the_end(game, django_capture_on_commit_callbacks):
    rng = random.Random(7)
    while True:
        game.refresh_from_db()
        state = GameState.from_json(game.state)
        if state.is_over:
            return game
        seat = to_act(state)[0]
        with django_capture_on_commit_callbacks(execute=True):
            moving.submit_move(
                game,
                user=game.seats.get(index=seat).user,
                move=random_move(state, seat, rng),
                expected_version=game.version,
            )


def test_the_game_under_way_plays_to_its_end_and_is_rated(stored, django_capture_on_commit_callbacks):
    game = stored["under_way"]
    players = set(game.seats.values_list("user_id", flat=True))
    rated_before = {(r.user_id, r.ladder): r.games for r in Rating.objects.filter(user_id__in=players)}
    play_to_the_end(game, django_capture_on_commit_callbacks)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert Result.objects.filter(game=game).count() == 3
    # Each player's rating on two ladders: all games, and games of three.
    changes = RatingChange.objects.filter(game=game)
    assert len(changes) == 6 and {change.user_id for change in changes} == players
    for change in changes:
        rating = Rating.objects.get(user_id=change.user_id, ladder=change.ladder)
        assert rating.games == rated_before.get((change.user_id, change.ladder), 0) + 1
    replayed = moving.replay(game)
    assert replayed.scores == GameState.from_json(game.state).scores


def test_the_mail_decision_a_killed_process_left_is_decided_and_its_mails_sent(stored, queued_mail, mailoutbox):
    left = list(MailToDecide.objects.order_by("created_at"))
    assert left, "the stored database holds a commit whose mails were never decided"
    before = Notification.objects.count()
    # Lost, not yet given up: as the sweep finds them a few minutes after the last commit.
    found_at = left[-1].created_at + late_decisions.MAIL_DECISION_LOST_AFTER + timedelta(minutes=1)
    assert late_decisions.decide_lost(found_at) == len({row.game_id for row in left})
    assert not MailToDecide.objects.exists()
    assert Notification.objects.count() > before, "the players to act are mailed"
    # The mails written before (never sent: that process queued nothing) and these go out, but
    # for those no longer wanted (a "your move" for a position the game has left).
    unsent = set(Notification.objects.filter(status=Notification.Status.PENDING).values_list("pk", flat=True))
    later = timezone.now() + outbox.LOST_AFTER + timedelta(seconds=1)
    queued_mail.clear()
    assert outbox.retry_due(later) == len(unsent)
    assert set(queued_mail) == unsent
    sent = [notification_id for notification_id in queued_mail if outbox.deliver(notification_id, later)]
    assert sent and len(mailoutbox) == len(sent)
    assert not Notification.objects.filter(status=Notification.Status.PENDING).exists()
    assert Notification.objects.filter(pk__in=sent, status=Notification.Status.SENT).count() == len(sent)


def test_the_unsubscribe_links_of_mails_composed_before_still_work(stored):
    stored_mail = Notification.objects.filter(text__contains="/mail/unsubscribe/").select_related("user").first()
    token = re.search(r"/mail/unsubscribe/([^/\s]+)/", stored_mail.text).group(1)
    client = Client()
    assert client.get(f"/mail/unsubscribe/{token}/").status_code == 200
    assert client.post(f"/mail/unsubscribe/{token}/").status_code == 200
    user = stored_mail.user
    user.refresh_from_db()
    assert not getattr(user, f"notify_{kinds.SETTING_OF_KIND[stored_mail.kind]}")


def test_the_computer_plays_on_in_the_practice_game(stored):
    game = stored["practice"]
    version = game.version
    seats = {seat.index: seat for seat in game.seats.all()}
    assert all(seats[index].computer for index in to_act(GameState.from_json(game.state)))
    assert computer_moves.play(game.pk, version)
    game.refresh_from_db()
    assert game.version > version


def test_the_open_game_starts_when_its_seats_are_taken(stored, make_user):
    game = stored["open"]
    for _ in range(game.num_players - game.seats.count()):
        lifecycle.join_game(game, user=make_user())
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_the_finished_game_s_pages_read_as_before(stored):
    game = stored["finished"]
    client = Client()
    assert client.get(game.get_absolute_url()).status_code == 200
    player = game.seats.select_related("user").first().user
    assert player.username in client.get("/archive/").content.decode()
