"""serve.py end to end, in a child process on a free port: /v1/restore answers exactly what predict.py writes,
/v1/stream's finals are predict.py --stream's, the token, CORS, every kind of bad request (a one-line JSON
4xx, the server stays up), the full queue (503 at once), one log line per request without its text, and
SIGTERM (the open streams get their last words, exit status 0)."""
import asyncio
import json
import os
import subprocess
import sys
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from conftest import ROOT
from serving import MODEL, Server

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
LINES = ["so i went to new york last tuesday did you go there too", "", "Hello, world. how are you doing today",
         "yes i did it was great we saw the statue of liberty and ate pizza in brooklyn", "ok",
         "THE MEETING STARTS AT NINE please be on time", "it costs twenty five dollars at three p m"]
READINGS = [{}, {"existing": "strip", "fragments": True}, {"numbers": "digits"}]
CHUNKS = [["so i went", "to new york last tuesday", "did", "you go there too"],
          ["yes i did it was great we saw", "the statue of liberty and", "ate pizza in brooklyn"],
          ["it costs twenty five", "dollars and we meet at three p", "m tomorrow"]]  # numbers across messages
LOOKAHEADS = [0, 3]


def predict_flags(reading: dict) -> list[str]:
    flags = []
    for name, value in reading.items():
        flags += [f"--{name}"] if value is True else [] if value is False else [f"--{name}", value]
    return flags


def start_predict(flags: list[str], text: str) -> subprocess.Popen:
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    process = subprocess.Popen([sys.executable, "predict.py", "--model_path", MODEL, "--device", "cpu", "--input_file",
                                "-", "--output_file", "-", *flags], cwd=ROOT, env=env, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdin.write(text)
    process.stdin.close()
    return process


def finished(process: subprocess.Popen) -> list[str]:
    out = process.stdout.read()
    assert process.wait() == 0, process.stderr.read()
    return out.split("\n")[:-1]


@pytest.fixture(scope="module")
def predicted():
    """predict.py's outputs, run while the server starts: per reading its lines, per look-ahead its lines."""
    restores = {i: start_predict(predict_flags(r), "\n".join(LINES) + "\n") for i, r in enumerate(READINGS)}
    stream_input = "".join("\n".join(chunks) + "\n\n" for chunks in CHUNKS)
    streams = {k: start_predict(["--stream", "--lookahead", str(k)], stream_input) for k in LOOKAHEADS}
    streams["digits"] = start_predict(["--stream", "--lookahead", "3", "--numbers", "digits"], stream_input)
    return {"restore": restores, "stream": streams}


@pytest.fixture(scope="module")
def server(predicted, tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("server") / "log", "--token", TOKEN, "--max_lines", "20",
                    "--max_body_mb", "0.01", "--allow_origin", "http://allowed.example")
    yield server
    assert server.stop() == 0


def post(server, body, headers=AUTH, **kwargs) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(server.url + "/v1/restore", content=content, headers=headers, timeout=60, **kwargs)


def test_health_needs_no_token_and_names_the_model(server):
    reply = httpx.get(server.url + "/health")
    assert reply.status_code == 200 and reply.json() == {"status": "ok", "model": "default_en"}


@pytest.mark.parametrize("index", range(len(READINGS)))
def test_restore_is_what_predict_writes(server, predicted, index):
    reply = post(server, {"lines": LINES, **READINGS[index]})
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"lines": finished(predicted["restore"][index])}


def test_restore_with_words_is_what_predict_writes_as_jsonl(server):
    long_line = " ".join(["we went to the market and bought apples and then we went home"] * 45)  # > 500 words
    lines = LINES + [long_line]
    jsonl = finished(start_predict(["--format", "jsonl", "--chunk_words", "500"], "\n".join(lines) + "\n"))
    reply = post(server, {"lines": lines, "words": True})
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"lines": [json.loads(line) for line in jsonl]}  # the long line restored in parts
    assert post(server, {"lines": ["hi"], "words": "yes"}).status_code == 422


def test_stream_messages_with_words_carry_each_final_words_confidence(server):
    text = ""
    with connect(f"{server.ws_url}/v1/stream?lookahead=3&words=true", additional_headers=AUTH) as ws:
        for chunk in CHUNKS[0]:
            ws.send(json.dumps({"words": chunk}))
        ws.send(json.dumps({"end": True}))
        while True:
            message = json.loads(ws.recv(timeout=60))
            assert [w["text"] for w in message["words"]] == message["final"].split()
            assert all(0 < w["confidence"] < 1 and isinstance(w["review"], bool) for w in message["words"])
            text += message["final"]
            if message.get("end"):
                break
    assert [text] == stream_finals(server, 3, CHUNKS[:1])  # the same text as without words


def stream_finals(server, lookahead: int, chunks_per_utterance, headers=AUTH, query: str = "") -> list[str]:
    """Each utterance's finals, concatenated, fed as ``chunks_per_utterance`` with an end after each."""
    lines = []
    with connect(f"{server.ws_url}/v1/stream?lookahead={lookahead}{query}", additional_headers=headers) as ws:
        for chunks in chunks_per_utterance:
            for chunk in chunks:
                ws.send(json.dumps({"words": chunk}))
            ws.send(json.dumps({"end": True}))
            text = ""
            while True:
                message = json.loads(ws.recv(timeout=60))
                text += message["final"]
                if message.get("end"):
                    break
            lines.append(text)
    return lines


@pytest.mark.parametrize("lookahead", LOOKAHEADS)
def test_stream_finals_are_what_predict_stream_writes(server, predicted, lookahead):
    assert stream_finals(server, lookahead, CHUNKS) == finished(predicted["stream"][lookahead])


def test_stream_numbers_are_what_predict_stream_writes(server, predicted):
    assert stream_finals(server, 3, CHUNKS, query="&numbers=digits") == finished(predicted["stream"]["digits"])


def words_of(message: dict) -> str:
    """A stream message's final words, lower-cased, without marks."""
    return " ".join(word.strip(".,?!").lower() for word in message["final"].split())


def test_token_is_required_except_for_health_and_the_page(server):
    assert post(server, {"lines": ["hi"]}, headers={}).status_code == 401
    assert post(server, {"lines": ["hi"]}, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert post(server, {"lines": ["hi"]}, headers={"Authorization": TOKEN}).status_code == 401  # no scheme
    assert httpx.get(server.url + "/").status_code == 200  # static HTML, no data: it asks for the token
    with pytest.raises(InvalidStatus) as refused:
        connect(server.ws_url + "/v1/stream", additional_headers={"Authorization": "Bearer wrong"})
    assert refused.value.response.status_code == 401
    with connect(server.ws_url + "/v1/stream?lookahead=0") as ws:  # a browser: the token as first message
        ws.send(json.dumps({"token": TOKEN}))
        ws.send(json.dumps({"words": "hello there"}))
        assert words_of(json.loads(ws.recv(timeout=60))) == "hello there"
    with connect(server.ws_url + "/v1/stream") as ws:
        ws.send(json.dumps({"token": "wrong"}))
        assert "unauthorised" in json.loads(ws.recv(timeout=60))["error"]
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=60)
        assert closed.value.rcvd.code == 1008


def test_cors_only_for_the_named_origins(server):
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
    allowed = httpx.options(server.url + "/v1/restore", headers={"Origin": "http://allowed.example", **preflight})
    assert allowed.headers.get("access-control-allow-origin") == "http://allowed.example"
    other = httpx.options(server.url + "/v1/restore", headers={"Origin": "http://evil.example", **preflight})
    assert "access-control-allow-origin" not in other.headers


def chunked(data: bytes):
    for i in range(0, len(data), 1000):
        yield data[i: i + 1000]


BAD_REQUESTS = {
    "not JSON": (b'{"lines": [', 400),
    "invalid UTF-8": (b'{"lines": ["caf\xe9"]}', 400),
    "not an object": ([1, 2], 422),
    "no lines": ({"tasks": "punc"}, 422),
    "lines not a list": ({"lines": "so i went"}, 422),
    "a line not a string": ({"lines": ["ok", 3]}, 422),
    "a lone surrogate": (b'{"lines": ["\\ud800"]}', 422),
    "a line break in a line": ({"lines": ["one\ntwo"]}, 422),
    "unknown field": ({"lines": ["ok"], "model_path": "/etc"}, 422),
    "unknown tasks": ({"lines": ["ok"], "tasks": "grammar"}, 422),
    "tasks the model cannot do": ({"lines": ["ok"], "tasks": "disf"}, 422),
    "unknown existing": ({"lines": ["ok"], "existing": "drop"}, 422),
    "fragments not a boolean": ({"lines": ["ok"], "fragments": "yes"}, 422),
    "unknown numbers": ({"lines": ["ok"], "numbers": "roman"}, 422),
    "too many lines": ({"lines": ["ok"] * 21}, 413),
    "body over the limit": ({"lines": ["word " * 2200]}, 413),
}


@pytest.mark.parametrize("case", BAD_REQUESTS)
def test_bad_request_gets_a_one_line_json_4xx(server, case):
    body, status = BAD_REQUESTS[case]
    reply = post(server, body)
    assert reply.status_code == status, reply.text
    assert "\n" not in reply.text.strip() and set(reply.json()) == {"error"}


def test_streamed_body_over_the_limit_is_refused_as_it_comes(server):
    body = json.dumps({"lines": ["word " * 2200]}).encode()
    reply = httpx.post(server.url + "/v1/restore", content=chunked(body), headers=AUTH, timeout=60)
    assert "content-length" not in reply.request.headers
    assert reply.status_code == 413 and set(reply.json()) == {"error"}


def test_wrong_route_or_method_is_a_json_4xx(server):
    for reply in (httpx.get(server.url + "/v2/nothing"), httpx.get(server.url + "/v1/restore", headers=AUTH)):
        assert reply.status_code in (404, 405) and set(reply.json()) == {"error"}


def test_bad_stream_query_and_messages(server):
    # 5,000 digits: more than int() reads (a 500 and a traceback before the length was checked first)
    for query in ("lookahead=-1", "lookahead=x", "lookahead=100000", "lookahead=" + "9" * 5000, "existing=drop",
                  "colour=red"):
        with pytest.raises(InvalidStatus) as refused:
            connect(f"{server.ws_url}/v1/stream?{query}", additional_headers=AUTH)
        assert refused.value.response.status_code == 422, query
        assert set(json.loads(refused.value.response.body)) == {"error"} and len(refused.value.response.body) < 200
    with connect(server.ws_url + "/v1/stream?lookahead=0", additional_headers=AUTH) as ws:
        for bad in ("not json", "[1]", '{"words": 3}', '{"end": false}', '{"words": "a", "end": true}'):
            ws.send(bad)
            assert set(json.loads(ws.recv(timeout=60))) == {"error"}, bad
        ws.send(b"\x00binary")
        assert set(json.loads(ws.recv(timeout=60))) == {"error"}
        ws.send(json.dumps({"words": "still here"}))  # the stream goes on
        assert words_of(json.loads(ws.recv(timeout=60))) == "still here"


def test_one_log_line_per_request_without_its_text(server):
    secret = "zanzibarquokka"
    assert post(server, {"lines": [f"the {secret} went home", "ok"]}).status_code == 200
    assert post(server, {"lines": [secret], "tasks": "grammar"}).status_code == 422
    time.sleep(0.2)
    log = server.log()
    assert secret not in log
    assert " POST /v1/restore 200 lines=2 ms=" in log and " POST /v1/restore 422 lines=1 ms=" in log
    assert " GET /health 200 lines=0 ms=" in log and f" WS /v1/stream 101 lines={len(CHUNKS)} ms=" in log


@pytest.fixture(scope="module")
def small_server(tmp_path_factory):
    """A queue of one place and no token."""
    server = Server(tmp_path_factory.mktemp("small") / "log", "--queue_size", "1")
    yield server
    server.stop()


async def timed_posts(url: str, bodies: list[dict]) -> list[tuple[int, float, httpx.Headers]]:
    async def one(client, body):
        start = time.perf_counter()
        reply = await client.post(url + "/v1/restore", json=body)
        return reply.status_code, time.perf_counter() - start, reply.headers
    async with httpx.AsyncClient(timeout=120) as client:
        return await asyncio.gather(*(one(client, body) for body in bodies))


def test_full_queue_answers_503_at_once(small_server):
    lines = [" ".join(LINES[3].split() * 4)] * 30  # a second or so of model work each
    replies = asyncio.run(timed_posts(small_server.url, [{"lines": lines}] * 6))
    done = [seconds for status, seconds, _ in replies if status == 200]
    busy = [(seconds, headers) for status, seconds, headers in replies if status == 503]
    assert done and busy and len(done) + len(busy) == 6
    assert all(headers["retry-after"] == "1" for _, headers in busy)
    assert max(seconds for seconds, _ in busy) < min(done)  # refused before the work it waited on was done
    assert httpx.get(small_server.url + "/health").status_code == 200


def test_no_cors_headers_without_allow_origin(small_server):
    reply = httpx.post(small_server.url + "/v1/restore", json={"lines": ["ok"]}, headers={"Origin": "http://a.example"})
    assert reply.status_code == 200 and "access-control-allow-origin" not in reply.headers


def test_sigterm_sends_each_open_stream_its_last_words_and_exits_0(small_server):
    streams = [connect(small_server.ws_url + "/v1/stream?lookahead=8") for _ in range(2)]
    for ws, words in zip(streams, ("so i went to new york", "did you go there")):
        ws.send(json.dumps({"words": words}))  # fewer than 8 words: none final yet
    time.sleep(0.3)
    small_server.process.terminate()
    last = [json.loads(ws.recv(timeout=60)) for ws in streams]
    assert last == [{"final": "So I went to New York.", "end": True}, {"final": "Did you go there?", "end": True}]
    for ws in streams:
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=60)
        assert closed.value.rcvd.code == 1001
    assert small_server.stop() == 0


def test_an_unexpected_error_is_a_json_500_and_the_app_stays_up():
    from starlette.testclient import TestClient

    from gector_punct.service.app import Service
    from gector_punct.service.settings import ServiceSettings

    class BrokenPunctuator:  # a bug in the model code
        def reading(self, tasks, existing, fragments, numbers=None):
            return self

        def predict(self, lines):
            raise RuntimeError("a bug")

    service = Service(ServiceSettings(), BrokenPunctuator())
    try:
        with TestClient(service.app) as client:  # answered and logged: not raised again (a second traceback)
            reply = client.post("/v1/restore", json={"lines": ["ok"]})
            assert reply.status_code == 500 and set(reply.json()) == {"error"} and "a bug" not in reply.text
            assert client.get("/health").status_code == 200
    finally:
        service.queue.close()


def test_a_stream_takes_no_place_in_the_queue_before_it_has_words():
    """With one place in the queue, a second stream opened while the first has sent nothing is accepted: a
    stream's state is made on the model worker with its first words, not at its handshake (where making
    it took the only place, and a stream connecting meanwhile was refused 503)."""
    import threading

    from starlette.testclient import TestClient

    from gector_punct.service.app import Service
    from gector_punct.service.settings import ServiceSettings

    class SlowOnTheWorker:  # setting up a reader takes a while on the model worker, none on the server
        fragments, numbers = False, "words"

        def reading(self, tasks, existing, fragments, numbers=None):
            if threading.current_thread().name.startswith("model-worker"):
                time.sleep(1.0)
            return self

        def read_units(self, words):
            return [[word] for word in words]

    service = Service(ServiceSettings(queue_size=1), SlowOnTheWorker())
    try:
        with TestClient(service.app) as client, client.websocket_connect("/v1/stream?lookahead=8") as first:
            time.sleep(0.3)  # the first stream is open, with no words yet
            with client.websocket_connect("/v1/stream?lookahead=8") as second:
                second.send_json({"words": "to new york"})  # fewer than 8 words: none final, no reply
            first.send_json({"words": "so i went"})
    finally:
        service.queue.close()


def test_a_service_started_for_disf_answers_disf_requests_as_predict_does():
    """serve.py loads its model as predict.py does (``loading.load_punctuator``): --tasks disf,punc without
    --model_path is switch_en, so a request for disf is answered, with predict.py's lines, not refused."""
    from starlette.testclient import TestClient

    from gector_punct.prediction.loading import load_punctuator
    from gector_punct.prediction.settings import PredictionSettings
    from gector_punct.service.app import Service

    sys.path.insert(0, ROOT)
    import serve

    settings = serve.parse_settings(["--tasks", "disf,punc", "--device", "cpu"])
    service = Service(settings, load_punctuator(settings.prediction()))
    lines = ["so uh we went to the the store", "i i think it was um fine"]
    try:
        with TestClient(service.app) as client:
            assert client.get("/health").json()["model"] == "switch_en"
            reply = client.post("/v1/restore", json={"lines": lines, "tasks": "disf,punc"})
    finally:
        service.queue.close()
    assert reply.status_code == 200, reply.text
    predicted = load_punctuator(PredictionSettings(tasks="disf,punc", device="cpu")).predict(lines)
    assert reply.json()["lines"] == predicted and "uh" not in predicted[0]
