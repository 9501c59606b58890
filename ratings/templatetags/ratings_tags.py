"""Tags that put ratings on other apps' pages: the finished game's rating changes, the profile's
ratings and charts, the rating change beside each of the profile's finished games."""

from django import template
from django.urls import reverse

from ratings import selectors
from ratings.models import Ladder

register = template.Library()


@register.filter
def ladder_url(ladder):
    return reverse("ladders") if ladder == Ladder.ALL else reverse("ladder", args=[int(ladder)])


@register.simple_tag
def game_rating_changes(game, seats):
    return selectors.game_changes(game, seats)


@register.simple_tag
def player_ladders(player, viewer):
    return selectors.player_ladders(player, viewer)


@register.simple_tag
def rating_changes_for(rows, player):
    """{game id: change on "all games"} of `player` in the profile's rows of games."""
    return selectors.changes_on_ladder([row["game"] for row in rows], player)


@register.filter
def for_game(changes, game):
    return changes.get(game.pk)
