"""A move posted from a game page is answered with the page's new view (games/web/views.py `move`),
and the socket's notice of the same version comes before that answer (it is sent when the move is
stored): the mover's page must not fetch that view again, which rendered the mover's view twice
for every move (static/game.js `posting`). The other seat's page fetches nothing either: its socket
brings its own view in a frame (games/live/own_views.py)."""

import pytest

from tests.support.browser import act, short_game_of_two, version, wait_for_version

pytestmark = pytest.mark.browser


def test_the_movers_page_shows_the_moves_answer_and_does_not_fetch_the_same_view_again(live_site, browser):
    isabel, felipe, game_url = short_game_of_two(browser, live_site, "answerisabel", "answerfelipe")
    fetched = {"isabel": [], "felipe": []}
    framed = {"isabel": [], "felipe": []}

    def counting(urls):
        return lambda request: "/partials/play/" in request.url and urls.append(request.url)

    def frames(payloads):
        # The socket's binary frames: views (its text messages are versions and chat notices).
        return lambda socket: socket.on(
            "framereceived", lambda payload: isinstance(payload, bytes) and payloads.append(len(payload))
        )

    for name, page in (("isabel", isabel), ("felipe", felipe)):
        page.on("request", counting(fetched[name]))
        page.on("websocket", frames(framed[name]))
    # The sockets opened before the listeners: opened again, as after a lost connection.
    for page in (isabel, felipe):
        page.reload()

    for _ in range(3):
        mover, other = (isabel, felipe) if isabel.locator("#decision-panel").count() else (felipe, isabel)
        mover_name = "isabel" if mover is isabel else "felipe"
        before = {name: len(urls) for name, urls in fetched.items()}
        frames_before = {name: len(payloads) for name, payloads in framed.items()}
        start = version(mover)
        act(mover)
        wait_for_version(mover, start + 1)
        wait_for_version(other, version(mover))
        # Time for a late fetch of the mover's page, had its notice started one.
        mover.wait_for_timeout(1500)
        assert version(mover) == version(other)
        assert len(fetched[mover_name]) == before[mover_name], fetched[mover_name]
        other_name = "felipe" if mover_name == "isabel" else "isabel"
        assert len(fetched[other_name]) == before[other_name], fetched[other_name]
        assert len(framed[other_name]) > frames_before[other_name]
