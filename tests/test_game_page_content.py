"""The game page's content: the board shows each seat only what it may see, and the decision panel
offers exactly the legal choices, in forms that a browser submits as moves the engine accepts."""

import json
import random
import re

import pytest
from django.db.models import F
from django.http import QueryDict
from django.test import Client
from django.urls import reverse
from django.utils.html import escape, strip_tags

from games.engine import GameState, IllegalMove, apply_move, legal_moves, new_game, random_move, to_act, view_for
from games.engine.board import REGION_NAMES
from games.engine.cards import CARDS
from games.engine.random_play import random_share, random_special
from games.models import Game
from games.moves.moves_forms import SPECIAL_FORMS, read_move
from games.words.log_text import Names, step_html
from games.words.refusals import refusal_message
from games.words.texts import fill_view
from tests.support.game_forms import find_form, forms_in, move_buttons, special_fields
from tests.support.helpers import HTMX, find_position, logged_in, snapshot, state_of, user_at
from tests.support.page_positions import VETO_WINDOWS, castillo_moved, hidden_variant, position, positions

pytestmark = pytest.mark.django_db

# Decisions answered by a button carrying a whole move.
BUTTON_DECISIONS = [(kind, None) for kind in ("bid", "card", "region", "castillo", "counter_veto")] + sorted(
    VETO_WINDOWS
)

CSRF = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]*"')


def put_state(game, state):
    """Make the stored game stand at `state` (found by the engine alone, so no replay is needed),
    at a new version as every stored change is (games.play.saving._save): the pages are cached by version."""
    Game.objects.filter(pk=game.pk).update(
        state=state.to_json(), to_act=to_act(state), status=Game.Status.ACTIVE, version=F("version") + 1
    )
    game.refresh_from_db()


# put_state raises the version, which is no fact of anybody's.
VERSION = re.compile(r'((?:data-version="|name="expected_version" value="))\d+')
# The countdown says the seconds left, which differ from one render to the next.
COUNTDOWN = re.compile(r'(<time class="countdown"[^>]*data-left=")\d+(">)[^<]*')


def page(client, game):
    html = CSRF.sub(r"\1-", client.get(reverse("game", args=[game.pk])).content.decode())
    return VERSION.sub(r"\1-", COUNTDOWN.sub(r"\1-\2", html))


def panel_forms(client, game):
    html = client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    return forms_in(html)


# --- positions, found on first use by playing random games with the engine alone -----------------


@pytest.fixture
def at(start_game):
    """A game stored at one of the positions above, and the acting seat's logged-in client."""

    def build(key):
        state, seat = position(key)
        game = start_game(state.num_players, veto=state.veto_enabled)
        put_state(game, state)
        return game, seat, logged_in(user_at(game, seat))

    return build


def posted_move(game, seat, data):
    """The move the panel's form reads from `data`, as the move endpoint reads it."""
    post = QueryDict(mutable=True)
    for name, value in data.items():
        post[name] = str(value)
    form = read_move(post, view_for(state_of(game), seat), game.version)
    assert form.is_valid(), form.errors
    return form.move()


def submit(client, game, form, data):
    version = game.version
    response = client.post(form.action, data, **HTMX)
    game.refresh_from_db()
    assert response.status_code == 200, response.content.decode()
    assert game.version == version + 1, "the move was not applied"
    return response


# --- what each seat sees --------------------------------------------------------------------------


def provinces_shown(html, seat):
    return int(re.search(f'data-seat="{seat}".*?<dd class="provinces">(\\d+)<', html, re.S).group(1))


def without_provinces(html, seat):
    """The page with the seat's provinces count blanked."""
    return re.sub(f'(data-seat="{seat}".*?<dd class="provinces">)\\d+<', r"\1?<", html, count=1, flags=re.S)


@pytest.mark.parametrize("num_players, seed", [(2, 11), (3, 5), (4, 8), (5, 2)])
def test_no_page_shows_another_seats_hand_secret_choice_or_hidden_card(start_game, num_players, seed):
    game = start_game(num_players, veto=True)
    clients = {seat: logged_in(user_at(game, seat)) for seat in range(num_players)}
    clients[None] = Client()
    state = new_game(num_players=num_players, seed=seed, veto=True)
    rng = random.Random(seed)
    moves = 0
    while not state.is_over:
        secret = state.phase in ("special", "castillo") or any(e.get("private") for e in state.events)
        if moves % 29 == 0 or (secret and moves % 3 == 0):
            put_state(game, state)
            for viewer, client in clients.items():
                html = page(client, game)
                shown = sorted(int(n) for n in re.findall(r'data-hand-card="(\d+)"', html))
                assert shown == (sorted(state.hands[viewer]) if viewer is not None else [])
                if viewer is None:
                    continue
                variant = hidden_variant(state, viewer)
                put_state(game, variant)
                changed, expected = page(client, game), html
                for moved, change in castillo_moved(state, variant).items():
                    # The caballero went from (or to) the provinces, which every seat sees.
                    assert provinces_shown(changed, moved) == provinces_shown(html, moved) - change
                    changed, expected = without_provinces(changed, moved), without_provinces(expected, moved)
                assert changed == expected, f"seat {viewer} sees a private fact of another seat"
                put_state(game, state)
        seat = to_act(state)[0]
        state = apply_move(state, seat, random_move(state, seat, rng))
        moves += 1


def test_the_board_draws_every_region_with_its_pieces_values_and_the_king(start_game):
    state, seat = position(("bid", None))
    game = start_game(state.num_players)
    put_state(game, state)
    html = page(logged_in(user_at(game, seat)), game)
    view = fill_view(view_for(state, seat))
    for region in view["regions"]:
        group = html.split(f'data-area="{region["id"]}"', 1)[1].split('data-area="', 1)[0]
        assert region["name"] in group and "/".join(map(str, region["values"])) in group
        for colour, count in region["caballeros"].items():
            assert re.search(f'data-colour="{colour}">.*?class="count"[^>]*>{count}<', group, re.S)
    assert html.count('class="king"') == 1
    assert 'id="area-castillo"' in html and "closed" in html


def test_a_shown_castillo_lists_every_colour(start_game):
    state = new_game(num_players=3, seed=4, show_castillo=True)
    rng = random.Random(4)
    while not any(state.caballeros[-1]):
        seat = to_act(state)[0]
        state = apply_move(state, seat, random_move(state, seat, rng))
    game = start_game(3)
    put_state(game, state)
    html = Client().get(reverse("game_partial", args=[game.pk, "board"])).content.decode()
    castillo = html.split('id="area-castillo"', 1)[1].split("</svg>", 1)[0]
    for seat, count in enumerate(state.caballeros[-1]):
        if count:
            assert f'data-colour="{state.colours[seat]}"' in castillo
    assert "closed" not in castillo


# --- the decision panel offers exactly the legal choices ---------------------------------------------


@pytest.mark.parametrize("key", BUTTON_DECISIONS)
def test_the_panel_offers_exactly_the_listed_moves(at, key):
    game, seat, client = at(key)
    offered = move_buttons(panel_forms(client, game))
    def canonical(moves):
        return sorted(json.dumps(move, sort_keys=True) for move in moves)

    assert canonical(offered) == canonical(legal_moves(state_of(game), seat))


def test_the_panel_offers_only_the_court_counts_the_power_card_allows(at):
    game, seat, client = at(("court", None))
    form = find_form(panel_forms(client, game), move_form="court")
    allowance = view_for(state_of(game), seat)["decision"]["allowance"]
    assert form.options("count") == [str(n) for n in range(allowance + 1)]


@pytest.mark.parametrize("language, one, two", [
    ("en", "1 caballero", "2 caballeros"), ("it", "1 Caballero", "2 Caballeros"), ("fr", "1 Caballero", "2 Caballeros"),
])
def test_the_court_counts_say_caballero_in_the_singular_for_one(at, language, one, two):
    """The court form read "Move [1] caballeros to your court": the noun stood after the list, in
    the plural whatever the count. Each count now carries its own noun, in the reader's language."""
    game, seat, client = at(("court", None))
    user = user_at(game, seat)
    user.language = language
    user.save(update_fields=["language"])
    html = client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    select = re.search(r'<select name="count">(.*?)</select>(.*?)</label>', html, re.S)
    labels = dict(re.findall(r'<option value="(\d+)"[^>]*>([^<]*)</option>', select.group(1)))
    assert labels["1"] == one and labels.get("2", two) == two
    assert not strip_tags(select.group(2)).strip().lower().startswith("caballero")


def test_a_seat_not_to_act_gets_no_panel(at):
    game, seat, _client = at(("bid", None))
    state = state_of(game)
    assert to_act(state) == [seat], "bids are made one seat at a time"
    for waiting in range(state.num_players):
        if waiting != seat:
            assert panel_forms(logged_in(user_at(game, waiting)), game) == []


# --- every kind of decision, submitted as a browser would ---------------------------------------------


@pytest.mark.parametrize("key", BUTTON_DECISIONS)
def test_a_choice_button_posts_a_move_the_engine_accepts(at, key):
    kind = key[0]
    game, seat, client = at(key)
    forms = panel_forms(client, game)
    move = random.Random(1).choice(legal_moves(state_of(game), seat))
    button = ("move", json.dumps(move, separators=(",", ":"), sort_keys=True))
    if kind in ("veto", "counter_veto"):
        button = ("move", json.dumps(move, separators=(",", ":")))
    form = find_form(forms, button=button)
    submit(client, game, form, form.fill({}, button=button))


@pytest.mark.parametrize("key", [("court", None), ("court", "from_regions")])
def test_the_court_form_posts_a_move_the_engine_accepts(at, key):
    game, seat, client = at(key)
    form = find_form(panel_forms(client, game), move_form="court")
    move = legal_moves(state_of(game), seat)[-1]  # the most caballeros, from regions when needed
    values = {"count": move["count"]}
    values.update({f"from-{region}": n for region, n in move.get("from_regions", {}).items()})
    submit(client, game, form, form.fill(values))


def test_the_placement_form_posts_a_move_the_engine_accepts(at):
    game, seat, client = at(next(key for key in positions() if key[0] == "special" and key[1] != "veto"))
    state = state_of(game)
    form = find_form(panel_forms(client, game), move_form="place")
    decision = view_for(state, seat)["decision"]
    count = min(decision["place_limit"], 1)
    values = {f"to-{decision['place_areas'][0]}": count}
    submit(client, game, form, form.fill(values))
    assert state_of(game).placed


def test_the_placement_form_with_every_count_at_zero_asks_for_its_tick_before_placing_none(at):
    """Without JavaScript, Place with the counts left at 0 gave up the whole placement at once,
    where the map's Confirm with nothing planned asks a second time. It is refused, saying so and
    changing nothing, until the form's "Place none this turn" is ticked."""
    game, seat, client = at(next(key for key in positions() if key[0] == "special" and key[1] != "veto"))
    form = find_form(panel_forms(client, game), move_form="place")
    assert "place_none" in form.names()
    before, court = snapshot(game), state_of(game).court
    response = client.post(form.action, form.fill({}), **HTMX)
    assert response.status_code == 400
    assert "Nothing placed: every count is 0" in response.content.decode()
    assert snapshot(game) == before
    submit(client, game, form, form.fill({"place_none": "1"}))
    state = state_of(game)
    assert state.placed and state.court == court


def test_with_an_empty_court_the_panel_offers_to_go_on_without_placing(start_game):
    state, seat = position(next(key for key in positions() if key[0] == "special" and key[1] != "veto"))
    state = GameState.from_json(state.to_json())
    state.provinces[seat] += state.court[seat]
    state.court[seat] = 0
    game = start_game(state.num_players, veto=state.veto_enabled)
    put_state(game, state)
    client = logged_in(user_at(game, seat))
    html = client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    assert "Place up to 0" not in html and 'class="place-form"' not in html
    assert "Your court is empty" in html
    button = ("move", '{"type":"place","to":{}}')
    form = find_form(forms_in(html), button=button)
    submit(client, game, form, form.fill({}, button=button))
    assert state_of(game).placed


def test_decline_posts_a_move_the_engine_accepts(at):
    game, seat, client = at(("special", "score_fours"))
    button = ("move", '{"type":"decline"}')
    form = find_form(panel_forms(client, game), button=button)
    submit(client, game, form, form.fill({}, button=button))
    assert state_of(game).special_done


@pytest.mark.parametrize("card", sorted(CARDS))
def test_every_cards_special_action_form_posts_a_move_the_engine_accepts(at, card):
    game, seat, client = at(("special", card))
    state = state_of(game)
    form = find_form(panel_forms(client, game), move_form="special")
    fields = random_special(state, seat, CARDS[card], random.Random(3)) or {}
    values = special_fields(fields)
    if "scoreboard" in fields:
        # Each mobile scoreboard has its own select of targets.
        values[f"mobile-to-{fields['scoreboard']}"] = values.pop("to")
    if "picks" in fields:
        rows = {form.defaults()[name]: name.rsplit("-", 1)[0] for name in form.names() if name.endswith("-colour")}
        for pick in fields["picks"]:
            values[f"{rows[pick['colour']]}-region"] = pick["region"]
    data = form.fill(values)
    expected = {"type": "special", **fields}
    posted = posted_move(game, seat, data)
    if "picks" in fields:
        expected["picks"] = sorted(expected["picks"], key=lambda p: p["colour"])
        posted["picks"] = sorted(posted["picks"], key=lambda p: p["colour"])
    if "order" in posted and "order" not in fields:
        # The order's selects start at the default order, which the engine takes when none is said.
        assert posted.pop("order") == CARDS[card].options(state, seat)["order"]
    assert posted == expected
    submit(client, game, form, data)


def test_every_card_that_takes_fields_has_a_special_form():
    state = new_game(num_players=3, seed=1)
    for card in CARDS.values():
        fields = random_special(state, 0, card, random.Random(0)) or {}
        form = SPECIAL_FORMS[card.options(state, 0)["action"]].name
        if fields:
            assert form not in ("confirm", "veto"), f"{card.id} takes fields {sorted(fields)} but has no form"
        else:
            assert form in ("confirm", "veto", "retake"), f"{card.id} takes no field but has the form {form}"


def test_the_share_form_posts_a_move_the_engine_accepts(at):
    game, seat, client = at(("share", None))
    state = state_of(game)
    form = find_form(panel_forms(client, game), move_form="share")
    move = random_share(state, seat, random.Random(2))
    submit(client, game, form, form.fill({f"from-{source}": n for source, n in move["from"].items()}))


def test_an_illegal_form_entry_shows_the_engines_reason(at):
    # Each count is within its field's bounds; together they are more than the court may place.
    game, seat, client = at(next(key for key in positions() if key[0] == "special" and key[1] != "veto"))
    state = state_of(game)
    decision = view_for(state, seat)["decision"]
    form = find_form(panel_forms(client, game), move_form="place")
    limit = decision["place_limit"]
    data = form.fill({f"to-{area}": limit for area in decision["place_areas"][:2]})
    move = {"type": "place", "to": {area: limit for area in decision["place_areas"][:2]}}
    with pytest.raises(IllegalMove) as refused:
        apply_move(state, seat, move)
    before = snapshot(game)
    response = client.post(form.action, data, **HTMX)
    assert response.status_code == 400
    assert escape(refusal_message(refused.value)) in response.content.decode()
    assert snapshot(game) == before


def test_a_choice_the_panel_does_not_offer_is_refused_by_its_form(at):
    game, seat, client = at(("special", "move_grande"))
    form = find_form(panel_forms(client, game), move_form="special")
    data = form.defaults()
    data["to"] = view_for(state_of(game), seat)["king"]
    assert data["to"] not in form.options("to")
    before = snapshot(game)
    response = client.post(form.action, data, **HTMX)
    assert response.status_code == 400
    assert "This move could not be read (to: Select a valid choice." in response.content.decode()
    assert snapshot(game) == before


def test_a_plan_row_half_filled_is_a_form_error_naming_the_row(at):
    game, seat, client = at(("special", "intrigue_2_own_2_foreign"))
    form = find_form(panel_forms(client, game), move_form="special")
    state = state_of(game)
    source = CARDS["intrigue_2_own_2_foreign"].options(state, seat)["sources"][0]
    before = snapshot(game)
    response = client.post(form.action, form.fill({"plan-1-from": source}), **HTMX)
    assert response.status_code == 400
    assert "Row 2: choose where from, where to and whose caballeros" in response.content.decode()
    assert snapshot(game) == before


def test_a_button_move_the_engine_does_not_list_is_refused_by_its_form(at):
    game, seat, client = at(("bid", None))
    # Fourteen: no power card has that number.
    card = 14
    assert {"type": "bid", "card": card} not in legal_moves(state_of(game), seat)
    before = snapshot(game)
    response = client.post(reverse("move", args=[game.pk]),
                           {"move": json.dumps({"type": "bid", "card": card}), "expected_version": game.version},
                           **HTMX)
    assert response.status_code == 400
    assert "This is not one of the moves open to you now." in response.content.decode()
    assert snapshot(game) == before


def test_a_forged_pick_colour_is_refused_by_its_row(at):
    game, seat, client = at(("special", "one_each_to_provinces"))
    form = find_form(panel_forms(client, game), move_form="special")
    # Every row with its region picked: only the colour is wrong.
    data = form.fill({name: form.options(name)[1] for name in form.names() if name.endswith("-region")})
    data["picks-0-colour"] = "purple"
    before = snapshot(game)
    response = client.post(form.action, data, **HTMX)
    assert response.status_code == 400
    assert "picks-0-colour: Select a valid choice." in response.content.decode()
    assert snapshot(game) == before


def test_fields_that_answer_another_decision_are_refused(at):
    game, seat, client = at(("bid", None))
    before = snapshot(game)
    response = client.post(reverse("move", args=[game.pk]),
                           {"move_form": "place", "to-aragon": "1", "expected_version": game.version}, **HTMX)
    assert response.status_code == 400
    assert "These fields do not answer the decision you have now: your bid." in response.content.decode()
    assert snapshot(game) == before


def test_form_fields_become_the_engines_move_vocabulary(at):
    game, seat, client = at(("court", "from_regions"))
    decision = view_for(state_of(game), seat)["decision"]
    region = decision["regions"][0]
    form = find_form(panel_forms(client, game), move_form="court")
    data = form.fill({"count": decision["allowance"], f"from-{region}": 1})
    assert posted_move(game, seat, data) == {
        "type": "court", "count": decision["allowance"], "from_regions": {region: 1},
    }
    game, seat, client = at(("special", "intrigue_2_own_2_foreign"))
    options = CARDS["intrigue_2_own_2_foreign"].options(state_of(game), seat)
    form = find_form(panel_forms(client, game), move_form="special")
    row = {"from": options["sources"][0], "to": options["destinations"][0], "colour": options["colours"][0]}
    values = {f"plan-2-{name}": value for name, value in row.items()}
    data = form.fill({**values, "plan-2-count": 2})
    assert posted_move(game, seat, data) == {"type": "special", "plan": [{**row, "count": 2}]}
    place = find_form(panel_forms(client, game), move_form="place")
    areas = view_for(state_of(game), seat)["decision"]["place_areas"]
    assert posted_move(game, seat, place.fill({f"to-{areas[0]}": 1})) == {"type": "place", "to": {areas[0]: 1}}


# --- the panel in words: veto questions, the King's return, begun means whole ----------------------


def names_of(game):
    return Names.for_game(game, game.seats.select_related("user"))


def test_a_veto_before_the_disks_offers_to_stop_the_whole_action(at):
    game, seat, client = at(("veto", "disks"))
    html = client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    assert "Veto: stop the whole action before anyone sets a disk" in html
    assert move_buttons(forms_in(html)) == [{"type": "veto", "cut": 0}, {"type": "allow"}]


def test_a_veto_before_a_share_names_the_player_whose_share_is_next(at):
    game, seat, client = at(("veto", "share"))
    before = view_for(state_of(game), seat)["pending"]["before"]
    html = client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    assert strip_tags(f"Veto: stop before the share of {names_of(game).player(before)}") in strip_tags(html)
    assert move_buttons(forms_in(html)) == [{"type": "veto", "cut": 0}, {"type": "allow"}]


def test_a_veto_of_a_plan_shows_each_step_in_words_with_a_button_to_cut_before_it(at):
    game, seat, client = at(("veto", "plan"))
    steps = view_for(state_of(game), seat)["pending"]["steps"]
    html = client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    names = names_of(game)
    for step in steps:
        assert step_html(step, names) in html
    cuts = [move["cut"] for move in move_buttons(forms_in(html)) if move["type"] == "veto"]
    assert cuts == list(range(len(steps)))


def test_the_share_panel_asks_one_seat_for_its_share_of_the_kings_return(at):
    game, seat, client = at(("share", None))
    state = state_of(game)
    assert to_act(state) == [seat]
    html = client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    assert "your share of the King" in html
    needed = view_for(state, seat)["decision"]["needed"]
    assert f"Send {needed} caballero" in html
    for other in range(state.num_players):
        if other != seat:
            assert panel_forms(logged_in(user_at(game, other)), game) == []


def test_the_court_card_says_it_puts_exactly_its_count_once_begun(at):
    game, seat, client = at(("special", "intrigue_court_2"))
    count = CARDS["intrigue_court_2"].options(state_of(game), seat)["count"]
    html = strip_tags(client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode())
    assert f"Exactly {count} caballero" in html and "carried out in full" in html


def test_the_two_own_two_foreign_card_states_its_least_and_most_of_each_side(at):
    game, seat, client = at(("special", "intrigue_2_own_2_foreign"))
    options = CARDS["intrigue_2_own_2_foreign"].options(state_of(game), seat)
    html = strip_tags(client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode())
    for side, words in (("own", "Your own caballeros"), ("foreign", "Other players' caballeros")):
        least, most = options[side]
        expected = f"at least {least}, at most {most}" if least else f"up to {most}"
        if least == most:
            expected = f"exactly {most}"
        assert f"{words}: {expected}" in html.replace("&#x27;", "'")


def test_a_secret_choice_already_made_is_shown_to_its_chooser_by_the_regions_name(start_game):
    def one_chose_others_still_to(state):
        action = state.action
        return bool(action and action["stage"] == "choices" and any(c is not None for c in action["choices"]))

    seed, history = find_position(one_chose_others_still_to, 4)
    state = new_game(num_players=4, seed=seed)
    for seat, move in history:
        state = apply_move(state, seat, move)
    chooser = next(s for s, c in enumerate(state.action["choices"]) if c is not None)
    game = start_game(4)
    put_state(game, state)
    html = strip_tags(page(logged_in(user_at(game, chooser)), game))
    region = view_for(state, chooser)["pending"]["own_choice"]
    assert f"Your choice: {REGION_NAMES[region]}." in html
    assert f"Your choice: {region}." not in html


# The special actions whose panel asks the player to pick one option (a region, a target, a power
# card), and what the move endpoint says when the post leaves it unpicked.
EXPLICIT_CHOICES = {
    "redistribute": "Choose the region whose caballeros you redistribute.",
    "evict": "Choose the region to evict.",
    "score_area": "Choose the area to score.",
    "mobile_scoreboard": "Choose where the mobile scoreboard goes.",
    "move_king": "Choose where the King goes.",
    "move_grande": "Choose where your Grande goes.",
    "retake_power_card": "Choose the power card to take back.",
    "picks": "Choose the region of every player's caballero.",
}


@pytest.mark.parametrize("card", sorted(
    card for card in CARDS if CARDS[card].options(new_game(num_players=3, seed=1), 0)["action"] in EXPLICIT_CHOICES
))
def test_a_special_form_posted_untouched_is_refused_and_changes_nothing(at, card):
    # The fields as the panel draws them, nobody having touched them: no region, target or card
    # is played for the player by being the first option of its select.
    game, seat, client = at(("special", card))
    form = find_form(panel_forms(client, game), move_form="special")
    message = EXPLICIT_CHOICES[CARDS[card].options(state_of(game), seat)["action"]]
    before, version = snapshot(game), game.version
    response = client.post(form.action, form.defaults(), **HTMX)
    game.refresh_from_db()
    assert response.status_code == 400, response.content.decode()
    assert escape(message) in response.content.decode()
    assert game.version == version and snapshot(game) == before


@pytest.mark.parametrize("kind", ["region", "castillo"])
def test_a_secret_disk_posted_without_a_region_button_is_refused_and_changes_nothing(at, kind):
    game, seat, client = at((kind, None))
    (form,) = panel_forms(client, game)
    before, version = snapshot(game), game.version
    response = client.post(form.action, form.defaults(), **HTMX)
    game.refresh_from_db()
    assert response.status_code == 400
    assert "Choose one of the moves offered." in response.content.decode()
    assert game.version == version and snapshot(game) == before


def test_every_select_that_asks_a_pick_starts_on_choose(at):
    # A select of regions, targets or power cards in a special form starts on its empty first
    # option, whatever the card: a card added with such a select but no explicit choice fails here.
    picks = re.compile(r"^(region|to|card|mobile-to-.+|picks-\d+-region)$")
    for card in sorted(CARDS):
        game, seat, client = at(("special", card))
        form = find_form(panel_forms(client, game), move_form="special")
        for name, options in form.selects.items():
            if picks.match(name):
                assert options[0][0] == "" and not any(selected for _value, selected in options), (card, name)


def test_the_bid_panel_says_why_a_card_of_the_hand_has_no_button(start_game):
    """A value already played this round cannot be bid again: the panel left that card of the hand
    out of its buttons without a word, while "Your power cards" below still listed it, so a player
    was left to wonder where it went. The panel now says it, in the words a bid of it is refused with."""

    def panel_of(seat):
        return logged_in(user_at(game, seat)).get(
            reverse("game_partial", args=[game.pk, "decision"]), **HTMX
        ).content.decode()

    game = start_game(3)
    state = state_of(game)
    first = to_act(state)[0]
    assert "barred-bids" not in panel_of(first), "the first bidder has every card of his hand"
    state = apply_move(state, first, {"type": "bid", "card": 1})
    put_state(game, state)
    html = panel_of(to_act(state)[0])
    assert 'data-bid="1"' not in html and 'data-bid="2"' in html
    assert "Power card 1 has already been played this round." in strip_tags(html)
