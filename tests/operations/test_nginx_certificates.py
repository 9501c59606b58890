"""deploy/nginx/elgrande.conf lets certbot renew its certificate: the webroot challenges that
docs/operations.md's `certbot certonly --webroot -w /var/www/html` writes are answered in plain
HTTP from that folder, while every other plain-HTTP request is sent on to HTTPS. Runs nginx alone
(no site behind it), as tests/operations/test_production.py configures it."""

import http.client
import os
import subprocess
import time

import pytest

from tests.operations.test_production import NGINX, nginx_config
from tests.support.helpers import free_port

pytestmark = pytest.mark.skipif(not os.path.exists(NGINX), reason="needs nginx (apt-get install -y nginx)")


def get(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": "127.0.0.1"})
        response = connection.getresponse()
        return response.status, response.getheader("Location"), response.read().decode()
    finally:
        connection.close()


def test_certbots_webroot_challenge_is_answered_in_plain_http_and_the_rest_redirected(tmp_path):
    http_port, https_port = free_port(), free_port()
    config = nginx_config(tmp_path, http_port=http_port, https_port=https_port, web_port=free_port())
    webroot = tmp_path / "webroot"
    (webroot / ".well-known" / "acme-challenge").mkdir(parents=True)
    (webroot / ".well-known" / "acme-challenge" / "token123").write_text("token123.thumbprint")
    site = tmp_path / "elgrande.conf"
    site.write_text(site.read_text().replace("root /var/www/html;", f"root {webroot};"))
    nginx = subprocess.Popen([NGINX, "-c", str(config), "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                status, location, body = get(http_port, "/.well-known/acme-challenge/token123")
                break
            except OSError:
                time.sleep(0.1)
        assert (status, body) == (200, "token123.thumbprint"), (status, location, (tmp_path / "error.log").read_text())
        status, location, _body = get(http_port, "/games/1/?at=0")
        assert status == 301 and location == "https://127.0.0.1/games/1/?at=0"
    finally:
        nginx.terminate()
        nginx.wait(timeout=20)
