"""The order of a redistribution's or a court spread's steps, posted by the panel's forms
(games/moves/moves_forms.py `to-order`): while a veto is held the taker announces his steps in the
order he chooses (docs/rules.md, "The Veto"), so the order posted reaches the engine, is what the holder is
shown and what the log says; an order that names no offered area, one twice, or anything malformed
is refused with a sentence and changes nothing; without it the counts go in scoring order."""

import pytest
from django.db.models import F
from django.urls import reverse
from django.utils.html import escape, strip_tags

from games.engine import to_act, view_for
from games.engine.board import AREA_INDEX
from games.models import Game, Move
from tests.support.game_forms import find_form, forms_in
from tests.support.helpers import HTMX, logged_in, snapshot, state_of, user_at
from tests.support.veto_positions import at as veto_at

pytestmark = pytest.mark.django_db

# Seat 0 (red) has taken the card; blue holds a veto. The King stands in New Castile.
BOARD = {"court": {"red": 5}, "caballeros": {"aragon": {"red": 2}}}


@pytest.fixture
def taker(start_game):
    """A veto game stored at seat 0's action with `card`: the game, the taker's and the veto holder's
    clients."""

    def build(card, holders=("blue",)):
        state = veto_at(card, holders, num_players=3, **BOARD)
        game = start_game(3, veto=True)
        Game.objects.filter(pk=game.pk).update(
            state=state.to_json(), to_act=to_act(state), status=Game.Status.ACTIVE, version=F("version") + 1
        )
        game.refresh_from_db()
        return game, logged_in(user_at(game, 0)), logged_in(user_at(game, 2))

    return build


def special_form(client, game):
    html = client.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    return find_form(forms_in(html), move_form="special")


def last_move(game):
    return Move.objects.filter(game=game).order_by("-version").first().move


def announced(holder, game):
    """The announced steps' sentences, as the holder's veto question lists them."""
    html = holder.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode()
    steps = html[html.index('<ol class="veto-steps">'):]
    steps = steps[: steps.index("</ol>")]
    return [strip_tags(item).split("Veto")[0].strip() for item in steps.split("<li>")[1:]]


CASES = {
    # card: (fields besides the counts, counts)
    "intrigue_court_2": ({}, {"galicia": 1, "castillo": 1}),
    "intrigue_own_region": ({"region": "aragon"}, {"galicia": 1, "castillo": 1}),
    "intrigue_court_2_or_own_region": ({"option": "court"}, {"galicia": 1, "castillo": 1}),
}


def post(client, game, form, card, order=None, counts=None):
    fields, default_counts = CASES[card]
    data = form.defaults()
    data.update(fields)
    data.update({f"to-{area}": str(n) for area, n in (counts or default_counts).items()})
    if order is not None:
        data["to-order"] = order
    return client.post(form.action, data, **HTMX)


@pytest.mark.parametrize("card", sorted(CASES))
def test_the_form_draws_an_empty_order_field(taker, card):
    game, client, _holder = taker(card)
    form = special_form(client, game)
    assert ["to-order", "hidden", "", False] in form.fields
    # No count field is drawn for it.
    assert "data-area-count=\"order\"" not in client.get(
        reverse("game_partial", args=[game.pk, "decision"]), **HTMX
    ).content.decode()


@pytest.mark.parametrize("card", sorted(CASES))
def test_the_order_posted_reaches_the_engine_and_the_holder_is_shown_it(taker, card):
    game, client, holder = taker(card)
    form = special_form(client, game)
    response = post(client, game, form, card, order="castillo,galicia")
    assert response.status_code == 200, response.content.decode()
    move = last_move(game)
    assert move["to"] == [["castillo", 1], ["galicia", 1]]
    # The holder is asked, with the steps in that order: the Castillo first, then Galicia.
    game.refresh_from_db()
    assert len(view_for(state_of(game), 2)["pending"]["steps"]) == 2
    steps = announced(holder, game)
    assert len(steps) == 2 and "Castillo" in steps[0] and "Galicia" in steps[1], steps
    # The log says the announced steps in that order too.
    log = strip_tags(holder.get(reverse("game", args=[game.pk])).content.decode())
    sentence = log[log.index("may veto the announced steps"):]
    sentence = sentence[: sentence.index("2.") + 80]
    assert sentence.index("Castillo") < sentence.index("Galicia"), sentence


@pytest.mark.parametrize("card", sorted(CASES))
def test_without_an_order_the_counts_go_in_scoring_order(taker, card):
    game, client, holder = taker(card)
    form = special_form(client, game)
    response = post(client, game, form, card)
    assert response.status_code == 200, response.content.decode()
    assert last_move(game)["to"] == {"galicia": 1, "castillo": 1}
    steps = announced(holder, game)
    assert len(steps) == 2 and "Galicia" in steps[0] and "Castillo" in steps[1], steps


def test_areas_counted_but_left_out_of_the_order_follow_in_scoring_order(taker):
    game, client, _holder = taker("intrigue_own_region")
    form = special_form(client, game)
    counts = {"galicia": 1, "castillo": 0, "basque": 1}
    response = post(client, game, form, "intrigue_own_region", order="castillo,basque", counts=counts)
    assert response.status_code == 200, response.content.decode()
    # The Castillo is named but counts nothing: left out; Galicia, not named, follows Basque.
    assert last_move(game)["to"] == [["basque", 1], ["galicia", 1]]


@pytest.mark.parametrize("order, message", [
    ("castillo,narnia", "The order of the steps names 'narnia', which is none of the areas offered."),
    # The King's region takes no caballero: no field of the form.
    ("new_castile,galicia", "The order of the steps names 'new_castile', which is none of the areas offered."),
    ("castillo,galicia,castillo", "The order of the steps names Castillo twice."),
    ("castillo,,galicia", 'The order of the steps names areas separated by commas, e.g. "castillo,galicia".'),
    ("castillo,galicia,", 'The order of the steps names areas separated by commas, e.g. "castillo,galicia".'),
    (",", 'The order of the steps names areas separated by commas, e.g. "castillo,galicia".'),
    (" castillo,galicia", "The order of the steps names ' castillo', which is none of the areas offered."),
    ("Castillo,galicia", "The order of the steps names 'Castillo', which is none of the areas offered."),
    ("order", "The order of the steps names 'order', which is none of the areas offered."),
    ("castillo;galicia", "The order of the steps names 'castillo;galicia', which is none of the areas offered."),
    ("castill\u00f6", "The order of the steps names 'castill\\xf6', which is none of the areas offered."),
    ("galicia," * 5000, "The order of the steps is at most 200 characters."),
])
@pytest.mark.parametrize("card", sorted(CASES))
def test_a_bad_order_is_refused_and_changes_nothing(taker, card, order, message):
    game, client, _holder = taker(card)
    form = special_form(client, game)
    before = snapshot(game)
    response = post(client, game, form, card, order=order)
    assert response.status_code == 400, response.content.decode()
    assert escape(message) in response.content.decode()
    assert snapshot(game) == before


@pytest.mark.parametrize("card", sorted(CASES))
def test_a_nul_byte_in_the_order_is_refused_and_changes_nothing(taker, card):
    game, client, _holder = taker(card)
    form = special_form(client, game)
    before = snapshot(game)
    response = post(client, game, form, card, order="castillo\x00,galicia")
    assert response.status_code == 400, response.content.decode()
    assert "NUL" in response.content.decode()
    assert snapshot(game) == before


def test_a_cut_after_the_first_step_keeps_the_first_step_announced(taker):
    # The Castillo first, as announced: vetoed after step 1, the Castillo has its caballero and
    # Galicia none (in scoring order it would be the other way round).
    game, client, holder = taker("intrigue_court_2")
    post(client, game, special_form(client, game), "intrigue_court_2", order="castillo,galicia")
    game.refresh_from_db()
    form = forms_in(holder.get(reverse("game_partial", args=[game.pk, "decision"]), **HTMX).content.decode())[0]
    response = holder.post(form.action, {**form.defaults(), "move": '{"type":"veto","cut":1}'}, **HTMX)
    assert response.status_code == 200, response.content.decode()
    state = state_of(game)
    assert state.caballeros[AREA_INDEX["castillo"]][0] == 1
    assert state.caballeros[AREA_INDEX["galicia"]][0] == 0
    log = strip_tags(holder.get(reverse("game", args=[game.pk])).content.decode())
    assert "vetoes: only the first step happens." in log
