"""Escaping for markup written in Python, as Django's but without its cost per call.

Django's `escape` is wrapped by `keep_lazy`, which looks through every argument for a lazy
string on each call: the board written in Python escapes some 700 values a render, and that check
was a quarter of their time (bench/README.md, "Speed"). These give the same text:
`html.escape(str(value))` is what `django.utils.html.escape` returns, and `esc` is
`conditional_escape` (what a template's `{{ value }}` does), safe strings kept as they are."""

import html

from django.utils.html import conditional_escape

_PLAIN = (str, int, float)


def escape(value):
    """`django.utils.html.escape(value)` as text: every value escaped, safe or not."""
    return html.escape(str(value))


def esc(value):
    """`conditional_escape(value)`: plain strings and numbers escaped, safe strings (and anything
    with `__html__`) kept, lazy strings translated then escaped."""
    if type(value) in _PLAIN:
        return html.escape(str(value))
    return conditional_escape(value)
