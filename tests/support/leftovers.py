"""Finding English left on a translated page: the msgids of every catalogue (the site's own and,
once merged, any other) that an English render shows, looked for again in the Italian or French
render of the same page. Only msgids whose translation differs from the English count."""

import re
from functools import cache, lru_cache
from html.parser import HTMLParser
from pathlib import Path

from tests.support.po import read

LOCALE = Path(__file__).resolve().parents[2] / "locale"
# Elements that separate words; others (a, strong, span…) run on inside a sentence.
BLOCKS = {
    "p", "li", "td", "th", "div", "h1", "h2", "h3", "h4", "tr", "section", "br", "option", "button", "label",
    "dt", "dd", "title", "legend", "summary", "nav", "ol", "ul", "table", "form", "header", "main", "figure",
    "text", "g", "aside", "dialog", "fieldset", "input", "select", "textarea", "output", "tspan",
}
ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "aria-valuetext", "data-label")
PLACEHOLDER = re.compile(r"%\(\w+\)0?\d*[sdr]|%[sd]|\{\w*\}")
TAG = re.compile(r"<[^>]+>")
# Words of three letters or more: shorter ones ("in", "a") are as likely Italian as English.
WORD = re.compile(r"[^\W\d_]{3,}")
# Runs of word characters: a run inside a needle, with other characters either side of it, is one of
# these on any page that shows the needle.
RUN = re.compile(r"\w+")


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag in BLOCKS:
            self.parts.append("\n")
        for name, value in attrs:
            if name in ATTRIBUTES and value:
                self.parts.append(f"\n{value}\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


# Kept for the next call: tests/i18n/test_translated_pages.py compares one English render with each
# language's, and parsing it anew each time was a quarter of the parsing.
@lru_cache(maxsize=8)
def page_text(html):
    """The words a reader meets on a page (its text and its tooltips and labels), one chunk per
    line, spaces squeezed."""
    parser = _Text()
    parser.feed(html)
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)


@cache
def _patterns(language):
    """[(English text, needle, pattern)] for every msgid (and plural) of the catalogues of
    `language` whose translation differs from it: the pattern finds the text on a page, and the
    needle, its longest stretch without a placeholder, is in every text the pattern finds."""
    entries = [
        entry
        for po in sorted(LOCALE.glob(f"{language}/LC_MESSAGES/*.po"))
        for entry in read(po)
        if entry.msgid and not entry.obsolete and entry.translated
    ]
    # The language's own words, as its translations use them: an English msgid made only of words
    # that the language also uses ("%(score)s points", "place %(count)s" in French) cannot tell.
    native = {word.lower() for entry in entries for text in entry.msgstr for word in WORD.findall(TAG.sub("", text))}
    found = {}
    for entry in entries:
        english = [entry.msgid] + ([entry.msgid_plural] if entry.msgid_plural else [])
        for text in english:
            if text in entry.msgstr:
                continue
            shown = " ".join(TAG.sub("", text).split())
            words = {word.lower() for word in WORD.findall(PLACEHOLDER.sub(" ", shown))}
            if words <= native:
                continue
            found[shown] = _pattern(shown)
    return sorted((english, needle, pattern) for english, (needle, pattern) in found.items())


def _pattern(text):
    """(needle, pattern) of `text` (see _patterns)."""
    literals = [part.replace("%%", "%") for part in PLACEHOLDER.split(text)]
    body = "[^\n]+?".join(re.escape(part) for part in literals)
    start = r"\b" if re.match(r"\w", text) else ""
    end = r"\b" if re.search(r"\w$", text) else ""
    return max(literals, key=len), re.compile(start + body + end)


@cache
def _by_run(language):
    """_patterns(language) split: those whose needle holds a run of word characters with other
    characters either side (indexed by its longest such run), and the others."""
    indexed, others = {}, []
    for entry in _patterns(language):
        needle = entry[1]
        runs = [run.group() for run in RUN.finditer(needle) if run.start() > 0 and run.end() < len(needle)]
        if runs:
            indexed.setdefault(max(runs, key=len), []).append(entry)
        else:
            others.append(entry)
    return indexed, others


def msgids_in(text, language):
    """The English msgids (with a translation in `language`) that `text` (page_text) shows. A
    pattern is tried only where its needle is in the text: finding a plain string is a hundred
    times faster than a pattern's search, and most msgids are on no given page. A needle is looked
    for only where its indexing run is among the text's: trying each of a thousand needles on each
    page took about 3 s of processor in tests/i18n/test_translated_pages.py (bench/README.md)."""
    indexed, others = _by_run(language)
    candidates = [entry for run in set(RUN.findall(text)) & indexed.keys() for entry in indexed[run]]
    return {english for english, needle, pattern in candidates + others if needle in text and pattern.search(text)}


def left_in_translation(english_html, translated_html, language):
    """The msgids shown on the English page that the translated page still shows in English."""
    english = page_text(english_html)
    translated = page_text(translated_html)
    present = msgids_in(english, language)
    return sorted(msgids_in(translated, language) & present), present
