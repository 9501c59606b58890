"""A live sitting of a whole round of a 3-player slow game: the two players whose pages stay open get
no "your move" mail; the one who closes their page between decisions gets one for each decision that
waited for them past the grace (games/infra/presence.py), then opens the game and plays it."""

import re
import time

import pytest

from tests.support.browser import MOVE_TIMEOUT, act, seeded, sign_up, site_shell, version, wait_for_version

pytestmark = pytest.mark.browser

GRACE = 2
# A short grace and a sweep every second, so that a mail that waited goes soon after it.
SITE_ENV = {"YOUR_MOVE_GRACE_SECONDS": str(GRACE), "DEADLINE_SWEEP_SECONDS": "1"}

# What the site's database says: the game's seats to act and its "your move" mails sent, by player.
STATUS = """
import json
from games.models import Game, Move, Notification
game = Game.objects.get(pk={game})
sent, moves, started = {{}}, {{}}, {{}}
for name in ("isabel", "felipe", "carlos"):
    moves[name] = Move.objects.filter(game=game, seat__user__username=name).count()
    started[name] = Notification.objects.filter(
        game=game, user__username=name, kind="game_started", status="sent"
    ).count()
    sent[name] = Notification.objects.filter(
        game=game, user__username=name, kind__in=["your_move", "live_your_move"], status="sent"
    ).count()
seats = {{seat.user.username: seat.index for seat in game.seats.select_related("user")}}
live = game.time_per_move < 3600
print(json.dumps({{
    "to_act": game.to_act, "seats": seats, "sent": sent, "moves": moves, "started": started, "live": live,
}}))
"""
VERIFIED = (
    "from allauth.account.models import EmailAddress; "
    "EmailAddress.objects.filter(user__username__in=['isabel', 'felipe', 'carlos']).update(verified=True)"
)


@pytest.fixture
def site_status(live_site_env):
    """What the site's database says of a game now (STATUS), read in one shell kept open: the test
    reads it every tenth of a second or so while it waits."""
    with site_shell(live_site_env) as run:
        yield lambda game: run(STATUS.format(game=game))


def round_of(page):
    return int(re.search(r"round (\d+) of", page.locator("#map-title").text_content()).group(1))


def test_players_with_the_game_open_get_no_mail_and_one_who_left_gets_one_per_decision(
    live_site, live_site_env, browser, site_status
):
    contexts = {name: browser.new_context() for name in ("isabel", "felipe", "carlos")}
    isabel = sign_up(contexts["isabel"], live_site, "isabel")
    felipe = sign_up(contexts["felipe"], live_site, "felipe")
    carlos = sign_up(contexts["carlos"], live_site, "carlos")
    seeded(live_site_env, VERIFIED)

    isabel.goto(f"{live_site}/games/new/")
    isabel.select_option("select[name=num_players]", "3")
    isabel.check("input[name=short_game][value=True]")
    isabel.uncheck("input[name=veto]")
    isabel.click("main form button[type=submit]")
    isabel.wait_for_url(re.compile(r"/games/\d+/$"))
    game_url = isabel.url
    game = int(re.search(r"/games/(\d+)/$", game_url).group(1))
    felipe.goto(game_url)
    felipe.get_by_role("button", name="Join").click()
    felipe.get_by_role("button", name="Join").wait_for(state="detached")
    carlos.goto(game_url)
    carlos.get_by_role("button", name="Join").click()
    # The third seat starts the game.
    carlos.wait_for_selector("svg.map")
    # Carlos leaves; the others keep the game open all along.
    carlos.close()
    open_pages = {"isabel": isabel, "felipe": felipe}
    for page in open_pages.values():
        page.wait_for_selector("svg.map", timeout=MOVE_TIMEOUT)
    assert site_status(game)["live"] is False

    waited = 0
    for _ in range(400):
        if round_of(isabel) > 1 or isabel.locator("p.over").count():
            break
        acting = [page for page in open_pages.values() if page.locator("#decision-panel").count()]
        if acting:
            page = acting[0]
            before = version(page)
            act(page)
            wait_for_version(page, before + 1)
            continue
        now = site_status(game)
        if now["seats"]["carlos"] not in now["to_act"]:
            isabel.wait_for_timeout(100)
            continue
        if not sum(now["moves"].values()) and now["started"]["carlos"]:
            # The game's first decision is his, and the start mail told him of it: no other comes.
            # (Had his page said he was at the table when it started, there is no start mail, and
            # the decision waits for him past the grace as any other.)
            assert now["sent"]["carlos"] == 0, now
        else:
            # The game waits for Carlos, whose page is closed: his mail comes once the grace is over.
            waited += 1
            deadline = time.monotonic() + 30
            while now["sent"]["carlos"] < waited and time.monotonic() < deadline:
                isabel.wait_for_timeout(250)
                now = site_status(game)
            assert now["sent"]["carlos"] == waited, now
        # He follows it, plays what is his, and closes the page again.
        carlos = contexts["carlos"].new_page()
        carlos.goto(game_url)
        carlos.wait_for_selector("svg.map")
        while carlos.locator("#decision-panel").count():
            before = version(carlos)
            act(carlos)
            wait_for_version(carlos, before + 1)
        carlos.close()
    else:
        pytest.fail("the round did not end")

    # The next round may begin with a decision of his, which waits for him past the grace too; any
    # mail still waiting for its grace has gone by the end of this pause.
    now = site_status(game)
    if now["seats"]["carlos"] in now["to_act"]:
        waited += 1
    time.sleep(GRACE + 2)
    final = site_status(game)
    sent, moves = final["sent"], final["moves"]
    print(f"\n\"your move\" mails in one round: {sent} for the decisions {moves}; pages open: isabel, "
          f"felipe; carlos's closed, the game waited for him {waited} times")
    assert waited >= 1
    assert (sent["isabel"], sent["felipe"]) == (0, 0)
    assert sent["carlos"] == waited
    for context in contexts.values():
        context.close()
