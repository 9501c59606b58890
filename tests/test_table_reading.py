"""The game reads like a table, not a database (issue 9): cards explain themselves and link to the
rules page, players and regions are named, never shown by their ids."""

import random
import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import random_move, to_act
from games.engine.board import AREAS, COLOURS, REGION_NAMES
from games.engine.cards import CARDS
from games.play import moving
from games.words.log_text import Names, event_html
from games.words.texts import card_text, card_title
from tests.support.helpers import logged_in, state_of, user_at

pytestmark = pytest.mark.django_db


class Visible(HTMLParser):
    """The text a reader sees (no <script>, <style> or attribute), and every `title` attribute."""

    def __init__(self):
        super().__init__()
        self.parts, self.titles, self.skip = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        self.titles += [value for name, value in attrs if name == "title" and value]

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def visible(html):
    parser = Visible()
    parser.feed(html)
    return " ".join(parser.parts), parser.titles


# --- cards explain themselves; the rules page --------------------------------------------------------


def test_the_rules_page_lists_every_card_by_title_and_text_with_an_anchor():
    html = Client().get(reverse("rules")).content.decode()
    for kind in CARDS.values():
        anchor = html.index(f'id="card-{kind.id}"')
        entry = html[anchor : html.index("</div>", anchor)]
        assert card_title(kind.id) in entry.replace("&#x27;", "'")
        assert card_text(kind.id).replace("'", "&#x27;") in entry
    for name in REGION_NAMES.values():
        assert name in html
    assert "How to play El Grande" in html


def test_the_rules_page_is_one_click_from_the_game_page_and_the_lobby(start_game):
    game = start_game(3)
    for url in (reverse("game", args=[game.pk]), reverse("lobby")):
        html = logged_in(user_at(game, 0)).get(url).content.decode()
        assert f'href="{reverse("rules")}"' in html


def test_a_card_in_a_log_line_explains_itself_on_hover_and_on_tap():
    names = Names(["green", "red"], {0: "alice", 1: "bob"})
    kind = CARDS["intrigue_2_own_2_foreign"]
    html = event_html({"event": "take_card", "round": 1, "seat": 1, "card": kind.id}, names)
    # Hover: the title attribute; tap, click or Enter: the <details> disclosure, which needs no script.
    summary = re.search(r'<details class="card-ref"[^>]*><summary title="([^"]*)">([^<]*)</summary>', str(html))
    assert summary, html
    assert summary.group(1).replace("&#x27;", "'") == card_text(kind.id) and summary.group(2) == card_title(kind.id)
    explanation = str(html).split("</summary>", 1)[1]
    assert card_text(kind.id) in explanation.replace("&#x27;", "'")
    assert f'href="{reverse("rules")}#card-{kind.id}"' in explanation


def test_every_card_named_in_a_round_line_explains_itself_and_stays_markup():
    names = Names(["green", "red"], {0: "alice", 1: "bob"})
    cards = ["veto", "score_fours", "eviction", "king_card"]
    html = str(event_html({"event": "round", "round": 2, "first_bidder": 0, "cards": cards}, names))
    assert "&lt;details" not in html, "the cards' markup was escaped"
    for card in cards:
        assert f'data-card-ref="{card}"' in html and f"#card-{card}" in html


def test_an_unknown_card_id_in_a_stored_event_is_escaped():
    names = Names(["green"], {0: "alice"})
    html = str(event_html({"event": "discard", "round": 2, "cards": ["<b>x</b>"]}, names))
    assert "<b>" not in html and "&lt;b&gt;" in html


def test_the_cards_of_the_game_page_link_to_the_rules(start_game):
    game = start_game(3)
    html = logged_in(user_at(game, 0)).get(reverse("game", args=[game.pk])).content.decode()
    state = state_of(game)
    for card in state.display:
        assert f'{reverse("rules")}#card-{card}' in html


# --- names, never ids, through a whole game ---------------------------------------------------------

# Ids as they would show through: region ids as lower-case whole words (a name is capitalised), card
# ids with an underscore, and move vocabulary ("choose_region", "region seville").
ID_WORDS = [area for area in AREAS if area != "castillo"] + [card for card in CARDS if "_" in card]
IDS = re.compile(r"\b(" + "|".join(sorted(ID_WORDS, key=len, reverse=True)) + r")\b")
# A colour word is only ever said after a player's user name: "alice (green)".
# (A seat whose user is gone is named by its colour alone, capitalised: "Green".)
BARE_COLOUR = re.compile(r"(?<!\()\b(" + "|".join(COLOURS) + r")\b(?!\))")


def assert_named(html, where):
    text, titles = visible(html)
    for words in [text, *titles]:
        found = IDS.search(words)
        assert not found, f"{where}: an id shows: …{words[max(0, found.start() - 80) : found.end() + 80]}…"
        found = BARE_COLOUR.search(words)
        assert not found, f"{where}: a bare colour: …{words[max(0, found.start() - 80) : found.end() + 80]}…"


def test_a_whole_game_names_players_regions_and_cards_never_by_id(start_game):
    game = start_game(3, seed=11, short_game=True)
    users = {seat.index: seat.user for seat in game.seats.all()}
    clients = {index: logged_in(user) for index, user in users.items()}
    spectator = Client()
    rng = random.Random(5)
    state = state_of(game)
    moves = 0
    while not state.is_over:
        seat = to_act(state)[0]
        url = reverse("game", args=[game.pk])
        assert_named(clients[seat].get(url).content.decode(), f"move {moves}, seat {seat}")
        if moves % 10 == 0:
            assert_named(spectator.get(url).content.decode(), f"move {moves}, a spectator")
        moving.submit_move(game, user=users[seat], move=random_move(state, seat, rng), expected_version=game.version)
        state = state_of(game)
        moves += 1
    for client in [*clients.values(), spectator]:
        assert_named(client.get(reverse("game", args=[game.pk])).content.decode(), "the end")


def test_a_move_without_a_form_of_its_own_names_its_area():
    from games.templatetags.game_tags import move_label

    assert move_label({"type": "choose_region", "region": "old_castile"}) == "choose region: region Old Castile"


# --- every secret choice says what it is for ---------------------------------------------------------


def in_choices_of(card):
    def holds(state):
        return state.phase == "special" and state.action["stage"] == "choices" and state.action["card"] == card

    return holds


@pytest.mark.parametrize(
    "card, purpose",
    [
        ("secret_two_to_provinces", "holding at least 2 of your caballeros"),
        ("secret_all_to_provinces", "all your caballeros there go to the provinces"),
        ("secret_unique_scoring", "every region chosen by exactly one player is scored"),
    ],
)
def test_a_secret_choice_says_what_it_is_for(game_at, card, purpose):
    game = game_at(in_choices_of(card))
    seat = to_act(state_of(game))[0]
    html = logged_in(user_at(game, seat)).get(reverse("game", args=[game.pk])).content.decode()
    panel = html.split('id="decision-panel"', 1)[1].split("</section>", 1)[0]
    assert purpose in panel.replace("&#x27;", "'")
    assert f'data-card-ref="{card}"' in panel, "the card that asks is named and explains itself"


def test_the_eviction_chooser_sees_which_region_was_evicted(game_at):
    game = game_at(in_choices_of("eviction"))
    state = state_of(game)
    seat = to_act(state)[0]
    evicted = AREAS[state.action["plan"]["region"]]
    king = AREAS[state.king]
    html = logged_in(user_at(game, seat)).get(reverse("game", args=[game.pk])).content.decode()
    panel = html.split('id="decision-panel"', 1)[1].split("</section>", 1)[0]
    assert f"where your caballeros evicted from {REGION_NAMES[evicted]} go" in panel
    assert f"{REGION_NAMES[evicted]} is evicted" in panel
    buttons = dict(re.findall(r'data-area-button="(\w+)">(.*?)</button>', panel))
    assert evicted in buttons, "choosing the evicted region itself (back to court) is offered"
    back = {area for area, text in buttons.items() if "back to your court" in text}
    assert back == {evicted, king} & set(buttons), buttons


def test_the_castillo_choice_says_what_it_is_for(game_at):
    game = game_at(lambda state: state.phase == "castillo")
    seat = to_act(state_of(game))[0]
    html = logged_in(user_at(game, seat)).get(reverse("game", args=[game.pk])).content.decode()
    panel = html.split('id="decision-panel"', 1)[1].split("</section>", 1)[0]
    assert "all your caballeros in it go to the region you choose" in panel


def test_the_castillo_choice_marks_the_kings_region_as_back_to_court(game_at):
    """Choosing the King's region sends the Castillo's caballeros back to court (the rules, step 3
    of a general scoring; games/engine/rounds.py): the eviction's buttons said so on that region's
    button, the Castillo's said nothing, the King's region looking like any other."""
    game = game_at(lambda state: state.phase == "castillo")
    state = state_of(game)
    seat = to_act(state)[0]
    html = logged_in(user_at(game, seat)).get(reverse("game", args=[game.pk])).content.decode()
    panel = html.split('id="decision-panel"', 1)[1].split("</section>", 1)[0]
    buttons = dict(re.findall(r'data-area-button="(\w+)">(.*?)</button>', panel))
    back = {area for area, text in buttons.items() if "back to your court" in text}
    assert back == {AREAS[state.king]}, buttons


# --- the log marks what happened since the player last looked ----------------------------------------


def new_lines(client, game):
    html = client.get(reverse("game", args=[game.pk])).content.decode()
    log = html.split('<section class="log">', 1)[1].split("</section>", 1)[0]
    return re.findall(r'<li data-round="\d+" class="[^"]*\bnew\b[^"]*">(.*?)</li>', log, re.S), log


def test_the_log_marks_what_others_did_since_the_player_last_looked(start_game):
    from tests.support.helpers import play

    game = start_game(3, seed=4)
    alice = logged_in(user_at(game, 0))
    new_lines(alice, game)  # she looks at the start
    play(game, moves=4)  # the three bids and the first court move
    game.refresh_from_db()
    fresh, log = new_lines(alice, game)
    names = {seat.index: seat.user.username for seat in game.seats.all()}
    assert fresh, log
    def bids_of(name, lines):
        return [line for line in lines if f">{name} (" in line and "plays power card" in line]

    bids = {index: bids_of(name, fresh) for index, name in names.items()}
    assert bids[1] and bids[2], "the others' bids are new to her"
    assert bids[0] == [], "her own bid is not news to her"
    assert bids_of(names[0], re.findall(r"<li[^>]*>(.*?)</li>", log, re.S)), "her bid is in the log"
    game.seats.get(index=0).refresh_from_db()
    assert game.seats.get(index=0).seen_version == game.version
    assert new_lines(alice, game)[0] == [], "once seen, no longer new"


def test_a_spectator_and_the_board_partial_mark_nothing(start_game):
    from tests.support.helpers import HTMX, play

    game = start_game(3, seed=4)
    play(game, moves=3)
    game.refresh_from_db()
    assert new_lines(Client(), game)[0] == []
    alice = logged_in(user_at(game, 0))
    alice.get(reverse("game_partial", args=[game.pk, "board"]), **HTMX)
    assert game.seats.get(index=0).seen_version == 0, "the board alone shows no log"
    assert new_lines(alice, game)[0]


# --- no stale banners; the site's own 404 ------------------------------------------------------------


def test_a_private_game_the_visitor_may_not_see_gets_the_sites_own_404_page(client, start_game, make_user):
    game = start_game(3, private=True)
    for reader in (client, logged_in(make_user())):
        response = reader.get(reverse("game", args=[game.pk]))
        assert response.status_code == 404
        assert [t.name for t in response.templates][:2] == ["404.html", "base.html"]
        html = response.content.decode()
        assert "<h1>Not found</h1>" in html and f'href="{reverse("lobby")}"' in html
        assert f'href="{reverse("rules")}"' in html, "the site's header is there"
        assert "private" not in html.lower(), "nothing says that a game is there"


def test_a_banner_of_the_first_load_is_shown_once(start_game):
    game = start_game(2)
    creator = logged_in(user_at(game, 0))
    response = creator.post(reverse("leave", args=[game.pk]), follow=True)
    banners = re.findall(r'<ul class="messages" id="messages">(.*?)</ul>', response.content.decode(), re.S)
    assert banners, "leaving a started game is refused with a banner"
    assert '<ul class="messages"' not in creator.get(reverse("game", args=[game.pk])).content.decode()
