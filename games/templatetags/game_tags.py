import json

from django import template

register = template.Library()


@register.filter
def json_attr(value):
    """A move as compact JSON for a form field (autoescaping makes it attribute-safe)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


@register.filter
def move_label(move):
    fields = ", ".join(f"{key} {value}" for key, value in move.items() if key != "type")
    return f"{move['type'].replace('_', ' ')}{': ' + fields if fields else ''}"
