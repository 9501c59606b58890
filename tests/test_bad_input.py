"""Input that used to make the site answer 500: each is refused with a 4xx and a reason, and
changes nothing."""

import json
from urllib.parse import urlencode

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from elgrande_site.asgi import application
from tests.support.helpers import HOST, HTMX, ORIGIN, logged_in, snapshot, user_at

pytestmark = pytest.mark.django_db

UNSTORABLE = b"cannot hold NUL characters or lone surrogates"
HUGE = "9" * 5000


def post_fields(client, game, fields):
    """Post the way a browser and htmx do: URL-encoded."""
    body = urlencode({**fields, "expected_version": game.version})
    return client.post(
        reverse("move", args=[game.pk]), body, content_type="application/x-www-form-urlencoded", **HTMX
    )


def a_good_bid(**extra):
    """A bid the engine accepts (it ignores unknown keys), with something more in it."""
    return json.dumps({"type": "bid", "card": 9, **extra})


@pytest.mark.parametrize(
    "move",
    [
        a_good_bid(note="a\x00b"),
        a_good_bid(**{"no\x00te": 1}),
        a_good_bid(note=[{"deep": ["\x00"]}]),
        json.dumps({"type": "bid\x00", "card": 9}),
        # Lone surrogates arrive as JSON escapes: they decode to text no UTF-8 can encode.
        a_good_bid()[:-1] + ', "note": "\\ud800"}',
        a_good_bid()[:-1] + ', "\\udfff": 1}',
        a_good_bid()[:-1] + ', "note": {"x": ["ok", "\\udc80"]}}',
    ],
)
def test_a_move_holding_a_nul_or_a_lone_surrogate_anywhere_is_refused(start_game, move):
    game = start_game(3)
    client = logged_in(user_at(game, game.to_act[0]))
    before = snapshot(game)
    response = post_fields(client, game, {"move": move})
    assert response.status_code == 400
    assert UNSTORABLE in response.content
    assert snapshot(game) == before


@pytest.mark.parametrize(
    "fields",
    [
        {"move_form": "place", "to-ara\x00gon": "1"},
        {"move_form": "special", "region": "ara\x00gon"},
        {"move_form": "cou\x00rt"},
        {"move": a_good_bid(), "unused\x00": "x"},
        {"move": a_good_bid(), "unused": "\x00"},
    ],
)
def test_form_fields_holding_a_nul_are_refused(start_game, fields):
    game = start_game(3)
    client = logged_in(user_at(game, game.to_act[0]))
    before = snapshot(game)
    response = post_fields(client, game, fields)
    assert response.status_code == 400
    assert UNSTORABLE in response.content
    assert snapshot(game) == before


def test_a_refused_nul_is_shown_escaped_in_the_message(start_game):
    game = start_game(3)
    response = post_fields(logged_in(user_at(game, game.to_act[0])), game, {"move": a_good_bid(note="x\x00y")})
    assert b"x\\x00y" in response.content
    assert b"\x00" not in response.content


@pytest.mark.parametrize(
    "fields",
    [
        {"move_form": "special", f"plan-{HUGE}-from": "aragon", f"plan-{HUGE}-to": "galicia"},
        {"move_form": "special", f"order-{HUGE}": "red"},
        {"move_form": "special", f"picks-{HUGE}-colour": "red", f"picks-{HUGE}-region": "aragon"},
        {"move_form": "special", "plan-0-from": "aragon", "plan-1000-from": "aragon"},
    ],
)
def test_a_form_row_number_with_too_many_digits_is_refused(start_game, fields):
    game = start_game(3)
    client = logged_in(user_at(game, game.to_act[0]))
    before = snapshot(game)
    response = post_fields(client, game, fields)
    assert response.status_code == 400
    assert b"This move could not be read (row " in response.content
    assert b"does not exist" in response.content
    assert snapshot(game) == before


def moving_caballeros(state):
    from games.engine import to_act, view_for

    if state.is_over or not to_act(state):
        return False
    decision = view_for(state, to_act(state)[0]).get("decision") or {}
    return decision.get("kind") == "action" and (decision.get("special") or {}).get("action") == "move_caballeros"


@pytest.mark.parametrize("row", ["²", "٩" * 5000, "１", "0x1"])
def test_a_row_number_that_is_no_ascii_number_names_no_row(game_at, row):
    # str.isdigit() takes superscripts and other scripts' digits, which int() refuses or, past
    # 4,300 of them, cannot convert: such a field names no row, as any unknown field.
    game = game_at(moving_caballeros)
    client = logged_in(user_at(game, game.to_act[0]))
    before = snapshot(game)
    response = post_fields(client, game, {"move_form": "special", f"plan-{row}-from": "aragon"})
    assert response.status_code == 400
    assert b"Say which caballeros to move." in response.content
    assert snapshot(game) == before


def test_rows_numbered_up_to_999_are_still_read():
    from django.http import QueryDict

    from games.moves.moves_forms import read_move

    special = {"action": "move_caballeros", "sources": ["aragon"], "destinations": ["galicia"], "colours": ["red"],
               "most": 5, "own": [0, 5], "foreign": [0, 0], "one_source": False}
    view = {
        "colour": "red",
        "regions": [{"id": "aragon", "name": "Aragon"}, {"id": "galicia", "name": "Galicia"}],
        "castillo": {"id": "castillo", "name": "Castillo"},
        "players": [{"colour": "red", "label": "R", "user": None}],
        "decision": {"kind": "action", "can_place": False, "can_special": True, "special": special},
    }
    post = QueryDict(mutable=True)
    post.update({"move_form": "special", "expected_version": "7", "plan-999-from": "aragon",
                 "plan-999-to": "galicia", "plan-999-colour": "red"})
    form = read_move(post, view, 7)
    assert form.is_valid(), form.errors
    row = {"from": "aragon", "to": "galicia", "colour": "red", "count": 1}
    assert form.move() == {"type": "special", "plan": [row]}


@pytest.mark.parametrize("token", ["%C3%A9", "%E2%82%AC" * 20, "abc%C3%A9def"])
def test_a_non_ascii_invitation_token_is_not_found_with_a_reason(client, start_game, token):
    game = start_game(3, private=True)
    response = client.get(f"/games/{game.pk}/invitation/{token}/")
    assert response.status_code == 404
    assert b"This invitation link is not valid." in response.content
    assert client.get(reverse("game", args=[game.pk])).status_code == 404


def test_the_true_invitation_still_opens_the_private_game(client, start_game):
    game = start_game(3, private=True)
    assert client.get(reverse("invitation", args=[game.pk, game.invite_token])).status_code == 302
    assert client.get(reverse("game", args=[game.pk])).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/games/99999999999999999999/",
        "/games/99999999999999999999/partials/play/",
        "/games/9223372036854775808/",
        "/games/99999999999999999999/invitation/abc/",
    ],
)
def test_a_game_id_too_large_for_the_database_is_not_found(client, path):
    response = client.get(path)
    assert response.status_code == 404


def test_a_move_to_a_game_id_too_large_for_the_database_is_not_found(make_user):
    response = logged_in(make_user()).post("/games/99999999999999999999/move/", {"move": "{}", "expected_version": 0})
    assert response.status_code == 404


def test_an_enormous_post_is_refused_and_changes_nothing(start_game, caplog):
    game = start_game(3)
    client = logged_in(user_at(game, game.to_act[0]))
    before = snapshot(game)
    response = post_fields(client, game, {"move": a_good_bid(note="x" * 3_000_000)})
    assert response.status_code == 400
    assert b"could not read this request" in response.content
    response = post_fields(client, game, {f"field{number}": "1" for number in range(2000)})
    assert response.status_code == 400
    assert snapshot(game) == before


def test_a_nul_in_the_username_at_log_in_is_a_form_error(make_user, password):
    make_user("alice")
    client = Client()
    response = client.post(reverse("account_login"), {"login": "ali\x00ce", "password": password})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_a_login_longer_than_any_address_is_a_form_error(make_user, password):
    # SQLite failed the case-insensitive look-up of such a login with a 500.
    make_user("alice")
    client = Client()
    response = client.post(reverse("account_login"), {"login": "a" * 100_000, "password": password})
    assert response.status_code == 200
    assert "Ensure this value has at most 254 characters (it has 100000)." in response.content.decode()
    assert "_auth_user_id" not in client.session
    response = client.post(reverse("account_login"), {"login": "alice", "password": password})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/ws/", "/ws/games/abc/", "/ws/games/1/extra/", "/", "/ws/games/%C3%A9/"])
async def test_sockets_on_unrouted_paths_are_refused_without_an_error(path, caplog):
    communicator = WebsocketCommunicator(application, path, headers=[HOST, ORIGIN])
    connected, _ = await communicator.connect()
    assert not connected
    assert not [record for record in caplog.records if record.levelname in ("ERROR", "CRITICAL")]


@pytest.mark.parametrize(
    "path, origin",
    [("/ws/nowhere/", ORIGIN), ("/ws/games/1/", (b"origin", b"http://evil.example")), ("/ws/games/1/", None),
     ("/ws/games/1/", (b"origin", b"http://testserver:9999")), ("/ws/games/1/", (b"origin", b"https://testserver"))],
)
async def test_a_socket_refused_for_its_path_or_its_origin_is_refused_without_the_channel_layer(
    path, origin, settings, caplog
):
    # A Redis where nothing listens: a refusal that opened a receive would end in a connection error.
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "elgrande_site.channel_layers.WaitingRedisChannelLayer",
            "CONFIG": {"hosts": [{"address": "redis://127.0.0.1:9/0", "socket_connect_timeout": 1}]},
        }
    }
    communicator = WebsocketCommunicator(application, path, headers=[HOST, origin] if origin else [HOST])
    assert await communicator.connect() == (False, 1000)
    await communicator.disconnect()
    assert communicator.future.done() and communicator.future.exception() is None
    assert not [record for record in caplog.records if record.levelname in ("ERROR", "CRITICAL")]


@pytest.mark.django_db(transaction=True)
async def test_a_socket_for_a_game_id_too_large_for_the_database_is_refused(caplog):
    communicator = WebsocketCommunicator(application, "/ws/games/99999999999999999999/", headers=[HOST, ORIGIN])
    connected, code = await communicator.connect()
    assert (connected, code) == (False, 4404)
    assert not [record for record in caplog.records if record.levelname in ("ERROR", "CRITICAL")]


# A quoted cookie value's octal escapes are decoded: this session key holds a NUL.
FORGED_SESSION = 'sessionid="abcdefgh\\000ijklmnop"'


def test_a_forged_session_cookie_holding_a_nul_counts_as_logged_out(start_game):
    game = start_game(3)
    client = Client(HTTP_COOKIE=FORGED_SESSION)
    for path in [reverse("lobby"), reverse("game", args=[game.pk]), reverse("account_login")]:
        response = client.get(path)
        assert response.status_code == 200
        assert not response.wsgi_request.user.is_authenticated
    assert client.post(reverse("join", args=[game.pk])).status_code == 302


def test_a_true_session_cookie_still_logs_in(start_game):
    game = start_game(3)
    client = logged_in(user_at(game, 0))
    assert client.get(reverse("lobby")).wsgi_request.user == user_at(game, 0)


@pytest.mark.django_db(transaction=True)
async def test_a_socket_with_a_forged_session_cookie_is_a_stranger_s(start_game, caplog):
    from channels.db import database_sync_to_async

    public = await database_sync_to_async(start_game)(2)
    private = await database_sync_to_async(start_game)(2, private=True)
    cookie = (b"cookie", FORGED_SESSION.encode())
    communicator = WebsocketCommunicator(application, f"/ws/games/{public.pk}/", headers=[HOST, ORIGIN, cookie])
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()
    communicator = WebsocketCommunicator(application, f"/ws/games/{private.pk}/", headers=[HOST, ORIGIN, cookie])
    assert await communicator.connect() == (False, 4404)
    assert not [record for record in caplog.records if record.levelname in ("ERROR", "CRITICAL")]


@pytest.mark.parametrize("path", ["/players/a%00b/", "/games/{pk}/invitation/ab%00cd/", "/accounts/confirm-email/%00/"])
def test_an_address_holding_a_nul_is_a_bad_request(client, make_user, start_game, path):
    make_user("a")
    game = start_game(3, private=True)
    response = client.get(path.replace("{pk}", str(game.pk)))
    assert response.status_code == 400
    assert b"could not read this request" in response.content


def test_a_player_s_page_is_still_found_by_name(client, make_user):
    make_user("alice")
    assert client.get("/players/alice/").status_code == 200


def every_path(patterns=None, prefix=""):
    """Every address of the site, its <…> parts filled with a value of their kind."""
    import re

    from django.urls import URLPattern, URLResolver, get_resolver

    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if str(entry.pattern).startswith("^"):
            continue  # a regular expression of allauth's, also routed by a plain path
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from every_path(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield "/" + re.sub(r"<(?:(\w+):)?\w+>", lambda m: "1" if m.group(1) == "int" else "x", route)


def test_a_form_posted_in_another_charset_is_a_bad_request_on_every_address(start_game, settings):
    """Django refuses a form body that is not UTF-8, and its 400 page read the body again for its
    CSRF token: the request ended in a server error."""
    settings.DEBUG = False
    game = start_game(3)
    # As a browser posts: with the CSRF cookie, so that the check reads the form for its token.
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(user_at(game, 0))
    client.get(reverse("lobby"))
    assert "csrftoken" in client.cookies
    before = snapshot(game)
    paths = sorted(set(every_path()))
    assert "/accounts/login/" in paths and f"/games/{1}/move/" in paths
    answers = {}
    for path in paths:
        response = client.post(path, "a=b", content_type="application/x-www-form-urlencoded; charset=utf-16")
        answers[path] = response.status_code, b"could not read this request" in response.content
    assert {path: answer for path, answer in answers.items() if answer != (400, True)} == {}
    assert snapshot(game) == before


# --- moves posted as JSON: only the vocabulary's shape is taken, and stored as cleaned ---------------

TOO_BIG = 10**20


def nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def deciding(kind, special=None, stage=None):
    """A position where the seat to act has a `kind` decision (view_for's), with a special action
    of `special` still open to it, or a pending action at `stage`."""

    def holds(state):
        from games.engine import to_act, view_for
        from games.moves.move_shapes import special_action

        if state.is_over or not to_act(state):
            return False
        seat = to_act(state)[0]
        decision = view_for(state, seat).get("decision") or {}
        if decision.get("kind") != kind:
            return False
        if special is not None:
            return not state.special_done and special_action(state, seat) == special and a_good_move(state, seat)
        return True

    return holds


def a_good_move(state, seat):
    """A legal move of the seat's decision, and a special one where a special action is open."""
    import random

    from games.engine import legal_moves, random_move
    from games.engine.cards import CARDS
    from games.engine.random_play import random_share, random_special

    rng = random.Random(seat)
    if state.phase == "action" and not state.special_done:
        fields = random_special(state, seat, CARDS[state.taken[seat]], rng)
        return {"type": "special", **fields} if fields else None
    if state.phase == "special" and state.action["stage"] == "share":
        return random_share(state, seat, rng)
    if state.phase == "action":
        return random_move(state, seat, rng)
    return legal_moves(state, seat)[0]


# Spoilers any move can be given: an extra field holding what no export can write, or much.
ANY_MOVE = [
    (lambda move: {**move, "note": TOO_BIG}, "'note'"),
    (lambda move: {**move, "note": nested(300)}, "'note'"),
    (lambda move: {**move, "note": list(range(200))}, "'note'"),
    (lambda move: {**move, "card": 99} if "card" not in move else {**move, "cut": 1}, "may not have here"),
]


@pytest.mark.parametrize(
    ("position", "spoilers"),
    [
        (deciding("bid"), [(lambda m: {**m, "card": TOO_BIG}, "'card' must be a whole number from 0 to 999")]),
        (deciding("card"), [(lambda m: {**m, "card": nested(300)}, "'card' must be a name")]),
        (
            deciding("court"),
            [
                (lambda m: {**m, "count": TOO_BIG}, "'count' must be a whole number from 0 to 30"),
                (lambda m: {**m, "from_regions": {"aragon": TOO_BIG}}, "'from_regions'.aragon must be a whole"),
                (lambda m: {**m, "from_regions": [["aragon", 1]] * 12}, "'from_regions' must map at most 11"),
            ],
        ),
        (
            deciding("action", special="move_caballeros"),
            [
                (lambda m: {**m, "plan": [{**m["plan"][0], "junk": TOO_BIG}]}, "'plan'[0].'junk'"),
                (lambda m: {**m, "plan": m["plan"] * 12}, "'plan' must be a list of at most 11 items"),
                (lambda m: {**m, "plan": [{**m["plan"][0], "count": TOO_BIG}]}, "must be a whole number from 1"),
                (lambda m: {**m, "plan": nested(300)}, "'plan'[0] must be a JSON object"),
                (lambda m: {"type": "place", "to": {"aragon": 1}, "plan": m["plan"]}, "'plan'"),
            ],
        ),
        (
            deciding("action", special="order"),
            [
                (lambda m: {**m, "order": ["red"] * 12}, "'order' must be a list of at most 11 items"),
                (lambda m: {**m, "order": [TOO_BIG]}, "'order'[0] must be a name"),
                (lambda m: {**m, "region": "aragon"}, "'region'"),
            ],
        ),
        (
            deciding("action", special="score_area"),
            [
                (lambda m: {**m, "region": TOO_BIG}, "'region' must be a name"),
                (lambda m: {**m, "to": "aragon"}, "'to'"),
            ],
        ),
        (
            deciding("action", special="move_king"),
            [(lambda m: {**m, "to": nested(300)}, "'to' must be a name")],
        ),
        (
            deciding("action", special="redistribute"),
            [(lambda m: {**m, "to": {"aragon": TOO_BIG}}, "'to'.aragon must be a whole number")],
        ),
        (
            deciding("action"),
            [
                (lambda m: {"type": "place", "to": {"castillo": TOO_BIG}}, "'to'.castillo must be a whole"),
                (lambda m: {"type": "place", "to": {}, "card": 99}, "'card'"),
                (lambda m: {"type": "decline", "note": TOO_BIG}, "'note'"),
            ],
        ),
        (
            deciding("veto"),
            [(lambda m: {"type": "veto", "cut": TOO_BIG}, "'cut' must be a whole number from 0 to 999")],
        ),
        (deciding("region"), [(lambda m: {**m, "region": nested(300)}, "'region' must be a name")]),
        (deciding("castillo"), [(lambda m: {**m, "region": list(range(200))}, "'region' must be a name")]),
        (
            deciding("share"),
            [
                (lambda m: {**m, "from": {"court": TOO_BIG}}, "'from'.court must be a whole number"),
                (lambda m: {**m, "from": nested(300)}, "'from' must map at most 11 areas"),
            ],
        ),
    ],
    ids=[
        "bid", "card", "court", "plan", "order", "score_area", "king", "own_region", "placement", "veto", "region",
        "castillo", "share",
    ],
)
def test_a_move_beyond_its_shape_is_refused_with_a_reason_and_nothing_stored(game_at, position, spoilers):
    """At each kind of decision, a move that the engine would have taken (it ignores fields it
    does not read) but that holds more than the move's shape: a 400 naming the field, nothing
    stored; the same move without the junk is taken, and stored exactly as the vocabulary has it."""
    from html import unescape

    from games.models import Move

    game = game_at(position)
    state = state_of(game)
    seat = to_act_of(state)
    move = a_good_move(state, seat)
    client = logged_in(user_at(game, seat))
    before = snapshot(game)
    for spoil, words in [*ANY_MOVE, *spoilers]:
        spoiled = spoil(move)
        response = post_fields(client, game, {"move": json.dumps(spoiled)})
        page = unescape(response.content.decode())
        assert response.status_code == 400, (spoiled, page)
        assert words in page, (spoiled, page)
        assert snapshot(game) == before
    assert post_fields(client, game, {"move": json.dumps(move)}).status_code == 200
    assert Move.objects.filter(game=game).order_by("-version").first().move == move


def state_of(game):
    from tests.support.helpers import state_of as state_of_game

    return state_of_game(game)


def to_act_of(state):
    from games.engine import to_act

    return to_act(state)[0]


def test_the_services_store_a_move_as_its_shape_and_refuse_anything_more(start_game):
    """Whoever calls submit_move (the page, a program, a test), the move stored is the cleaned one:
    a field the engine would ignore is refused there too, and nothing changes."""
    from games.play import moving
    from games.play.errors import GameError

    game = start_game(3)
    seat = game.to_act[0]
    before = snapshot(game)
    with pytest.raises(GameError, match="'note'"):
        moving.submit_move(
            game,
            user=user_at(game, seat),
            move={"type": "bid", "card": 9, "note": TOO_BIG},
            expected_version=game.version,
        )
    assert snapshot(game) == before
