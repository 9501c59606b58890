import json

from django import template

from games.words.texts import area_name

register = template.Library()


@register.filter
def json_attr(value):
    """A move as compact JSON for a form field (autoescaping makes it attribute-safe)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


@register.filter
def move_label(move):
    """A move in words, for a kind of decision the panel has no form of its own for; areas by name."""
    fields = ", ".join(
        f"{key} {area_name(value) if isinstance(value, str) else value}"
        for key, value in move.items()
        if key != "type"
    )
    return f"{move['type'].replace('_', ' ')}{': ' + fields if fields else ''}"
