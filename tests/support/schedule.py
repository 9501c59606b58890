"""The order in which `make test`'s workers take the test modules (pytest-xdist `--dist loadfile`,
with its own reordering off: `--no-loadscope-reorder` in the Makefile).

pytest-xdist's default order is by the number of tests in a module, most first, which put the
browser modules of one or two long tests (15-30 s each) last: one worker then played a whole game
in a browser while the other had nothing left to do. The longest modules as measured go first
(`make test`'s per-test durations, --junitxml, 28 Nov 2026), longest first; the others follow in
pytest-xdist's order. A module missing from the list, or a list grown stale, changes only the
order, never what runs."""

from collections import Counter

LONGEST = [
    "tests/browser/test_map_confirm.py",
    "tests/browser/test_practice_game.py",
    "tests/browser/test_accessibility.py",
    "tests/browser/test_map_moves.py",
    "tests/browser/test_fewer_mails.py",
    "tests/browser/test_page_catches_up.py",
    "tests/test_game_page_content.py",
    "tests/browser/test_two_players.py",
    "tests/browser/test_ladders.py",
    "tests/browser/test_one_click.py",
    "tests/browser/test_move_answer.py",
    "tests/i18n/test_translated_pages.py",
]


def order(items):
    """Sort `items` (pytest's collected tests) in place by module: LONGEST first, in its order, then
    the others by their number of tests, most first. A module's own tests keep their order."""
    rank = {path: place for place, path in enumerate(LONGEST)}
    modules = [item.nodeid.split("::", 1)[0] for item in items]
    tests_in = Counter(modules)
    keys = {
        id(item): (rank.get(module, len(rank)), -tests_in[module], module, place)
        for place, (item, module) in enumerate(zip(items, modules, strict=True))
    }
    items.sort(key=lambda item: keys[id(item)])
