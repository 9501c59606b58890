"""Filters for the lobby."""

from django import template
from django.utils import timezone

register = template.Library()


@register.filter
def time_left(deadline, now=None):
    """How long until a deadline, coarsely, as a slow game's player reads it: "5 h left"."""
    if deadline is None:
        return ""
    seconds = (deadline - (now or timezone.now())).total_seconds()
    if seconds <= 0:
        return "due now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{max(minutes, 1)} min left"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h left"
    return f"{hours // 24} d left"
