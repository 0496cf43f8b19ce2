"""serve.py behind nginx on loopback, configured by docs/nginx-service.conf (only its ports changed): requests
and streams pass, the client's own address reaches serve.py's per-address bound, a client that gives up
through nginx has its work dropped, bodies over the limits are refused, and a client that stops sending its
body is held by nginx and never reaches serve.py. Skipped where nginx is not installed (apt-get install
nginx)."""
import json
import os
import shutil
import socket
import subprocess
import threading
import time

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from conftest import ROOT
from serving import Server, free_port
from test_service_attacks import lines_of

NGINX = shutil.which("nginx") or (os.path.exists("/usr/sbin/nginx") and "/usr/sbin/nginx")
pytestmark = pytest.mark.skipif(not NGINX, reason="needs nginx (apt-get install nginx)")
SAMPLE = os.path.join(ROOT, "docs", "nginx-service.conf")
CLIENT_LIMIT = 2

MAIN = """user root;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/site.conf;
}}
"""


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    """(nginx's URL, the serve.py behind it)."""
    prefix = tmp_path_factory.mktemp("nginx")
    server = Server(prefix / "serve.log", "--max_client_connections", str(CLIENT_LIMIT), "--chunk_words", "200")
    port = free_port()
    with open(SAMPLE) as f:
        site = f.read()
    assert "server 127.0.0.1:8000;" in site and "listen 80;" in site
    site = site.replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{server.port};")
    (prefix / "site.conf").write_text(site.replace("listen 80;", f"listen 127.0.0.1:{port};"))
    (prefix / "nginx.conf").write_text(MAIN.format(prefix=prefix))
    nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-e", str(prefix / "error.log"), "-c",
                              str(prefix / "nginx.conf"), "-g", "daemon off;"], stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    else:
        nginx.kill()
        server.stop()
        pytest.fail(f"nginx did not start: {nginx.stderr.read().decode()[-2000:]}")
    yield url, server
    nginx.terminate()
    nginx.wait(10)
    assert server.stop() == 0


def test_requests_and_streams_pass_through_nginx(proxy):
    url, server = proxy
    direct = httpx.post(server.url + "/v1/restore", json={"lines": ["so i went to new york did you"]}).json()
    assert httpx.post(url + "/v1/restore", json={"lines": ["so i went to new york did you"]}).json() == direct
    with connect("ws" + url[len("http"):] + "/v1/stream?lookahead=0") as ws:
        ws.send(json.dumps({"words": "hello there"}))
        ws.send(json.dumps({"end": True}))
        text = ""
        while not (message := json.loads(ws.recv(timeout=60))).get("end"):
            text += message["final"]
        assert (text + message["final"]).startswith("Hello there")
    assert httpx.get(url + "/health/").status_code == 404


def through_nginx_from(url: str, address: str):
    port = int(url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), source_address=(address, 0))
    return connect("ws" + url[len("http"):] + "/v1/stream", sock=sock)


def test_the_per_address_bound_counts_the_clients_not_nginx(proxy):
    url, _ = proxy
    streams = [through_nginx_from(url, "127.0.0.2") for _ in range(CLIENT_LIMIT)]
    try:
        with pytest.raises(InvalidStatus) as refused:
            through_nginx_from(url, "127.0.0.2")
        assert refused.value.response.status_code == 429
        streams.append(through_nginx_from(url, "127.0.0.3"))  # another client: its own count
    finally:
        for ws in streams:
            ws.close()


def test_a_client_that_gives_up_through_nginx_has_its_work_dropped(proxy):
    url, server = proxy
    with pytest.raises(httpx.TimeoutException):
        httpx.post(url + "/v1/restore", json={"lines": lines_of(400)}, timeout=1)
    time.sleep(1)
    start = time.perf_counter()
    assert httpx.post(url + "/v1/restore", json={"lines": ["did you"]}, timeout=60).status_code == 200
    assert time.perf_counter() - start < 5
    assert "the client left before its answer" in server.log()


def test_bodies_over_the_limits_are_refused(proxy):
    url, _ = proxy
    reply = httpx.post(url + "/v1/restore", content=b'{"lines": ["' + b"ok " * 500_000 + b'"]}')
    assert reply.status_code == 413 and set(reply.json()) == {"error"}  # 1.5 MB: serve.py's JSON 413
    assert httpx.post(url + "/v1/restore", content=b"x" * 3_000_000).status_code == 413  # nginx's own


def test_a_client_that_stops_sending_its_body_never_reaches_serve_py(proxy):
    url, server = proxy
    port = int(url.rsplit(":", 1)[1])
    before = server.log().count("POST /v1/restore")
    answer = {}

    def stall():
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"POST /v1/restore HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + b'{"lines": [')
            start = time.perf_counter()
            answer["head"] = sock.recv(200)
            answer["seconds"] = time.perf_counter() - start
    thread = threading.Thread(target=stall)
    thread.start()
    time.sleep(2)
    assert server.log().count("POST /v1/restore") == before  # held by nginx
    thread.join(30)
    assert answer["head"] == b"" and 9 < answer["seconds"] < 20  # closed by nginx: client_body_timeout 10s
    assert server.log().count("POST /v1/restore") == before
