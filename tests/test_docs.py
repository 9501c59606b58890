"""The documentation stands alone: the README stays short, no tracked file points outside the
repository, every relative link of the README and docs/ leads to a file (and heading) that
exists, and so does every file of the repository they name in code."""

import functools
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Where the documentation's links are checked: the README, docs/, and the READMEs they send to.
DOCUMENTS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / "bench" / "README.md"]
    + [ROOT / "games" / "engine" / "README.md", ROOT / "games" / "bots" / "README.md"]
)
# What pointed outside the repository: the folder beside it and the documents kept there. Spelt
# in pieces, so that this file does not name them either.
OUTSIDE = tuple(b"".join(parts) for parts in ((b"../", b"shared"), (b"RULES", b".md"), (b"DESIGN", b".md")))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@functools.cache
def tracked_files():
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name]


def prose(text):
    """The text outside fenced code blocks and inline code, where a link is a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path):
    """The heading anchors a Markdown file offers, made the way GitHub makes them."""
    seen, found = {}, set()
    in_code = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def test_readme_is_under_8_kb():
    size = (ROOT / "README.md").stat().st_size
    assert size < 8 * 1024, f"README.md is {size} bytes; move the detail to docs/"


def test_no_tracked_file_points_outside_the_repository():
    offenders = []
    for name in tracked_files():
        path = ROOT / name
        if not path.is_file():
            continue
        content = path.read_bytes()
        offenders += [f"{name}: {marker.decode()}" for marker in OUTSIDE if marker in content]
    assert offenders == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_somewhere(document):
    broken = []
    for target in LINK.findall(prose(document.read_text())):
        if re.match(r"[a-z]+:", target):  # https:, mailto: and the like are not checked here
            continue
        file_part, _, anchor = target.partition("#")
        linked = (document.parent / file_part).resolve() if file_part else document
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif not linked.is_relative_to(ROOT):
            broken.append(f"{target}: outside the repository")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no such heading")
    assert broken == [], f"{document.relative_to(ROOT)}: {broken}"


def named_paths(text):
    """The inline code that is a path into one of the repository's tracked folders, such as
    `games/play/services.py` or `games/engine/`: when modules move, the prose naming them must
    follow. Commands and placeholders (`pytest tests/x.py`) hold spaces and are not paths."""
    folders = {name.split("/")[0] for name in tracked_files() if "/" in name}
    return [
        code
        for code in re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))
        if re.fullmatch(r"[\w.-]+/[\w./-]*", code) and code.split("/")[0] in folders
    ]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_file_named_in_code_exists(document):
    # A template is named as Django finds it, from templates/ (`games/partials/board.html`).
    missing = [
        path
        for path in named_paths(document.read_text())
        if not (ROOT / path).exists() and not (ROOT / "templates" / path).exists()
    ]
    assert missing == [], f"{document.relative_to(ROOT)} names files that do not exist: {missing}"


def test_a_moved_module_named_in_code_is_caught():
    text = "The account (`games/computer.py`), the engine (`games/engine/`), run `pytest tests/x.py`."
    assert named_paths(text) == ["games/computer.py", "games/engine/"]


def test_the_index_links_every_page_of_docs():
    index = ROOT / "docs" / "README.md"
    linked = {(index.parent / target.partition("#")[0]).resolve() for target in LINK.findall(prose(index.read_text()))}
    missing = [page.name for page in (ROOT / "docs").glob("*.md") if page != index and page.resolve() not in linked]
    assert missing == [], f"docs/README.md does not link {missing}"
