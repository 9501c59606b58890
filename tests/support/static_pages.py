"""A page of a test's own HTML opened in Chromium at an address whose /static/ serves the site's
static files (or a collected STATIC_ROOT): the map's script is ES modules, which a page set with
`set_content` (about:blank) could not import.

The page comes from a small HTTP server of the test process (one per static folder, so that one
folder's files are never taken from the cache for another's), not from Playwright's request
interception: interception switches Chromium's HTTP cache off and sends every request through the
driver to Python, so each of test_map_confirm.py's hundreds of openings fetched the map's modules
again. Here the static files are cached by Chromium after their first load (the module's time,
before and after: bench/README.md, "`make test`'s time")."""

import mimetypes
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "static"

_servers = {}
_lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    """`/`: the HTML of the latest `open_page` (never cached); `/static/<path>`: the file under the
    server's static folder (cached by the browser), else 404 and the path noted as missing (but
    the browser's own request for /favicon.ico)."""

    def do_GET(self):
        server = self.server
        path = self.path.split("?")[0]
        if path == "/":
            self._answer(200, server.html.encode(), "text/html; charset=utf-8", "no-store")
            return
        if path == "/favicon.ico":
            # Chromium's own request for the page's icon (Playwright's interception never saw it),
            # not one the page's HTML makes.
            self._answer(404, b"", "text/plain", "max-age=3600")
            return
        file = server.static_root / path.removeprefix("/static/")
        if not path.startswith("/static/") or not file.is_file():
            server.missing.append(path)
            self._answer(404, b"", "text/plain", "no-store")
            return
        kind = "text/javascript" if file.suffix == ".js" else mimetypes.guess_type(file.name)[0] or "text/plain"
        self._answer(200, file.read_bytes(), kind, "max-age=3600")

    def _answer(self, status, body, kind, cache):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _server(static_root):
    """The process's server of `static_root`, started on a free loopback port the first time; its
    thread is a daemon, so it ends with the test process."""
    with _lock:
        server = _servers.get(static_root)
        if server is None:
            server = _servers[static_root] = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
            server.daemon_threads = True
            server.static_root, server.html, server.missing = static_root, "", []
            threading.Thread(target=server.serve_forever, name=f"static pages {static_root}", daemon=True).start()
        return server


def open_page(page, html, static_root=STATIC):
    """Show `html` in `page`, its /static/ files read from `static_root`; returns the paths of
    static files asked for and missing."""
    server = _server(Path(static_root))
    server.html, server.missing = html, []
    page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
    return server.missing
