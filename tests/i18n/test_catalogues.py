"""The catalogues in the repository are whole and compiled: every message of the code has its
Italian and French translation, and every .mo says what its .po says (docs/architecture.md, "Languages")."""

import gettext
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.po import read

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
LANGUAGES = ("it", "fr")
# What makemessages is run over: the project's own code and templates, as docs/architecture.md says.
SOURCES = ("accounts", "elgrande_site", "games", "ratings", "tournaments", "templates", "static", "manage.py")
IGNORED = ("*.pyc", "__pycache__", "node_modules")
MAKEMESSAGES = ["makemessages", "-l", "it", "-l", "fr", "--no-location", "-i", "tests/*", "-i", ".venv/*"]


def catalogues():
    return sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))


def test_there_is_a_django_catalogue_for_each_language():
    for language in LANGUAGES:
        assert (LOCALE / language / "LC_MESSAGES" / "django.po").is_file()
        assert (LOCALE / language / "LC_MESSAGES" / "django.mo").is_file()


@pytest.mark.parametrize("po", catalogues(), ids=lambda path: str(path.relative_to(LOCALE)))
def test_every_entry_of_a_catalogue_is_translated(po):
    entries = [entry for entry in read(po) if entry.msgid and not entry.obsolete]
    assert entries
    untranslated = [entry.msgid for entry in entries if not entry.translated]
    assert not untranslated, f"{po}: {len(untranslated)} untranslated or fuzzy, e.g. {untranslated[:5]}"


@pytest.mark.parametrize("po", catalogues(), ids=lambda path: str(path.relative_to(LOCALE)))
def test_the_compiled_catalogue_says_what_its_source_says(po):
    """Each .mo holds exactly the translated entries of its .po (compilemessages was run after the
    last change): read with Python's own gettext, nothing more, nothing less, nothing different."""
    with open(po.with_suffix(".mo"), "rb") as handle:
        compiled = dict(gettext.GNUTranslations(handle)._catalog)
    compiled.pop("", None)
    expected = {}
    for entry in read(po):
        if not entry.msgid or entry.obsolete or not entry.translated:
            continue
        key = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if entry.msgid_plural is None:
            expected[key] = entry.msgstr[0]
        else:
            for index, text in enumerate(entry.msgstr):
                expected[(key, index)] = text
    missing = sorted(str(key) for key in expected.keys() - compiled.keys())
    extra = sorted(str(key) for key in compiled.keys() - expected.keys())
    different = sorted(str(key) for key in expected.keys() & compiled.keys() if expected[key] != compiled[key])
    assert not (missing or extra or different), (
        f"{po.with_suffix('.mo')} is stale (run manage.py compilemessages): missing {missing[:5]}, "
        f"extra {extra[:5]}, different {different[:5]}"
    )


def test_every_message_of_the_code_is_in_the_catalogues_and_translated(tmp_path):
    """makemessages, run over a copy of the code and catalogues, adds nothing untranslated: a
    string marked in the code without its Italian or French translation fails here."""
    assert shutil.which("xgettext") and shutil.which("msgmerge"), "install gettext (apt-get install gettext)"
    copy = tmp_path / "site"
    copy.mkdir()
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns(*IGNORED))
        else:
            shutil.copy2(source, copy / name)
    shutil.copytree(LOCALE, copy / "locale")
    subprocess.run([sys.executable, "manage.py", *MAKEMESSAGES], cwd=copy, check=True, capture_output=True)
    problems = []
    for language in LANGUAGES:
        before = {entry.key for entry in read(LOCALE / language / "LC_MESSAGES" / "django.po") if not entry.obsolete}
        for entry in read(copy / "locale" / language / "LC_MESSAGES" / "django.po"):
            if not entry.msgid or entry.obsolete:
                continue
            if entry.key not in before:
                problems.append(f"{language}: not in the catalogue: {entry.msgid!r}")
            elif not entry.translated:
                problems.append(f"{language}: untranslated: {entry.msgid!r}")
    assert not problems, "\n".join(problems[:20])


def test_the_check_above_would_see_a_new_message(tmp_path):
    """The reader the checks rely on tells a translated entry from an untranslated or fuzzy one."""
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Hello"\nmsgstr "Ciao"\n\n'
        'msgctxt "page"\nmsgid "First"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Last"\nmsgstr "Ultima"\n\n'
        'msgid "%(n)s game"\nmsgid_plural "%(n)s games"\nmsgstr[0] "%(n)s partita"\nmsgstr[1] ""\n',
        encoding="utf-8",
    )
    entries = {entry.key: entry for entry in read(po) if entry.msgid}
    assert entries[(None, "Hello")].translated
    assert not entries[("page", "First")].translated
    assert not entries[(None, "Last")].translated
    assert not entries[(None, "%(n)s game")].translated
