"""What follows a save (games/play/after_save.py): `record` in its transaction, `announce` once it
committed, for one commit or many together, each of its steps failing alone."""

import json
import logging

import pytest

from games import broadcast
from games.mail import decisions
from games.models import Game, MailToDecide, Result
from games.play import after_save
from games.play.after_save import Announcement
from games.records import game_records
from tests.support.records import a_record
from tests.support.sockets import listen, move_now


def test_commits_announced_together_tell_each_page_its_newest_version_once_and_each_lobby_once():
    page, other_page, lobby, other_lobby = (
        listen(broadcast.game_group(900_001)),
        listen(broadcast.game_group(900_002)),
        listen(broadcast.user_group(800_001)),
        listen(broadcast.user_group(800_002)),
    )
    after_save.announce([
        Announcement(versions={900_001: 7}, lobbies=[800_001, 800_002]),
        Announcement(versions={900_001: 9, 900_002: 4}, lobbies=[800_002, 800_001]),
        Announcement(versions={900_001: 8}, lobbies=[800_001]),
    ])
    assert page() == [{"type": "game.version", "version": 9}]
    assert other_page() == [{"type": "game.version", "version": 4}]
    assert lobby() == [{"type": "lobby.changed"}]
    assert other_lobby() == [{"type": "lobby.changed"}]


def test_nothing_to_announce_sends_nothing(monkeypatch):
    monkeypatch.setattr(broadcast, "send_versions_and_lobbies", lambda *args: pytest.fail("a notice was sent"))
    monkeypatch.setattr(decisions, "games_saved", lambda saved: pytest.fail("mails were decided"))
    after_save.announce([Announcement(), Announcement()])


def test_notices_that_cannot_be_sent_stop_neither_the_mails_nor_the_computers_moves(
    monkeypatch, caplog, queued_computer_moves
):
    def unreachable(versions, user_ids):
        raise ConnectionError("redis is away")

    decided = []
    monkeypatch.setattr(broadcast, "send_versions_and_lobbies", unreachable)
    monkeypatch.setattr(decisions, "games_saved", decided.extend)
    mail = ("a game", "its state", None)
    with caplog.at_level(logging.ERROR, logger="games.play.after_save"):
        after_save.announce([Announcement(versions={5: 2}, lobbies=[3], mails=[mail], computer_moves=[(5, 2)])])
    assert "2 notices could not be sent" in caplog.text
    assert decided == [mail]
    assert queued_computer_moves == [(5, 2)]


def test_mails_that_cannot_be_decided_stop_neither_the_notices_nor_the_computers_moves(
    monkeypatch, caplog, queued_computer_moves
):
    def broken(saved):
        raise RuntimeError("the database went away")

    sent = []
    monkeypatch.setattr(broadcast, "send_versions_and_lobbies", lambda versions, user_ids: sent.append(versions))
    monkeypatch.setattr(decisions, "games_saved", broken)
    announcements = [
        Announcement(versions={5: 2}, mails=[("a game", "its state", None)], computer_moves=[(5, 2)]),
        Announcement(versions={6: 3}, mails=[("another game", "its state", [1])], computer_moves=[(6, 3)]),
    ]
    with caplog.at_level(logging.ERROR, logger="games.play.after_save"):
        after_save.announce(announcements)
    assert "the mails of 2 games were not decided" in caplog.text
    assert sent == [{5: 2, 6: 3}]
    assert queued_computer_moves == [(5, 2), (6, 3)]


@pytest.mark.django_db
def test_a_move_records_its_outbox_row_in_its_transaction_and_announces_after_the_commit(
    start_game, monkeypatch, django_capture_on_commit_callbacks, queued_computer_moves
):
    game = start_game(3)
    to_act_before = list(game.to_act)
    sent, decided = [], []
    monkeypatch.setattr(
        broadcast, "send_versions_and_lobbies", lambda versions, user_ids: sent.append((versions, sorted(user_ids)))
    )
    monkeypatch.setattr(decisions, "games_saved", decided.extend)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        move_now(game, seat=to_act_before[0])
        # Written with the game; nothing told before the commit.
        assert MailToDecide.objects.filter(game=game, version=game.version).exists()
    assert (sent, decided) == ([], [])
    for callback in callbacks:
        callback()
    assert sent == [({game.pk: game.version}, sorted(game.seats.values_list("user_id", flat=True)))]
    assert [(saved.pk, previous) for saved, _state, previous in decided] == [(game.pk, to_act_before)]
    assert queued_computer_moves == []


@pytest.mark.django_db
def test_an_imported_game_is_recorded_and_announces_nothing(monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(broadcast, "send_versions_and_lobbies", lambda *args: pytest.fail("a notice was sent"))
    monkeypatch.setattr(decisions, "games_saved", lambda saved: pytest.fail("mails were decided"))
    with django_capture_on_commit_callbacks(execute=True):
        game = game_records.import_record(json.dumps(a_record()).encode())
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    assert Result.objects.filter(game=game).count() == game.num_players
    assert not MailToDecide.objects.filter(game=game).exists()
