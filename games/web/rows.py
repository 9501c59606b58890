"""The repeated parts of the lists' rows (the lobby's lists, the profile's), composed in Python
rather than by a template include per row and per player: byte for byte what
templates/games/partials/options.html and the player markup of the lists wrote, with the same
translations and escaping (tests/archive/test_list_rows.py): what the data holds (names, numbers)
is escaped, the catalogue's words are not, as {% translate "…" %} leaves them. An include costs a
new context and some twenty nodes each time; a page of the lobby drew some two hundred of them."""

from django.urls import reverse
from django.utils import timezone
from django.utils.html import conditional_escape, escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, ngettext

from games import clocks


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
            # A no-break space: a phone's narrow column broke lines between a chip and its name.
            f'<span class="chip">{conditional_escape(player["label"])}</span>\u00a0'
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


# ---- whole rows of the lobby's and the profile's tables ------------------------------------------
# Each table's rows, once a loop of template nodes (some forty a row: the lobby's "my games" were
# 47% of its CPU with 20 rows, cProfile of bench/archive.py), written here byte for byte as the
# loop wrote them (tests/archive/test_list_rows.py holds the loops and compares).


def _game_link(game):
    """The first cell's link: "Game 12" to the game's page."""
    return f'<a href="{game.get_absolute_url()}">{gettext("Game %(n)s") % {"n": escape(game.pk)}}</a>'


def _round_of(game):
    return gettext("round %(round)s of %(rounds)s") % {"round": escape(game.round), "rounds": escape(game.num_rounds)}


def countdown_html(deadline, now=None):
    """A deadline as templates/games/partials/countdown.html writes it (`clocks.countdown`)."""
    clock = clocks.countdown(deadline, now)
    return (
        f'<time class="countdown" datetime="{timezone.localtime(clock["deadline"]).isoformat()}" '
        f'data-left="{clock["seconds"]}">{conditional_escape(clock["left"])}</time>'
    )


def compose_mine(rows):
    """`compose` "my games" rows, and write each one's markup but its countdown ("row_html"), to be
    kept with the row (list_cache.rows_by_version: per game version, reader and language): a
    request then writes only the countdowns, in its reader's time zone."""
    compose(rows)
    for row in rows:
        row["row_html"] = _my_game_parts(row)
    return rows


def _my_game_parts(row):
    """A "my games" row's markup before its countdown and after it."""
    game = row["game"]
    if game.status == "open":
        free = row["free_seats"]
        progress = ngettext("waiting for %(free)s more player", "waiting for %(free)s more players", free) % {
            "free": escape(free)
        }
    else:
        progress = _round_of(game)
    if row["your_move"]:
        turn = f'<span class="your-move">{gettext("Your move")}</span>'
    elif row["to_move"]:
        turn = ", ".join(conditional_escape(player["username"]) for player in row["to_move"]) + f" {gettext('to move')}"
    else:
        turn = ""
    your_turn = ' class="your-turn"' if row["your_move"] else ""
    head = (
        f"\n      <tr{your_turn}>\n"
        f'        <td>{_game_link(game)}\n'
        f'          <div class="note">{row["options_html"]}</div></td>\n'
        f'        <td class="players-list">{row["players_html"]}</td>\n'
        f"        <td>{progress}</td>\n"
        f'        <td class="turn">{turn}'
    )
    return head, "</td>\n      </tr>\n    "


def my_games_html(rows, now=None):
    """The lobby's "my games" rows (composed: `compose`, or `compose_mine` whose kept markup is
    used), each with its "deadline", as the loop of templates/games/partials/my_games.html wrote
    them."""
    now = now or timezone.now()
    out = []
    for row in rows:
        head, tail = row.get("row_html") or _my_game_parts(row)
        if row["to_move"] and row["deadline"]:
            head += f' <span class="time-left">· {countdown_html(row["deadline"], now)}</span>'
        out.append(head + tail)
    return mark_safe("".join(out))


def compose_open(rows):
    """`compose` open games' rows, and write each one's markup but its creator's rating and its
    join form ("row_html"), to be kept with the row as `compose_mine` does."""
    compose(rows)
    for row in rows:
        row["row_html"] = _open_game_parts(row)
    return rows


def _open_game_parts(row):
    """An open game's row's markup before its creator's rating, from there to its join form, and
    the form's address."""
    game = row["game"]
    rating_label = gettext("Creator's rating")
    head = (
        "\n      <tr>\n"
        f"        <td>{_game_link(game)}</td>\n"
        f'        <td class="players-list">{row["players_html"]}</td>\n'
        f'        <td class="rating" data-label="{rating_label}">'
    )
    middle = (
        "</td>\n"
        f'        <td>{len(row["players"])} / {escape(game.num_players)}</td>\n'
        f'        <td>{row["options_html"]}</td>\n'
        "        <td>\n          "
    )
    return head, middle, reverse("join", args=[game.pk])


def open_games_html(rows, csrf_token=None):
    """The lobby's open games' rows (composed, or by `compose_open` whose kept markup is used;
    with the creators' ratings), as the loop of templates/games/lobby.html wrote them; each with
    its join form when `csrf_token` is given (a logged-in reader's: the form's hidden field)."""
    not_rated, provisional = gettext("not rated yet"), gettext("provisional")
    join = gettext("Join")
    token = None if csrf_token is None else conditional_escape(csrf_token)
    out = []
    for row in rows:
        head, middle, action = row.get("row_html") or _open_game_parts(row)
        if row["creator_rating"] is None:
            rating = not_rated
        else:
            rating = conditional_escape(row["creator_rating"])
            if row["creator_provisional"]:
                rating += f' <span class="note">{provisional}</span>'
        form = ""
        if token is not None:
            form = (
                f'\n          <form method="post" action="{action}">'
                f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">'
                f'<button type="submit">{join}</button></form>\n          '
            )
        out.append(f"{head}{rating}{middle}{form}\n        </td>\n      </tr>\n    ")
    return mark_safe("".join(out))


def in_play_html(rows):
    """The profile's games in play (composed), as the loop of templates/accounts/profile.html
    wrote them."""
    return mark_safe("".join(
        "\n      <tr>\n"
        f'        <td>{_game_link(row["game"])}\n'
        f'          <div class="note">{row["options_html"]}</div></td>\n'
        f'        <td class="players-list">{row["players_html"]}</td>\n'
        f'        <td>{_round_of(row["game"])}</td>\n'
        "      </tr>\n    "
        for row in rows
    ))
