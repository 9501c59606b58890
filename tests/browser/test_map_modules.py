"""The map's ES modules as production serves them (DEBUG=0, the manifest storage, collectstatic):
in Chromium, the page's module and every module it imports load under their hashed names."""

import json

import pytest

from tests.support.map_page import MAP_SCRIPT, page_for, special_turn
from tests.support.static_pages import open_page

pytestmark = pytest.mark.browser


def test_the_map_composes_with_the_collected_files(collected_static, browser):
    manifest = json.loads((collected_static / "staticfiles.json").read_text())["paths"]
    html = page_for(special_turn("intrigue_court_2")).replace(
        MAP_SCRIPT, f'<script type="module" src="/static/{manifest["decision.js"]}"></script>'
    )
    page = browser.new_page()
    missing = open_page(page, html, static_root=collected_static)
    page.wait_for_selector(".map-compose .map-confirm")
    assert missing == []
    page.close()
