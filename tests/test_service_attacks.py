"""Issue 39's attacks on serve.py, each against a real server started here (``serving.Server``): bounded work
per request and per stream message, a short request beside a long one, abandoned work dropped, strict
input, stream authentication and connection bounds, refusals after SIGTERM, no redirect built from Host.
Each test failed on the service before issue 39 (see docs/service.md)."""
import json
import socket
import subprocess
import threading
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from serving import Server
from test_service import finished, start_predict

TOKEN = "attack-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
WORDS = ("so i went to new york last tuesday did you go there too yes it was great we saw the statue of "
         "liberty and ate pizza in brooklyn my neighbor frank has a vegetable garden").split()
CHUNK_WORDS, CLIENT_LIMIT, SERVER_LIMIT = 200, 6, 9


def lines_of(count: int, words: int = 20) -> list[str]:
    """``count`` lines of ``words`` words each, cut from WORDS over and over."""
    text = [WORDS[i % len(WORDS)] for i in range(count * words)]
    return [" ".join(text[i: i + words]) for i in range(0, len(text), words)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("attacks") / "log", "--token", TOKEN, "--auth_seconds", "1",
                    "--chunk_words", str(CHUNK_WORDS), "--max_client_connections", str(CLIENT_LIMIT),
                    "--max_connections", str(SERVER_LIMIT))
    yield server
    assert server.stop() == 0
    assert "Traceback" not in server.log()  # no attack here is an unexpected error


def post(server, body, timeout=60, **kwargs) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(server.url + "/v1/restore", content=content, headers=AUTH, timeout=timeout, **kwargs)


def timed_post(server, body, **kwargs) -> tuple[httpx.Response, float]:
    start = time.perf_counter()
    reply = post(server, body, **kwargs)
    return reply, time.perf_counter() - start


def assert_one_line_error(reply: httpx.Response, status: int, *words: str) -> None:
    assert reply.status_code == status, reply.text[:300]
    assert "\n" not in reply.text.strip() and set(reply.json()) == {"error"}
    assert all(word in reply.json()["error"] for word in words), reply.text


def test_a_line_of_200000_words_is_refused_at_once_naming_the_limit(server):
    reply, seconds = timed_post(server, {"lines": [" ".join(["ok"] * 200_000)]}, timeout=30)
    assert_one_line_error(reply, 413, "20000", "--max_words")
    assert seconds < 5
    reply, _ = timed_post(server, {"lines": ["x" * 250_000]})  # one 'word' of 250,000 letters: its characters
    assert_one_line_error(reply, 413, "characters", "--max_words")
    reply, _ = timed_post(server, {"lines": ["a " * 10_000, "a " * 10_001]})  # 20,001 words, few characters
    assert_one_line_error(reply, 413, "20001 words: at most 20000", "--max_words")
    reply, _ = timed_post(server, {"lines": ["我" * 20_001]})  # one token of 20,001 characters, each a word
    assert_one_line_error(reply, 413, "20001 words: at most 20000", "--max_words")
    assert timed_post(server, {"lines": ["我" * 30]})[0].status_code == 200


# Seconds of work on any engine: 10,000 words in 500 lines, 50 chunks of 200 words; or one line of 20,000
# (the limit), restored in parts of about 200 words of model work (a 2-word request waited for the whole line)
@pytest.mark.parametrize("long_lines", [lines_of(500), lines_of(1, 20_000)], ids=["500 lines", "one line"])
def test_a_short_request_waits_for_one_chunk_of_a_long_one_whose_output_is_predict_py_s(server, long_lines):
    predicted = start_predict(["--chunk_words", str(CHUNK_WORDS)], "\n".join(long_lines) + "\n")
    result = {}

    def long_request():
        result["reply"], result["seconds"] = timed_post(server, {"lines": long_lines})
        result["done"] = time.perf_counter()
    thread = threading.Thread(target=long_request)
    thread.start()
    time.sleep(0.5)  # the long request is being restored
    short, short_seconds = timed_post(server, {"lines": ["did you"]})
    short_done = time.perf_counter()
    thread.join()
    assert short.status_code == 200 and short.json() == {"lines": ["Did you?"]}
    assert result["reply"].status_code == 200
    assert short_done < result["done"] and short_seconds < result["seconds"] / 3, (short_seconds, result)
    assert result["reply"].json()["lines"] == finished(predicted)


def test_a_frame_of_a_megabyte_is_refused_and_a_closed_stream_stops_at_once(server):
    with connect(server.ws_url + "/v1/stream?lookahead=0", additional_headers=AUTH, max_size=None) as ws:
        ws.send(json.dumps({"words": " ".join(["ok"] * 330_000)}))  # just under 1 MB
        reply = json.loads(ws.recv(timeout=10))
        assert set(reply) == {"error"} and "--max_frame_words" in reply["error"]
        frame = " ".join(lines_of(1, 1900))
        start = time.perf_counter()
        ws.send(json.dumps({"words": frame}))
        assert "final" in json.loads(ws.recv(timeout=60))
        one_frame = time.perf_counter() - start
        for _ in range(6):  # more than may wait for the model: the third on is refused
            ws.send(json.dumps({"words": frame}))
        reply = json.loads(ws.recv(timeout=60))
        assert set(reply) == {"error"} and "wait for the model" in reply["error"]
    # The socket is closed: at most the update on the model finishes, the rest is dropped.
    time.sleep(one_frame + 0.5)
    before = server.cpu_seconds()
    time.sleep(1.5)  # two waiting updates of 1,900 words each, were they not dropped
    assert server.cpu_seconds() - before < 0.5
    reply, seconds = timed_post(server, {"lines": ["did you"]})
    assert reply.status_code == 200 and seconds < one_frame + 2, (seconds, one_frame)


def test_requests_whose_clients_gave_up_are_dropped(server):
    def give_up():
        with pytest.raises(httpx.TimeoutException):
            post(server, {"lines": lines_of(800)}, timeout=1)  # 16,000 words
    clients = [threading.Thread(target=give_up) for _ in range(3)]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    time.sleep(0.5)  # the step each was running when it left finishes
    before = server.cpu_seconds()
    time.sleep(2.0)  # 48,000 words still to restore, were they not dropped: seconds of CPU
    assert server.cpu_seconds() - before < 0.5
    reply, seconds = timed_post(server, {"lines": ["did you"]})
    assert reply.status_code == 200 and seconds < 5, seconds
    log = server.log()
    assert log.count("the client left before its answer") == 3 and log.count(" POST /v1/restore 499 ") == 3


UNPARSABLE = {"nested lists": b"[" * 100_000, "a 5,000-digit integer": b'{"lines": [' + b"7" * 5000 + b"]}",
              "NaN": b'{"lines": NaN}', "a key twice": b'{"lines": ["a"], "lines": ["b"]}'}


@pytest.mark.parametrize("case", UNPARSABLE)
def test_an_unparsable_body_is_a_400_without_a_traceback(server, case):
    assert_one_line_error(post(server, UNPARSABLE[case]), 400, "JSON")


def test_an_unparsable_first_frame_closes_the_stream_1008_without_a_traceback(server):
    for frame in ("[" * 100_000, '{"token": ' + "7" * 5000 + "}"):
        with connect(server.ws_url + "/v1/stream") as ws:
            ws.send(frame)
            assert "unauthorised" in json.loads(ws.recv(timeout=10))["error"]
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd.code == 1008


def test_a_disconnect_in_the_middle_of_a_body_is_logged_as_such(server):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(f"POST /v1/restore HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 10000\r\n\r\n".encode() + b'{"lines": [' * 10)
        time.sleep(0.3)
    time.sleep(0.5)
    log = server.log()
    assert "the client left in the middle of its body" in log and " POST /v1/restore 499 " in log
    assert " POST /v1/restore 500 " not in log


def test_the_first_message_must_be_the_token(server):
    with connect(server.ws_url + "/v1/stream?lookahead=0") as ws:
        ws.send("not json")  # anything but the token first: closed
        assert "unauthorised" in json.loads(ws.recv(timeout=10))["error"]
        with pytest.raises(ConnectionClosed) as closed:
            ws.send(json.dumps({"token": TOKEN}))
            ws.recv(timeout=10)
        assert closed.value.rcvd.code == 1008
    start = time.perf_counter()
    with connect(server.ws_url + "/v1/stream") as ws:  # no token at all: closed after --auth_seconds
        assert "no token within 1 s" in json.loads(ws.recv(timeout=10))["error"]
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd.code == 1008 and time.perf_counter() - start < 3


def stream_from(server, address: str):
    """A stream with the token in its header, from a loopback ``address`` (127.0.0.x: another client)."""
    sock = socket.create_connection(("127.0.0.1", server.port), source_address=(address, 0))
    return connect(server.ws_url + "/v1/stream", additional_headers=AUTH, sock=sock)


def test_open_streams_are_bounded_per_client_and_per_server(server):
    streams = []
    try:
        streams += [stream_from(server, "127.0.0.1") for _ in range(CLIENT_LIMIT)]
        start = time.perf_counter()
        with pytest.raises(InvalidStatus) as refused:
            stream_from(server, "127.0.0.1")
        assert refused.value.response.status_code == 429 and time.perf_counter() - start < 2
        assert "--max_client_connections" in json.loads(refused.value.response.body)["error"]
        assert post(server, {"lines": ["ok"]}).status_code == 429  # requests count as well
        streams += [stream_from(server, "127.0.0.2") for _ in range(SERVER_LIMIT - CLIENT_LIMIT)]
        with pytest.raises(InvalidStatus) as refused:
            stream_from(server, "127.0.0.3")
        assert refused.value.response.status_code == 503 and refused.value.response.headers["Retry-After"] == "1"
    finally:
        for ws in streams:
            ws.close()
    time.sleep(0.3)
    assert post(server, {"lines": ["ok"]}).status_code == 200


def test_fragments_must_be_a_json_boolean(server):
    for value in ("true", "false", 1, None):
        assert_one_line_error(post(server, {"lines": ["did you"], "fragments": value}), 422, "fragments")


def test_a_trailing_slash_is_a_404_not_a_redirect_to_the_host_header(server):
    reply = httpx.get(server.url + "/health/", headers={"Host": "evil.example"})
    assert reply.status_code == 404 and "location" not in reply.headers and set(reply.json()) == {"error"}


def test_after_sigterm_new_requests_get_503_while_those_in_flight_finish(tmp_path):
    server = Server(tmp_path / "log", "--chunk_words", str(CHUNK_WORDS))
    long_lines, result = lines_of(600), {}  # 12,000 words: seconds of work after the SIGTERM
    thread = threading.Thread(target=lambda: result.update(reply=post(server, {"lines": long_lines}, timeout=120)))
    thread.start()
    with connect(server.ws_url + "/v1/stream?lookahead=8") as ws:
        ws.send(json.dumps({"words": "so i went to new york"}))  # fewer than 8 words: none final yet
        time.sleep(1.0)
        server.process.terminate()
        time.sleep(0.6)
        late = httpx.post(server.url + "/v1/restore", json={"lines": ["did you"]}, timeout=60)
        assert_one_line_error(late, 503, "shutting down")
        assert late.headers["Retry-After"] == "1"
        with pytest.raises(InvalidStatus) as refused:
            connect(server.ws_url + "/v1/stream")
        assert refused.value.response.status_code == 503
        assert json.loads(ws.recv(timeout=60)) == {"final": "So I went to New York.", "end": True}
    thread.join()
    assert result["reply"].status_code == 200 and len(result["reply"].json()["lines"]) == len(long_lines)
    assert server.stop() == 0
    assert "Traceback" not in server.log()


def test_several_worker_processes_answer_as_predict_py_and_outlive_a_crash(tmp_path):
    lines = lines_of(30, 7)
    predicted = start_predict([], "\n".join(lines) + "\n")
    server = Server(tmp_path / "log", "--workers", "2", timeout=180)
    try:
        reply = httpx.post(server.url + "/v1/restore", json={"lines": lines}, timeout=60)
        assert reply.status_code == 200 and reply.json()["lines"] == finished(predicted)
        children = subprocess.run(["pgrep", "-P", str(server.process.pid), "-f", "spawn_main"], capture_output=True,
                                  text=True).stdout.split()
        assert len(children) == 2
        subprocess.run(["kill", "-9", children[0]], check=True)
        replies = [httpx.post(server.url + "/v1/restore", json={"lines": lines}, timeout=120) for _ in range(3)]
        assert [r.status_code for r in replies].count(200) >= 2  # the one on the dead worker may be a 500
        assert all(r.json()["lines"] == reply.json()["lines"] for r in replies if r.status_code == 200)
        assert "model worker 0 died" in server.log() and "Traceback" not in server.log()  # one line says it all
    finally:
        assert server.stop() == 0


def test_a_first_start_that_builds_the_graph_still_logs(tmp_path, monkeypatch):
    """The first int8 graph build set the root logger to ERROR: a service started with a cold cache logged
    neither its "serving" line nor any access line."""
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    server = Server(tmp_path / "log")
    try:
        assert httpx.post(server.url + "/v1/restore", json={"lines": ["ok"]}, timeout=60).status_code == 200
    finally:
        assert server.stop() == 0
    log = server.log()
    assert "built the onnx" in log and "serving default_en on http://" in log
    assert "POST /v1/restore 200 lines=1" in log
