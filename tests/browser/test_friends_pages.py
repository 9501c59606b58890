"""In a real browser, wide and narrow: the lobby's friends list (who is online, their open games),
the open games with their creators' ratings, quick game, a profile's follow button, and name
completion in the invitation form; none wider than the screen."""

import pytest

from tests.support.browser import fits_the_screen, log_in, seeded, shoot

pytestmark = pytest.mark.browser

SIZES = [(1366, 900), (390, 844)]


@pytest.fixture(scope="module")
def site(live_site_env, live_site):
    seeded(live_site_env, "from tests.support.friends_seed import seed; seed()")
    return live_site


@pytest.mark.parametrize("width,height", SIZES)
def test_the_lobby_shows_friends_online_their_games_and_the_creators_ratings(site, browser, width, height):
    # bea has her lobby open: she is online.
    beas = browser.new_context(viewport={"width": width, "height": height})
    log_in(beas, site, "bea")
    context = browser.new_context(viewport={"width": width, "height": height})
    page = log_in(context, site, "ana")
    page.wait_for_timeout(300)
    page.reload()
    friends = page.locator("#friends li")
    assert friends.count() == 2
    assert "bea" in friends.nth(0).inner_text() and "online now" in friends.nth(0).inner_text()
    assert "away" in friends.nth(1).inner_text()
    # Her public game, not her private one.
    assert friends.nth(0).locator(".friend-games a").count() == 1
    ratings = page.locator("#open-games td.rating").all_inner_texts()
    assert any(text.strip().split()[-1].isdigit() for text in ratings)
    assert any("not rated yet" in text for text in ratings)
    assert page.locator("#quick-game button[type=submit]").is_visible()
    assert fits_the_screen(page)
    shoot(page, "lobby-friends")
    beas.close()
    context.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_following_from_a_profile_and_completing_a_name_while_inviting(site, browser, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = log_in(context, site, "cid")
    page.goto(f"{site}/players/dan/")
    page.get_by_role("button", name="Follow").click()
    page.wait_for_url(f"{site}/players/dan/")
    assert page.get_by_role("button", name="Unfollow").is_visible()
    assert fits_the_screen(page)
    shoot(page, "profile-followed")
    page.get_by_role("button", name="Unfollow").click()
    page.wait_for_url(f"{site}/players/dan/")

    # A private game of cid's: the invitation form offers the names as one types.
    page.goto(f"{site}/games/new/")
    page.check("input[name=private]")
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{site}/games/*/")
    field = page.locator("input[name=who]")
    field.press_sequentially("be", delay=50)
    options = page.locator("#invitee-names option")
    options.first.wait_for(state="attached")
    assert sorted(options.evaluate_all("list => list.map(o => o.value)")) == ["bea", "beatriz"]
    assert fits_the_screen(page)
    shoot(page, "invite-names")
    context.close()


def test_quick_game_joins_the_oldest_open_game_with_the_chosen_options(site, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = log_in(context, site, "ana")
    form = page.locator("#quick-game form")
    form.locator("select[name=num_players]").select_option("3")
    form.get_by_role("button", name="Quick game").click()
    page.wait_for_url(f"{site}/games/*/")
    assert "You joined game" in page.locator(".messages").inner_text()
    assert "dan" in page.locator(".waiting").inner_text()
    shoot(page, "quick-game-joined")
    context.close()


def test_a_friend_with_a_long_name_and_open_games_fits_a_phone(site, live_site_env, browser):
    # The name and the games share the column beside the presence: a long name wraps there, and
    # the games after it, rather than squeezing them off the right of the screen.
    seeded(live_site_env, (
        "from accounts.models import Follow; from games.play import lifecycle; "
        "from tests.support.ratings_seed import player; "
        "eve, long = player('eve'), player('a_player_with_a_rather_long_name'); "
        "Follow.objects.create(follower=eve, followed=long); "
        "[lifecycle.create_game(long, num_players=4) for _ in range(2)]"
    ))
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = log_in(context, site, "eve")
    friend = page.locator("#friends li")
    assert friend.count() == 1 and friend.locator(".friend-games a").count() == 2
    assert fits_the_screen(page)
    # Each game, with its seats taken, stays whole on one line, right of the presence.
    presence = friend.locator(".presence").bounding_box()
    for game in friend.locator(".friend-game").all():
        box = game.bounding_box()
        assert box["x"] >= presence["x"] + presence["width"] and box["height"] < 1.6 * presence["height"] + 4
    shoot(page, "lobby-friend-long-name")
    context.close()
