"""The board's repeated parts written in Python: the rounds and the score markers on the map, the
round track, the scores, the players' panel, the cards on offer, the seat's hand, and the board in
words. Each function writes byte for byte what the loop of templates/games/partials/board.html (or
board_text.html) it replaces wrote, in the play partial's setting (`{% localize off %}`: numbers
as Python writes them), with the same catalogue's words (a template's `{% translate %}` is
`gettext`, `{% blocktranslate %}` `gettext`/`ngettext` with its variables escaped) and every value
escaped as the template escaped it. Why: these loops were some 500 template nodes of the board's
600, the largest part of a play partial's render (bench/README.md, "Speed"); the template keeps
the page's frame. tests/test_board_markup.py renders the old loops beside these functions over
many positions, readers and languages.
"""

from django.template.defaultfilters import date as date_filter
from django.utils.safestring import mark_safe
from django.utils.timezone import template_localtime
from django.utils.translation import gettext, ngettext, pgettext

from games.words import log_text
from games.words.board_map import colour_player
from games.words.escaping import esc
from games.words.texts import area_name


def _classes(*pairs):
    return "".join(name for name, on in pairs if on)


def _add(value, number):
    """The template's `value|add:number`: both made integers first (a marker's 27.3 gives 35)."""
    return int(value) + number


def map_rounds(rounds):
    """The round track drawn on the map: one circle per round, its title saying the scorings."""
    parts = []
    scoring_title, plain_title = gettext("Round %(round)s: general scoring after it"), gettext("Round %(round)s")
    for r in rounds:
        number = esc(r["number"])
        title = (scoring_title if r["scoring"] else plain_title) % {"round": number}
        classes = _classes((" current", r["current"]), (" done", r["done"]), (" scoring", r["scoring"]))
        parts.append(
            f'<g class="round{classes}"><title>{title}</title>\n'
            f'          <circle cx="{esc(r["x"])}" cy="{esc(r["y"])}" r="{esc(r["r"])}"/>'
            f'<text x="{esc(r["x"])}" y="{_add(r["y"], 8)}">{number}</text></g>\n        '
        )
    return mark_safe("".join(parts))


def map_markers(view, markers):
    """Each player's marker on the scoring track, titled with its player and score."""
    parts = []
    for marker in markers:
        score = marker["score"]
        title = ngettext("%(player)s: %(score)s point", "%(player)s: %(score)s points", score) % {
            "player": esc(colour_player(view, marker["colour"])),
            "score": esc(score),
        }
        again = " round-again" if marker["round_again"] else ""
        parts.append(
            f'<g class="marker{again}" data-colour="{esc(marker["colour"])}"><title>{title}</title>\n'
            f'          <circle cx="{esc(marker["x"])}" cy="{esc(marker["y"])}" r="{esc(marker["r"])}"/>'
            f'<text x="{esc(marker["x"])}" y="{_add(marker["y"], 8)}">{esc(marker["label"])}</text></g>\n        '
        )
    return mark_safe("".join(parts))


def round_list(rounds):
    """The round track beside the map, an <li> per round."""
    parts = []
    scoring_title = gettext("General scoring after round %(round)s")
    for r in rounds:
        classes = _classes(("current", r["current"]), (" done", r["done"]), (" scoring", r["scoring"]))
        title = scoring_title % {"round": esc(r["number"])} if r["scoring"] else ""
        parts.append(f'<li class="{classes}" title="{title}">{esc(r["number"])}</li>')
    return mark_safe("".join(parts))


def _name(player):
    """`player.name|default:player.colour`, escaped."""
    return esc(player.get("name") or player["colour"])


def score_list(ranked):
    """The players by score, an <li> each."""
    return mark_safe(
        "".join(
            f'\n        <li class="colour-{esc(player["colour"])}"><span class="chip">{esc(player["label"])}</span> '
            f'<span class="name">{_name(player)}</span> <strong class="score">{esc(player["score"])}</strong>'
            "</li>\n        "
            for player in ranked
        )
    )


def players_panel(view, countdown=""):
    """Each player's panel: who, the badges, court, provinces, home, hand, cards played, bid, card
    and vetoes; in a finished game's replay (`view.revealed`) the hand and the cards played too.
    `countdown`: the clock's countdown markup when the game has one, beside each seat to act."""
    you, to_act_word = gettext("you"), gettext("to act")
    computer_word, autopilot_word = gettext("computer"), gettext("autopilot")
    autopilot_title = gettext("The site moves for this seat at once until its player plays again")
    court, provinces = gettext("Court"), gettext("Provinces")
    home, hand = pgettext("a player's home region", "Home"), gettext("Hand")
    played, bid = gettext("Played"), gettext("Bid")
    card_word, veto_word = gettext("Card"), gettext("Veto")
    parts = []
    add = parts.append
    for player in view["players"]:
        seat = player["seat"]
        me = seat == view.get("seat") or player.get("me")
        classes = _classes((" current", seat == view.get("current")), (" me", me))
        add(
            f'\n      <div class="player colour-{esc(player["colour"])}{classes}" data-seat="{esc(seat)}">\n'
            f'        <div class="who"><span class="chip">{esc(player["label"])}</span> '
            f"<strong>{_name(player)}</strong>"
        )
        if me:
            add(f" ({you})")
        if seat in (view.get("to_act") or ()):
            add(f' <span class="to-act">{to_act_word}</span>')
            if countdown:
                add(f" {countdown}")
        add("\n          ")
        if player.get("computer"):
            level = gettext("A computer player, level %(level)s") % {"level": esc(player["computer"])}
            add(f'<span class="badge computer" title="{level}">{computer_word}</span>')
        add("\n          ")
        if player.get("autopilot"):
            add(f'<span class="badge autopilot" title="{autopilot_title}">{autopilot_word}</span>')
        add("\n          ")
        if player.get("vacation_until"):
            day = esc(date_filter(template_localtime(player["vacation_until"]), "j F"))
            add(f'<span class="badge vacation">{gettext("on vacation until %(day)s") % {"day": day}}</span>')
        cards = ngettext("%(cards)s card", "%(cards)s cards", player["hand_size"]) % {"cards": esc(player["hand_size"])}
        add(
            f"</div>\n        <dl>\n"
            f'          <dt>{court}</dt><dd class="court">{esc(player["court"])}</dd>\n'
            f'          <dt>{provinces}</dt><dd class="provinces">{esc(player["provinces"])}</dd>\n'
            f"          <dt>{home}</dt><dd>{esc(area_name(player['home']))}</dd>\n"
            f"          <dt>{hand}</dt><dd>{cards}</dd>\n"
            f"          <dt>{played}</dt><dd>"
        )
        top = player.get("played_top")
        add(f'<span class="power-card played">{esc(top)}</span>' if top else "–")
        count = player.get("played_count")
        if count is not None and count > 1:
            add(f" <small>({gettext('%(count)s played') % {'count': esc(count)}})</small>")
        add(f"</dd>\n          <dt>{bid}</dt><dd>")
        add(f'<span class="power-card bid">{esc(player["bid"])}</span>' if player.get("bid") else "–")
        add(f"</dd>\n          <dt>{card_word}</dt><dd>")
        add(esc(log_text.card(player["card"])) if player.get("card") else "–")
        add("</dd>\n          ")
        if player.get("vetoes"):
            held = gettext("held (until round %(round)s)")
            vetoes = "".join(held % {"round": esc(veto["expires_round"])} for veto in player["vetoes"])
            add(f"<dt>{veto_word}</dt><dd>{vetoes}</dd>")
        add("\n        </dl>\n        ")
        if view.get("revealed"):
            in_hand = "".join(
                f'<span class="power-card revealed" data-revealed-card="{esc(card)}">{esc(card)}</span> '
                for card in player.get("hand") or ()
            ) or gettext("none")
            add(f'\n        <p class="revealed-hand">{gettext("In hand:")} {in_hand}</p>\n        ')
            if player.get("played"):
                shown = ", ".join(esc(card) for card in player["played"])
                add(f'<p class="revealed-played note">{gettext("Played, first to last:")} {shown}</p>')
            add("\n        ")
        add("\n      </div>\n      ")
    return mark_safe("".join(parts))


def offer(cards, rules_url):
    """The action cards on offer, an <li> each, its title linked to the card on the rules page."""
    link_title, placement_title = gettext("This card on the rules page"), gettext("caballeros you may place")
    place = gettext("place %(count)s")
    return mark_safe(
        "".join(
            f'\n    <li class="action-card stack-{esc(card["stack"])}" data-card="{esc(card["id"])}">\n'
            f'      <div class="card-head"><a class="card-title" href="{esc(rules_url)}#card-{esc(card["id"])}" '
            f'title="{link_title}"><strong>{esc(card.get("title", ""))}</strong></a> <span class="placement" '
            f'title="{placement_title}">{place % {"count": esc(card["placement"])}}</span></div>\n'
            f"      <p>{esc(card.get('text', ''))}</p>\n    </li>\n    "
            for card in cards
        )
    )


def board_text(text, view):
    """The board in words (games/words/board_text.py `board_text`) as its visually hidden table
    and list of scores, the inside of templates/games/partials/board_text.html's <div>."""
    caption = gettext("The board in words: each player's caballeros in each region")
    parts = [f"  <table>\n    <caption>{caption}</caption>\n"]
    add = parts.append
    add(f'    <thead><tr><th scope="col">{gettext("Region")}</th><th scope="col">{gettext("Points")}</th>')
    for player in text["players"]:
        add(f'<th scope="col">{esc(colour_player(view, player["colour"]))}</th>')
    add("</tr></thead>\n    <tbody>\n      ")
    king_here, closed = gettext("the King is here"), gettext("closed")
    hidden, grande = gettext("hidden"), gettext("Grande")
    mobile = gettext("mobile scoreboard %(board)s")
    for area in text["areas"]:
        add(f'<tr data-area="{esc(area["id"])}"><th scope="row">{esc(area["name"])}')
        if area["king"]:
            add(f", {king_here}")
        if area["closed"]:
            add(f", {closed}")
        add(f"</th><td>{esc(area['values'])}")
        if area["mobile"]:
            add(f" ({mobile % {'board': esc(area['mobile'])}})")
        add("</td>")
        for cell in area["cells"]:
            if cell["hidden"]:
                add(f"<td>{hidden}</td>")
            else:
                add(f"<td>{esc(cell['count'])}{f' + {grande}' if cell['grande'] else ''}</td>")
        add("</tr>\n      ")
    add(f"\n    </tbody>\n  </table>\n  <p>{gettext('Scores')}</p>\n  <ul>")
    for row in text["scores"]:
        score = row["score"]
        said = ngettext("%(player)s: %(score)s point", "%(player)s: %(score)s points", score) % {
            "player": esc(colour_player(view, row["colour"])),
            "score": esc(score),
        }
        add(f'<li data-colour="{esc(row["colour"])}">{said}</li>')
    add("</ul>")
    return mark_safe("".join(parts))


def stacks_line(stacks):
    """The face-down stacks and how many cards each holds."""
    return mark_safe(" · ".join(f"{esc(stack['stack'])}: {esc(stack['remaining'])}" for stack in stacks))


def ranking_line(view):
    """A finished game's ranking: "1. alice, 2. bob"."""
    players = view["players"]
    return mark_safe(
        ", ".join(
            f"{esc(place)}. {_name(players[seat]) if seat is not None else ''}" for place, seat in view["ranking"]
        )
    )


def hand_cards(hand):
    """The seat's power cards in hand, or "none"."""
    return mark_safe(
        "".join(
            f'<span class="power-card in-hand" data-hand-card="{esc(card)}">{esc(card)}</span> ' for card in hand or ()
        )
        or gettext("none")
    )


def played_cards(played):
    return mark_safe(", ".join(esc(card) for card in played))
