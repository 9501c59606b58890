"""A page of a test's own HTML opened in Chromium at an address whose /static/ serves the site's
static files (or a collected STATIC_ROOT): the map's script is ES modules, which a page set with
`set_content` (about:blank) could not import."""

import mimetypes
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "static"
ORIGIN = "http://static-page.test"


def open_page(page, html, static_root=STATIC):
    """Show `html` in `page`, its /static/ files read from `static_root`; returns the paths of
    static files asked for and missing."""
    missing = []

    def serve(route):
        path = route.request.url[len(ORIGIN):].split("?")[0]
        if path == "/":
            route.fulfill(body=html, content_type="text/html; charset=utf-8")
            return
        file = static_root / path.removeprefix("/static/")
        if not path.startswith("/static/") or not file.is_file():
            missing.append(path)
            route.fulfill(status=404, body="")
            return
        kind = "text/javascript" if file.suffix == ".js" else mimetypes.guess_type(file.name)[0] or "text/plain"
        route.fulfill(body=file.read_bytes(), content_type=kind)

    page.unroute(f"{ORIGIN}/**")
    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/")
    return missing
