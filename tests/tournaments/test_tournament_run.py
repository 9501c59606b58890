"""A tournament run from sign-up to its final ranking by the site itself: the deadline sweep starts
it, plays for the entrants (who never move: their seats time out and go on autopilot, the greedy
computer player standing in for them), and every finished game's notice makes the next round."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from games import deadlines
from games.mail import outbox
from games.models import Game, Notification, Seat
from tournaments import pairing, services
from tournaments.models import Table, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mail_sent_at_once(monkeypatch, settings):
    settings.SITE_URL = "https://elgrande.example.org"
    monkeypatch.setattr(outbox, "queue_notification", outbox.send_logged)


def new_tournament(organiser, **fields):
    options = {
        "name": "Autumn Swiss", "format": Tournament.Format.SWISS, "table_size": 4, "rounds": 3,
        "short_game": True, "time_per_move": 2 * 60 * 60 * 12,
        "signup_closes_at": timezone.now() + timedelta(days=1), **fields,
    }
    return services.create_tournament(organiser, **options)


def sweep_until(tournament, done, sweeps=400):
    """Let every running game's deadline pass and sweep, until `done(tournament)`."""
    for _ in range(sweeps):
        tournament.refresh_from_db()
        if done(tournament):
            return
        Game.objects.filter(status=Game.Status.ACTIVE).update(deadline=timezone.now() - timedelta(seconds=1))
        deadlines.sweep()
    raise AssertionError(f"tournament still at round {tournament.current_round}, {tournament.status}")


def test_seven_entrants_play_three_swiss_rounds_to_a_final_ranking(make_user, mail_sent_at_once):
    organiser = make_user("organiser")
    tournament = new_tournament(organiser)
    entrants = [make_user(f"entrant{n}") for n in range(1, 8)]
    for user in entrants:
        services.sign_up(tournament, user)

    # The sign-up closes: the sweep starts it and seats the first round.
    Tournament.objects.filter(pk=tournament.pk).update(signup_closes_at=timezone.now())
    deadlines.sweep()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.current_round == 1
    first = Table.objects.filter(tournament=tournament, round=1)
    assert sorted(table.game.num_players for table in first) == [3, 4]
    assert all(table.game.status == Game.Status.ACTIVE for table in first)

    sweep_until(tournament, lambda t: t.status == Tournament.Status.FINISHED)

    tables = Table.objects.filter(tournament=tournament).select_related("game")
    assert [table.round for table in tables] == [1, 1, 2, 2, 3, 3]
    assert all(table.game.status == Game.Status.FINISHED for table in tables)
    seats = Seat.objects.filter(game__tournament_table__tournament=tournament)
    for number in (1, 2, 3):
        seated = seats.filter(game__tournament_table__round=number).values_list("user_id", flat=True)
        assert sorted(seated) == sorted(u.pk for u in entrants)
    # The entrants never moved: the sweep played every decision, the autopilot most of them.
    assert Seat.objects.filter(game__tournament_table__tournament=tournament, autopilot=True).count() > 0

    ranking = services.ranking(tournament)
    assert sorted(s.player for s in ranking) == sorted(u.pk for u in entrants)
    assert [s.games for s in ranking] == [3] * 7
    # Tournament points are the places' points of the three games each played.
    expected = {u.pk: 0 for u in entrants}
    for _round, result in services.results(tournament):
        for player, got in pairing.game_points(result).items():
            expected[player] += got
    assert {s.player: s.points for s in ranking} == expected
    assert [s.points for s in ranking] == sorted((s.points for s in ranking), reverse=True)

    # Each entrant was mailed their table once a round: 7 entrants, 3 rounds.
    table_mails = Notification.objects.filter(kind="tournament_table")
    assert table_mails.count() == 21
    assert table_mails.filter(status=Notification.Status.SENT).count() == 21
    # The table mail announces the game: no "game started" mail besides it.
    assert not Notification.objects.filter(kind="game_started", game__tournament_table__tournament=tournament).exists()
    sent = [message for message in mail.outbox if "your table is game" in message.subject]
    assert len(sent) == 21
    first_mail = next(m for m in sent if m.to == ["entrant1@example.org"])
    assert "Autumn Swiss" in first_mail.subject and "entrant1" in first_mail.body
    assert all("@" not in line for line in first_mail.body.splitlines() if line.startswith("At your table"))


def test_a_withdrawal_plays_on_by_autopilot_and_is_then_left_out(make_user, mail_sent_at_once):
    organiser = make_user("organiser")
    tournament = new_tournament(organiser, rounds=2, table_size=3)
    entrants = [make_user(f"entrant{n}") for n in range(1, 8)]
    for user in entrants:
        services.sign_up(tournament, user)
    services.start(tournament, organiser)
    leaver = entrants[2]
    services.withdraw(tournament, leaver)
    seat = Seat.objects.get(user=leaver, game__tournament_table__tournament=tournament)
    assert seat.autopilot
    sweep_until(tournament, lambda t: t.status == Tournament.Status.FINISHED)
    second = Seat.objects.filter(game__tournament_table__tournament=tournament, game__tournament_table__round=2)
    assert leaver.pk not in set(second.values_list("user_id", flat=True))
    assert second.count() == 6
    ranking = services.ranking(tournament)
    assert next(s for s in ranking if s.player == leaver.pk).withdrawn


def test_groups_play_their_games_then_the_best_of_each_meet_at_the_final(make_user, mail_sent_at_once):
    organiser = make_user("organiser")
    tournament = new_tournament(organiser, format=Tournament.Format.GROUPS, table_size=3, rounds=3,
                                first_round=Tournament.FirstRound.RANDOM)
    entrants = [make_user(f"entrant{n}") for n in range(1, 7)]
    for user in entrants:
        services.sign_up(tournament, user)
    services.start(tournament, organiser)
    sweep_until(tournament, lambda t: t.status == Tournament.Status.FINISHED)

    seated = services.seated(tournament)
    groups = [set(table) for table in seated[1]]
    assert sorted(map(len, groups)) == [3, 3]
    # The group stage: the same tables again.
    assert [set(table) for table in seated[2]] == groups
    # The final: each group's best (tournament points over its group games), then the second best
    # of the first group to fill a table of 3.
    group_games = [result for number, result in services.results(tournament) if number < 3]
    [final] = seated[3]
    bests = [pairing.standings(group, group_games)[0].player for group in seated[1]]
    assert all(best in final for best in bests) and len(final) == 3
    ranking = services.ranking(tournament)
    final_result = next(result for number, result in services.results(tournament) if number == 3)
    assert {s.player for s in ranking[:3]} == set(final)
    assert ranking[0].player in [p for p, place in final_result.places.items() if place == 1]
    assert Notification.objects.filter(kind="tournament_table").count() == 6 + 6 + 3


def first_table(make_user, prefix, **settings):
    tournament = new_tournament(make_user(f"{prefix}organiser"), rounds=1)
    for n in range(1, 5):
        user = make_user(f"{prefix}entrant{n}")
        for field, value in settings.items():
            setattr(user, field, value)
        user.save()
        services.sign_up(tournament, user)
    Tournament.objects.filter(pk=tournament.pk).update(signup_closes_at=timezone.now())
    deadlines.sweep()
    (table,) = Table.objects.filter(tournament=tournament, round=1).select_related("game")
    return table.game


def test_the_entrant_who_decides_first_gets_one_mail_that_says_what_and_the_others_none_besides(
    make_user, mail_sent_at_once
):
    game = first_table(make_user, "a")
    (first,) = game.to_act
    for seat in game.seats.select_related("user"):
        (table_mail,) = [message for message in mail.outbox if message.to == [seat.user.email]]
        assert "your table is game" in table_mail.subject and "\n\n\n" not in table_mail.body
        assert not Notification.objects.filter(user=seat.user, game=game, kind="your_move").exists()
        if seat.index == first:
            assert "Your first decision: your bid." in table_mail.body
            assert "Your power cards: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13" in table_mail.body
            assert "Your first decision" in table_mail.alternatives[0][0]
        else:
            assert "Your first decision" not in table_mail.body and "Your power cards" not in table_mail.body
            assert "The first decisions are due by" in table_mail.body


def test_entrants_who_want_no_mail_when_a_game_starts_get_their_first_decision_as_your_move(
    make_user, mail_sent_at_once
):
    game = first_table(make_user, "b", notify_game_started=False)
    (first,) = game.to_act
    assert not any("your table is game" in message.subject for message in mail.outbox)
    for seat in game.seats.select_related("user"):
        got = [message for message in mail.outbox if message.to == [seat.user.email]]
        assert [message.subject for message in got] == (
            [f"[El Grande] Game {game.pk}, round 1: your bid"] if seat.index == first else [])


def test_a_table_mail_not_recorded_leaves_the_first_decision_to_your_move(make_user, mail_sent_at_once, monkeypatch):
    """The table mail stands for the first "your move" only once it is recorded: one that could not
    be (a failure while rendering it, say) must not leave the first decider with no mail at all."""
    from tournaments import mail as table_mails

    monkeypatch.setattr(table_mails, "tables_made", lambda table_ids: [])
    game = first_table(make_user, "c")
    (first,) = game.to_act
    seat = game.seats.select_related("user").get(index=first)
    got = [message.subject for message in mail.outbox if message.to == [seat.user.email]]
    assert got == [f"[El Grande] Game {game.pk}, round 1: your bid"]


def test_a_table_mail_that_cannot_be_made_stops_no_round(make_user, mail_sent_at_once, monkeypatch):
    """The table mails are recorded in the round's transaction: one that fails is logged and left
    out, the round is made all the same, and the first decider gets the game's "your move"."""
    from tournaments import mail as table_mails

    def broken(*args):
        raise RuntimeError("a template that cannot render")

    monkeypatch.setattr(table_mails, "_table_mail", broken)
    game = first_table(make_user, "d")
    assert game.status == Game.Status.ACTIVE
    (first,) = game.to_act
    seat = game.seats.select_related("user").get(index=first)
    got = [message.subject for message in mail.outbox if message.to == [seat.user.email]]
    assert got == [f"[El Grande] Game {game.pk}, round 1: your bid"]
