"""A move posted from a game page whose socket takes frames asks for no view in its answer (a 204
with the new version, games/web/views.py `move`): the mover's socket brings that view, rendered
once, and the mover's page fetches nothing, nor does it fetch on the notice of its own move's
version (static/game.js `posting`). The other seat's page fetches nothing either: its socket
brings its own view in a frame (games/live/own_views.py)."""

import re

import pytest

from tests.support.browser import act, shoot, short_game_of_two, version, wait_for_version

pytestmark = pytest.mark.browser

# How long a page waits for its move's view by its socket before fetching it (static/game.js).
VIEW_WAIT_MS = 5000


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
        # The mover's page asked for no view in its move's answer (its socket takes frames): its
        # socket brought it.
        assert len(framed[mover_name]) > frames_before[mover_name]


def test_a_movers_page_whose_view_does_not_come_by_its_socket_fetches_it(live_site, browser):
    isabel, felipe, _game_url = short_game_of_two(browser, live_site, "lostisabel", "lostfelipe")
    mover = isabel if isabel.locator("#decision-panel").count() else felipe
    fetched = []
    mover.on("request", lambda request: "/partials/play/" in request.url and fetched.append(request.url))

    def without_frames(route):
        # The server's binary frames (views) never reach the page; its notices do.
        server = route.connect_to_server()
        server.on_message(lambda message: None if isinstance(message, bytes) else route.send(message))

    mover.route_web_socket(re.compile(r"/ws/games/"), without_frames)
    # The page's clock, moved on below past the wait for the view instead of waiting it out.
    mover.clock.install()
    mover.reload()
    start = version(mover)
    act(mover)
    # Until the view comes, the answered panel is shown busy and takes no click.
    mover.wait_for_selector('#play[aria-busy="true"]')
    shoot(mover, "move-answer-busy", sizes=[{"width": 1366, "height": 900}, {"width": 390, "height": 844}],
          parts=["#decision-panel"], full_page=False, in_view="#decision-panel")
    form = mover.locator("#decision-panel form").first
    assert form.evaluate("form => getComputedStyle(form).pointerEvents") == "none"
    # The answer (a 204) brought no view and the frame does not come: the page fetches it once its
    # wait for the view (static/game.js VIEW_WAIT_MS), set when the answer landed, is over.
    mover.clock.fast_forward(VIEW_WAIT_MS)
    wait_for_version(mover, start + 1)
    assert len(fetched) == 1, fetched
    assert mover.locator("#play").get_attribute("aria-busy") is None
