"""Filters for the lobby."""

from django import template

from games import clocks

register = template.Library()


@register.filter
def countdown(deadline, now=None):
    """A deadline as templates/games/partials/countdown.html shows it: the time left in the same
    words as the game page's clock, counted down live by static/clocks.js."""
    if deadline is None:
        return None
    return clocks.countdown(deadline, now)
