"""A move posted from a game page is answered with the page's new view (games/web/views.py `move`),
and the socket's notice of the same version comes before that answer (it is sent when the move is
stored): the mover's page must not fetch that view again, which rendered the mover's view twice
for every move (static/game.js `posting`). The other seat's page still fetches its own."""

import pytest

from tests.support.browser import act, short_game_of_two, version, wait_for_version

pytestmark = pytest.mark.browser


def test_the_movers_page_shows_the_moves_answer_and_does_not_fetch_the_same_view_again(live_site, browser):
    isabel, felipe, game_url = short_game_of_two(browser, live_site, "answerisabel", "answerfelipe")
    fetched = {"isabel": [], "felipe": []}

    def counting(urls):
        return lambda request: "/partials/play/" in request.url and urls.append(request.url)

    for name, page in (("isabel", isabel), ("felipe", felipe)):
        page.on("request", counting(fetched[name]))

    for _ in range(3):
        mover, other = (isabel, felipe) if isabel.locator("#decision-panel").count() else (felipe, isabel)
        mover_name = "isabel" if mover is isabel else "felipe"
        before = {name: len(urls) for name, urls in fetched.items()}
        start = version(mover)
        act(mover)
        wait_for_version(mover, start + 1)
        wait_for_version(other, version(mover))
        # Time for a late fetch of the mover's page, had its notice started one.
        mover.wait_for_timeout(1500)
        assert version(mover) == version(other)
        assert len(fetched[mover_name]) == before[mover_name], fetched[mover_name]
        other_name = "felipe" if mover_name == "isabel" else "isabel"
        assert len(fetched[other_name]) > before[other_name]
