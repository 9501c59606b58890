"""A reader of the gettext catalogues makemessages writes (locale/<lang>/LC_MESSAGES/*.po), enough
for the checks of tests/i18n: entries with their context, plural, translations and flags."""

import ast
from dataclasses import dataclass, field


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    # msgstr, or msgstr[0], msgstr[1]… in order.
    msgstr: list = field(default_factory=list)
    flags: set = field(default_factory=set)
    obsolete: bool = False

    @property
    def key(self):
        return (self.msgctxt, self.msgid)

    @property
    def translated(self):
        return "fuzzy" not in self.flags and bool(self.msgstr) and all(self.msgstr)


def _unquote(text):
    return ast.literal_eval(text)


def read(path):
    """The entries of a .po file, the header (msgid "") first."""
    entries, current, last = [], None, None

    def finish():
        if current is not None and (current.msgid or current.msgstr):
            entries.append(current)

    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            obsolete = line.startswith("#~")
            if obsolete:
                line = line[2:].lstrip()
            if not line.strip():
                continue
            if line.startswith("#,"):
                finish()
                current, last = Entry(), None
                current.flags = {flag.strip() for flag in line[2:].split(",")}
                continue
            if line.startswith("#"):
                continue
            keyword, _, rest = line.partition(" ")
            if line.startswith('"'):
                value = _unquote(line)
                if last == "msgstr":
                    current.msgstr[-1] += value
                else:
                    setattr(current, last, getattr(current, last) + value)
                continue
            if keyword in ("msgctxt", "msgid") and (current is None or current.msgid or current.msgstr or (
                keyword == "msgctxt" and current.msgctxt is not None
            )):
                if not (keyword == "msgid" and current is not None and current.msgctxt is not None and not current.msgid
                        and not current.msgstr):
                    finish()
                    flags = set()
                    current = Entry(flags=flags)
            if current is None:
                current = Entry()
            current.obsolete = current.obsolete or obsolete
            if keyword == "msgctxt":
                current.msgctxt, last = _unquote(rest), "msgctxt"
            elif keyword == "msgid":
                current.msgid, last = _unquote(rest), "msgid"
            elif keyword == "msgid_plural":
                current.msgid_plural, last = _unquote(rest), "msgid_plural"
            elif keyword.startswith("msgstr"):
                current.msgstr.append(_unquote(rest))
                last = "msgstr"
    finish()
    return entries
