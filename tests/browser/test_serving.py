"""The helper that starts a live server for the browser and live-update tests (tests.support.helpers.serving)."""

import socket
import sys

import pytest

from tests.support.helpers import serving


def test_it_yields_the_port_the_server_listens_on_and_stops_it_afterwards(tmp_path):
    listen = "import socket, sys, time; s = socket.create_server(('127.0.0.1', int(sys.argv[1]))); time.sleep(60)"
    with serving(lambda port: [sys.executable, "-c", listen, str(port)], env=None, cwd=tmp_path,
                 log_path=tmp_path / "server.log") as port:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_a_server_that_exits_raises_with_its_log(tmp_path):
    fail = "import sys; print('cannot bind', sys.argv[1]); sys.exit(1)"
    with pytest.raises(RuntimeError, match="cannot bind"):
        with serving(lambda port: [sys.executable, "-c", fail, str(port)], env=None, cwd=tmp_path,
                     log_path=tmp_path / "server.log"):
            pass
