"""Every finished rated game changes its players' ratings by openskill's Plackett–Luce model, on
"all games" and on the ladder of its player count; shared places are ties."""

import pytest

from games.models import Game, Seat
from games.play import after_save
from ratings.models import Ladder, Rating, RatingChange
from ratings.rating import MODEL, rate_finished_game, shown, shown_uncertainty
from tests.support.helpers import play
from tests.support.rated_games import open_rated, play_rated

pytestmark = pytest.mark.django_db


def expected(before, places):
    """openskill's own answer for players rated `before` ([(mu, sigma)]) finishing at `places`."""
    rated = MODEL.rate([[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before], ranks=places)
    return [(team[0].mu, team[0].sigma) for team in rated]


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_a_finished_rated_game_rates_every_player_on_all_games_and_its_own_ladder(make_user, num_players):
    users = [make_user() for _ in range(num_players)]
    game = play_rated(users)
    seats = {seat.index: seat.user_id for seat in game.seats.all()}
    by_seat = sorted(game.standings, key=lambda standing: standing[1])
    start = (MODEL.mu, MODEL.sigma)
    after = expected([start] * num_players, [place for place, _, _ in by_seat])
    for ladder in (Ladder.ALL, num_players):
        for (place, seat, _), (mu, sigma) in zip(by_seat, after):
            change = RatingChange.objects.get(game=game, user_id=seats[seat], ladder=ladder)
            assert (change.place, change.mu_before, change.sigma_before) == (place, *start)
            assert (change.mu_after, change.sigma_after) == (mu, sigma)
            assert change.finished_at == game.finished_at
            rating = Rating.objects.get(user_id=seats[seat], ladder=ladder)
            assert (rating.mu, rating.sigma, rating.ordinal) == (mu, sigma, mu - 3 * sigma)
            assert (rating.games, rating.wins) == (1, int(place == 1))
            assert (rating.last_game_id, rating.last_game_at) == (game.pk, game.finished_at)
    assert RatingChange.objects.count() == 2 * num_players
    assert set(Rating.objects.values_list("ladder", flat=True)) == {Ladder.ALL, num_players}
    best = [seats[seat] for place, seat, _ in game.standings if place == 1]
    worst = [seats[seat] for place, seat, _ in game.standings if place == game.standings[-1][0]]
    if set(best) != set(worst):
        assert all(Rating.objects.get(user_id=user, ladder=Ladder.ALL).mu > MODEL.mu for user in best)
        assert all(Rating.objects.get(user_id=user, ladder=Ladder.ALL).mu < MODEL.mu for user in worst)


def test_shared_places_are_ties(start_game):
    """Four players finish 1, 1, 3, 4 (the first two with equal scores): the two winners, rated
    alike before, come out alike, as openskill rates a tie."""
    game = start_game(4, rated=True)
    game.status, game.finished_at = Game.Status.FINISHED, game.started_at
    game.standings = [[1, 0, 40], [1, 2, 40], [3, 1, 30], [4, 3, 20]]
    rate_finished_game(game)
    changes = {
        change.user_id: change for change in RatingChange.objects.filter(game=game, ladder=Ladder.FOUR)
    }
    users = dict(Seat.objects.filter(game=game).values_list("index", "user_id"))
    first, also_first = changes[users[0]], changes[users[2]]
    assert (first.place, also_first.place) == (1, 1)
    assert (first.mu_after, first.sigma_after) == (also_first.mu_after, also_first.sigma_after)
    start = (MODEL.mu, MODEL.sigma)
    by_seat = [(changes[users[index]].mu_after, changes[users[index]].sigma_after) for index in range(4)]
    assert by_seat == expected([start] * 4, [1, 3, 1, 4])
    # A tie is not a win over the other: both gain less than a sole winner would.
    assert first.mu_after < expected([start] * 4, [1, 2, 3, 4])[0][0]
    assert Rating.objects.get(user_id=users[2], ladder=Ladder.ALL).wins == 1


def test_the_next_game_starts_from_the_ratings_the_last_one_left(make_user):
    users = [make_user() for _ in range(3)]
    first = play_rated(users)
    second = play_rated(users[::-1])
    for user in users:
        for ladder in (Ladder.ALL, Ladder.THREE):
            earlier = RatingChange.objects.get(game=first, user=user, ladder=ladder)
            later = RatingChange.objects.get(game=second, user=user, ladder=ladder)
            assert (later.mu_before, later.sigma_before) == (earlier.mu_after, earlier.sigma_after)
            rating = Rating.objects.get(user=user, ladder=ladder)
            assert (rating.mu, rating.sigma, rating.games) == (later.mu_after, later.sigma_after, 2)
            assert rating.last_game_id == second.pk


def test_each_player_count_has_a_ladder_of_its_own(make_user):
    users = [make_user() for _ in range(3)]
    play_rated(users[:2])
    play_rated(users)
    assert Rating.objects.get(user=users[0], ladder=Ladder.ALL).games == 2
    assert Rating.objects.get(user=users[0], ladder=Ladder.TWO).games == 1
    assert Rating.objects.get(user=users[0], ladder=Ladder.THREE).games == 1
    assert not Rating.objects.filter(user=users[2], ladder=Ladder.TWO).exists()
    # The 3-player game started from the 2-player ladder's rating on "all games" only.
    three = RatingChange.objects.get(user=users[0], ladder=Ladder.THREE)
    assert (three.mu_before, three.sigma_before) == (MODEL.mu, MODEL.sigma)


def test_an_unrated_game_changes_no_rating(start_game):
    game = start_game(2, short_game=True)
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_player_who_left_by_timeouts_still_gets_his_place(make_user):
    """A seat on autopilot (two deadlines missed) is played to the end by the site and rated at
    the place it finished, like any other."""
    users = [make_user() for _ in range(3)]
    game = open_rated(users)
    gone = game.seats.get(index=1)
    Seat.objects.filter(pk=gone.pk).update(autopilot=True, timeouts=2)
    play(game)
    game.refresh_from_db()
    place = next(place for place, seat, _ in game.standings if seat == 1)
    for ladder in (Ladder.ALL, Ladder.THREE):
        assert RatingChange.objects.get(game=game, user=gone.user, ladder=ladder).place == place
    assert Rating.objects.get(user=gone.user, ladder=Ladder.ALL).games == 1


def test_fewer_than_five_rated_games_is_provisional(make_user):
    users = [make_user() for _ in range(2)]
    for _ in range(4):
        play_rated(users)
    rating = Rating.objects.get(user=users[0], ladder=Ladder.TWO)
    assert rating.games == 4 and rating.provisional
    play_rated(users)
    rating.refresh_from_db()
    assert rating.games == 5 and not rating.provisional


def test_the_number_shown_is_the_ordinal_on_a_scale_where_a_new_player_stands_at_1000():
    assert shown(MODEL.mu, MODEL.sigma) == 1000
    assert shown_uncertainty(MODEL.sigma) == 167
    assert shown(30.0, 2.0) == 1000 + 20 * (30 - 6)
    assert shown(30.0, 1.0) > shown(30.0, 2.0) > shown(29.0, 2.0)


def test_a_game_is_rated_in_the_transaction_that_finishes_it(make_user, monkeypatch):
    """Should the rating fail, the move that would end the game fails whole: nothing half done."""
    from ratings import rating

    users = [make_user() for _ in range(2)]
    game = open_rated(users)

    def broken(*args, **kwargs):
        raise RuntimeError("the rating failed")

    monkeypatch.setattr(after_save, "rate_finished_game", broken)
    with pytest.raises(RuntimeError):
        play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.finished_at is None
    monkeypatch.setattr(after_save, "rate_finished_game", rating.rate_finished_game)
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert RatingChange.objects.filter(game=game).count() == 4
