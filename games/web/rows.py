"""The repeated parts of the lists' rows (the lobby's lists, the profile's), composed in Python
rather than by a template include per row and per player: byte for byte what
templates/games/partials/options.html and the player markup of the lists wrote, with the same
translations and escaping (tests/archive/test_list_rows.py): what the data holds (names, numbers)
is escaped, the catalogue's words are not, as {% translate "…" %} leaves them. An include costs a
new context and some twenty nodes each time; a page of the lobby drew some two hundred of them."""

from django.utils.html import conditional_escape, escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext


def options_html(game):
    """A game's options as templates/games/partials/options.html writes them (its line's end
    included): rounds, veto cards, Castillo, time per move, then what is unusual about it.

    `game`: a Game or a row's game (listing.ListedGame) with the same fields."""
    parts = [
        gettext("%(rounds)s rounds") % {"rounds": escape(game.num_rounds)},
        gettext("veto cards on") if game.veto else gettext("veto cards off"),
        gettext("Castillo shown") if game.show_castillo else gettext("Castillo hidden"),
        escape(game.get_time_per_move_display()),
    ]
    if game.slow and not game.vacations_allowed:
        parts.append(gettext("no vacations"))
    if game.rated:
        parts.append(gettext("rated"))
    if game.practice:
        parts.append(f'<span class="badge practice">{gettext("practice game")}</span>')
    if game.private:
        parts.append(gettext("private"))
    if game.imported:
        parts.append(gettext("imported from a game record"))
    return mark_safe(", ".join(parts) + "\n")


class _Badges:
    """The badges' words, looked up once a page rather than once a player."""

    def __init__(self):
        self.computer = (
            f' <span class="badge computer" title="{gettext("a computer player")}">'
            f'{gettext("computer")}</span>'
        )
        self.autopilot = f' <span class="badge autopilot">{gettext("autopilot")}</span>'


def player_html(player, badges=None):
    """A player of a list (a listing row's player: colour, letter, name, computer, autopilot):
    their colour's chip, their name, and a badge for a computer player or one on autopilot."""
    badges = badges or _Badges()
    colour = player.get("colour")
    if colour:
        out = (
            f'<span class="lobby-player colour-{conditional_escape(colour)}">'
            f'<span class="chip">{conditional_escape(player["label"])}</span> '
        )
    else:
        out = '<span class="lobby-player">'
    out += conditional_escape(player["username"])
    if player.get("computer"):
        out += badges.computer
    if player.get("autopilot"):
        out += badges.autopilot
    return out + "</span>"


def players_html(players, badges=None):
    """The players of a row, a comma between each."""
    badges = badges or _Badges()
    return mark_safe(", ".join(player_html(player, badges) for player in players))


def ranking_html(ranking, badges=None):
    """A finished game's players in order: "1. <player> <strong>score</strong>", a comma between
    each."""
    badges = badges or _Badges()
    return mark_safe(", ".join(
        f"{conditional_escape(player['place'])}. {player_html(player, badges)} "
        f"<strong>{conditional_escape(player['score'])}</strong>"
        for player in ranking
    ))


def compose(rows, players="players", ranking=None):
    """Give each of `rows` (listing rows: "game" and lists of players) its "options_html", its
    "players_html" from the list under `players`, and its "ranking_html" from the list under
    `ranking` (None: not that one)."""
    badges = _Badges()
    for row in rows:
        row["options_html"] = options_html(row["game"])
        if players:
            row["players_html"] = players_html(row[players], badges)
        if ranking:
            row["ranking_html"] = ranking_html(row[ranking], badges)
    return rows
