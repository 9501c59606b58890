"""The tournaments' pages and buttons: the list, the form, a tournament's page with its tables and
standings, sign-up, withdrawal and start, and the archive's filter by tournament."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Game, Notification, Seat
from tests.support.archive_games import finished_game
from tests.support.tournament_factory import played_tournament
from tournaments import services
from tournaments.models import Entrant, Table, Tournament

pytestmark = pytest.mark.django_db


def text_of(response):
    return " ".join(response.content.decode().split())


def open_tournament(organiser, **fields):
    return services.create_tournament(
        organiser, name="Spring cup", signup_closes_at=timezone.now() + timedelta(days=3), **fields
    )


FORM = {
    "name": "Copa", "description": "", "format": "swiss", "first_round": "rating", "table_size": "4",
    "rounds": "3", "points": "5, 3, 2, 1, 0", "signup_days": "7", "short_game": "False", "veto": "on",
    "time_per_move": str(24 * 3600), "vacations_allowed": "on",
}


def test_the_header_links_to_the_tournaments_which_lists_them_by_state(client, make_user):
    organiser = make_user()
    open_tournament(organiser)
    played_tournament(make_user)
    response = client.get(reverse("lobby"))
    assert f'href="{reverse("tournaments")}"' in response.content.decode()
    text = text_of(client.get(reverse("tournaments")))
    assert text.index("Open for sign-up") < text.index("Spring cup") < text.index("In play")
    assert text.index("Finished") < text.index("Copa de Otoño")


def test_an_organiser_creates_a_tournament_with_the_games_options(client, make_user):
    organiser = make_user()
    client.force_login(organiser)
    response = client.post(reverse("new_tournament"), {**FORM, "points": "6,4,2", "short_game": "True",
                                                        "rated": "on", "table_size": "3"})
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response.url == tournament.get_absolute_url()
    assert (tournament.organiser, tournament.points, tournament.short_game, tournament.rated,
            tournament.table_size) == (organiser, [6, 4, 2], True, True, 3)
    assert tournament.status == Tournament.Status.SIGNUP and not tournament.entrants.exists()


@pytest.mark.parametrize(("change", "message"), [
    ({"points": "5, x"}, "whole numbers"),
    ({"points": "1, 3"}, "fewer points"),
    ({"points": "5,4,3,2,1,0"}, "one to five numbers"),
    ({"format": "groups", "rounds": "1"}, "at least 2 rounds"),
    ({"table_size": "6"}, "Select a valid choice"),
    ({"rounds": "0"}, "greater than or equal to 1"),
    ({"name": ""}, "This field is required"),
    # Hangul fillers and the blank Braille pattern print as nothing: a blank name in the lists.
    ({"name": "\u3164\u3164"}, "This field is required"),
    ({"name": "\u2800 \uffa0"}, "This field is required"),
])
def test_a_bad_tournament_form_says_why_and_creates_nothing(client, make_user, change, message):
    client.force_login(make_user())
    response = client.post(reverse("new_tournament"), {**FORM, **change})
    assert response.status_code == 400 and message in response.content.decode()
    assert not Tournament.objects.exists()


def test_entrants_sign_up_and_withdraw_until_the_organiser_starts_it(client, make_user):
    organiser = make_user("organiser")
    tournament = open_tournament(organiser)
    players = [make_user() for _ in range(7)]
    for player in players:
        client.force_login(player)
        assert client.post(reverse("tournament_sign_up", args=[tournament.pk])).status_code == 302
    response = client.post(reverse("tournament_sign_up", args=[tournament.pk]))
    assert response.status_code == 409 and "already signed up" in response.content.decode()
    assert client.post(reverse("tournament_withdraw", args=[tournament.pk])).status_code == 302
    assert tournament.entrants.count() == 6
    # Only the organiser starts it.
    response = client.post(reverse("tournament_start", args=[tournament.pk]), {"sure": "1"})
    assert response.status_code == 403 and "Only the organiser" in response.content.decode()
    client.force_login(organiser)
    assert client.post(reverse("tournament_start", args=[tournament.pk]), {"sure": "1"}).status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.current_round == 1
    games = Game.objects.filter(tournament_table__tournament=tournament)
    assert sorted(game.num_players for game in games) == [3, 3]
    assert all(game.status == Game.Status.ACTIVE and not game.private for game in games)
    # Sign-up is over.
    client.force_login(players[-1])
    response = client.post(reverse("tournament_sign_up", args=[tournament.pk]))
    assert response.status_code == 409 and "closed" in response.content.decode()
    assert tournament.entrants.count() == 6
    text = text_of(client.get(tournament.get_absolute_url()))
    for game in games:
        assert f'href="{game.get_absolute_url()}"' in text


def test_too_few_entrants_cannot_start_and_at_the_end_of_sign_up_it_is_cancelled(client, make_user):
    organiser = make_user("organiser")
    tournament = open_tournament(organiser, table_size=4)
    services.sign_up(tournament, make_user())
    services.sign_up(tournament, make_user())
    client.force_login(organiser)
    response = client.post(reverse("tournament_start", args=[tournament.pk]), {"sure": "1"})
    assert response.status_code == 409 and "Too few entrants (2) for tables of 4." in response.content.decode()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.SIGNUP
    Tournament.objects.filter(pk=tournament.pk).update(signup_closes_at=timezone.now())
    assert services.advance_due() == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED and "Too few entrants" in tournament.note
    assert not Table.objects.exists()


def test_a_rated_tournament_takes_only_verified_players_and_no_computers(make_user):
    from games.computer import players as computer

    tournament = open_tournament(make_user(), rated=True)
    with pytest.raises(services.NotAllowed):
        services.sign_up(tournament, make_user(verified=False))
    with pytest.raises(services.NotAllowed):
        services.sign_up(tournament, computer.computer_user("greedy"))
    assert not Entrant.objects.exists()


def test_the_page_shows_tables_standings_tie_breaks_and_no_address(client, make_user):
    tournament, users = played_tournament(make_user)
    client.force_login(users[0])
    response = client.get(tournament.get_absolute_url())
    text = text_of(response)
    assert "Final ranking" in text and "Copa de Otoño" in text
    assert "Total game score, then opponents' tournament points, then head-to-head" in text
    assert "By place in each game: 5, 3, 2, 1, 0." in text
    for table in Table.objects.filter(tournament=tournament):
        assert f'href="{table.game.get_absolute_url()}"' in text
    page = response.content.decode()
    assert not any(f"{user.username}@example.org" in page for user in users)
    rows = response.context["standings"]
    # alba: 5 + 5; elodie 5 + 3; bruno, duarte and fabrizio tie in a game (all 49) and share its first place.
    assert [(row["user"].username, row["standing"].points) for row in rows][:2] == [("alba", 10), ("elodie", 8)]
    assert {row["user"].username: row["standing"].points for row in rows}["fabrizio"] == 8
    assert f'href="{reverse("archive")}?tournament={tournament.pk}"' in text


def test_the_archive_filters_a_tournaments_games(client, make_user):
    tournament, users = played_tournament(make_user)
    other = finished_game(users[:3])
    response = client.get(reverse("archive"), {"tournament": tournament.pk})
    assert response.status_code == 200
    shown = {row["game"].pk for row in response.context["page"].rows}
    assert shown == set(Table.objects.filter(tournament=tournament).values_list("game_id", flat=True))
    assert other.pk not in shown
    assert "Games of the tournament" in text_of(response)
    assert len(client.get(reverse("archive_json"), {"tournament": tournament.pk}).json()["games"]) == 4
    missing = client.get(reverse("archive"), {"tournament": tournament.pk + 100})
    assert missing.status_code == 400 and f"There is no tournament {tournament.pk + 100}." in missing.content.decode()
    assert client.get(reverse("archive"), {"tournament": "x"}).status_code == 400


def test_a_running_tournaments_page_has_standings_and_the_withdraw_button(client, make_user):
    tournament, users = played_tournament(make_user, finished=False)
    client.force_login(users[1])
    text = text_of(client.get(tournament.get_absolute_url()))
    assert "Standings" in text and "round 2 of 2" in text and "Withdraw" in text


def test_a_table_under_way_shows_no_places_and_a_finished_one_its_places_and_scores(client, make_user, start_game):
    """A game in play has no places yet (its standings at the start tie every seat first, which
    read "1." for all); a finished table shows each seat's place and score."""
    tournament, users = played_tournament(make_user, finished=False)
    Table.objects.create(tournament=tournament, round=2, number=3, game=start_game(3, short_game=True))
    client.force_login(users[1])
    rounds = dict(client.get(tournament.get_absolute_url()).context["rounds"])
    tables = [table for tables in rounds.values() for table in tables]
    running = [t for t in tables if t["game"].status != Game.Status.FINISHED]
    finished = [t for t in tables if t["game"].status == Game.Status.FINISHED]
    assert running and finished
    assert all(p["place"] is None and p["score"] is None for t in running for p in t["players"])
    assert all(p["place"] and p["score"] is not None for t in finished for p in t["players"])


def test_the_sweep_makes_the_next_round_when_the_notice_of_the_last_game_was_lost(
    make_user, django_capture_on_commit_callbacks
):
    # Two rounds played, the notices of their games' ends never heard (this test's transaction
    # never commits): the sweep's check finds the round over and seats the third.
    tournament, users = played_tournament(make_user, finished=False)
    Tournament.objects.filter(pk=tournament.pk).update(rounds=3)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.advance_due() == 1
    tournament.refresh_from_db()
    assert tournament.current_round == 3 and tournament.status == Tournament.Status.RUNNING
    third = Table.objects.filter(tournament=tournament, round=3)
    assert sorted(table.game.num_players for table in third) == [3, 4]
    assert Notification.objects.filter(kind="tournament_table", game__in=[t.game for t in third]).count() == 7
    # Nothing more to do until those games end; after the last round, it is finished.
    assert services.advance_due() == 0
    Game.objects.filter(tournament_table__round=3).update(status=Game.Status.FINISHED, standings=[])
    assert services.advance_due() == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_the_table_mail_is_written_in_the_entrants_zone_and_names_no_address(
    make_user, django_capture_on_commit_callbacks
):
    organiser = make_user("organiser")
    tournament = open_tournament(organiser, table_size=3)
    players = [make_user(f"p{n}") for n in range(3)]
    players[0].time_zone = "Asia/Tokyo"
    players[0].save(update_fields=["time_zone"])
    players[1].notify_game_started = False
    players[1].save(update_fields=["notify_game_started"])
    for player in players:
        services.sign_up(tournament, player)
    with django_capture_on_commit_callbacks(execute=True):
        services.start(tournament, organiser)
    game = Game.objects.get(tournament_table__tournament=tournament)
    mails = Notification.objects.filter(kind="tournament_table")
    # Who asked for no mail when a game starts gets none of these either.
    assert sorted(mails.values_list("user__username", flat=True)) == ["p0", "p2"]
    tokyo = mails.get(user=players[0])
    local = timezone.localtime(game.deadline, players[0].zone)
    if game.seats.get(user=players[0]).index in game.to_act:
        # The entrant who decides first is told his own deadline, with his decision.
        assert f"Your deadline: {local:%A %-d %B, %H:%M} JST (Asia/Tokyo)" in tokyo.text
    else:
        assert f"The first decisions are due by {local:%A %-d %B, %H:%M} JST (Asia/Tokyo)." in tokyo.text
    assert tokyo.subject == f"Spring cup, round 1: your table is game {game.pk}"
    assert all(player.username in tokyo.text.split("At your table: ")[1].splitlines()[0] for player in players)
    assert "@example.org" not in tokyo.text and "@example.org" not in tokyo.html
    assert f"/games/{game.pk}/" in tokyo.text


def test_the_first_round_by_rating_seats_the_best_rated_together(make_user):
    from ratings.models import Ladder, Rating

    organiser = make_user("organiser")
    tournament = open_tournament(organiser, table_size=4)
    players = [make_user(f"r{n}") for n in range(7)]
    # r6 is best on the 4-player ladder, r5 next, ...; r0 has no rating there (only on "all games").
    for rank, player in enumerate(players[1:]):
        Rating.objects.create(user=player, ladder=Ladder.FOUR, mu=25.0, sigma=2.0, ordinal=float(rank), games=3)
    Rating.objects.create(user=players[0], ladder=Ladder.ALL, mu=50.0, sigma=1.0, ordinal=47.0, games=9)
    for player in players:
        services.sign_up(tournament, player)
    services.start(tournament, organiser)
    first, second = services.seated(tournament)[1]
    assert sorted(map(len, (first, second))) == [3, 4]
    top = next(table for table in (first, second) if len(table) == 4)
    assert set(top) == {players[6].pk, players[5].pk, players[4].pk, players[3].pk}


def test_a_running_tournaments_page_refreshes_its_standings_and_rounds_by_itself(client, make_user):
    running, _users = played_tournament(make_user, finished=False)
    page = client.get(running.get_absolute_url()).content.decode()
    assert 'id="tournament-live"' in page and 'hx-trigger="every 30s"' in page
    Tournament.objects.filter(pk=running.pk).update(status=Tournament.Status.FINISHED)
    assert 'hx-trigger' not in client.get(running.get_absolute_url()).content.decode()


def test_starting_and_withdrawing_from_a_running_tournament_need_the_tick_and_change_nothing_without(
    client, make_user
):
    """Neither can be taken back: a click (or a forged form) without "I am sure" is refused."""
    tournament, users = played_tournament(make_user, finished=False)
    client.force_login(users[1])
    response = client.post(reverse("tournament_withdraw", args=[tournament.pk]))
    assert response.status_code == 400 and "I am sure" in response.content.decode()
    assert not tournament.entrants.filter(user=users[1], withdrawn_at__isnull=False).exists()
    assert not Seat.objects.filter(user=users[1], autopilot=True).exists()
    assert client.post(reverse("tournament_withdraw", args=[tournament.pk]), {"sure": "1"}).status_code == 302
    assert tournament.entrants.filter(user=users[1], withdrawn_at__isnull=False).exists()

    organiser = make_user("second_organiser")
    waiting = open_tournament(organiser)
    for player in [make_user() for _ in range(6)]:
        client.force_login(player)
        client.post(reverse("tournament_sign_up", args=[waiting.pk]))
    client.force_login(organiser)
    response = client.post(reverse("tournament_start", args=[waiting.pk]))
    assert response.status_code == 400 and "I am sure" in response.content.decode()
    waiting.refresh_from_db()
    assert waiting.status == Tournament.Status.SIGNUP and not Game.objects.filter(tournament_table__tournament=waiting)
    text = text_of(client.get(waiting.get_absolute_url()))
    assert "I am sure" in text


def test_a_tournaments_page_and_the_list_take_the_same_queries_however_many_games(client, make_user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    tournament, users = played_tournament(make_user)

    def queries(url):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return [query["sql"] for query in captured.captured_queries]

    few = queries(tournament.get_absolute_url())
    few_list = queries(reverse("tournaments"))
    for number in (3, 4, 5):
        Table.objects.create(tournament=tournament, round=2, number=number, game=finished_game(users[:4]))
    for _ in range(2):
        open_tournament(users[0])
    many = queries(tournament.get_absolute_url())
    assert len(many) == len(few)
    assert len(queries(reverse("tournaments"))) == len(few_list)
    # No game's state (its whole log) is read for a page that shows a link and a status.
    assert not any('"state"' in sql for sql in many)
