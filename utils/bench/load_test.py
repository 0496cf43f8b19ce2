#!/usr/bin/env python
"""Load a running serve.py (or one it starts) with N concurrent clients for S seconds, mixing /v1/restore
requests and /v1/stream utterances; prints requests/s, the load average of the machine before and after,
and, per kind of request and outcome (a status, or a transport error), the count and p50/p95 latency and,
for a server it started, its resident memory (VmRSS) after the given request counts and the CPU time it spent
per request answered (its own process's and its model workers'), which does not depend on what else runs.

    python utils/bench/load_test.py --start_server --clients 16 --seconds 60
    python utils/bench/load_test.py --url http://127.0.0.1:8000 --token "$TOKEN" --clients 64 --seconds 30
    python utils/bench/load_test.py --start_server --clients 16 --long_clients 1 --long_words 20000 --stream_share 0
    python utils/bench/load_test.py --start_server --clients 4 --long_clients 1 --long_words 19000 --long_line_words 19000 \
        --stream_share 0 --seconds 60      # a short request beside a request of ONE 19,000-word line

A restore request carries --lines lines; a stream utterance sends its words in chunks of 4, then an end, and
counts as one request (its latency: from the first chunk to the end's reply). --long_clients of the clients
send only restore requests of --long_words words (lines of --long_line_words words), reported apart as "long". A 503 is
counted, not retried; the client goes on with its next request at once. All clients come from one
address: a server's --max_client_connections must allow them (--start_server sets it to twice --clients: a
client's next connection may come before the server has counted its last one closed).
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

import httpx
import websockets

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.service.settings import ServiceSettings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SENTENCES = ["so i went to new york last tuesday did you go there too", "yes it was great we ate pizza in brooklyn",
             "the meeting ran over by an hour so i missed my train", "can you send me the slides before friday",
             "my neighbor frank has a vegetable garden that could feed the whole street", "ok thanks bye"]


@dataclass(kw_only=True)
class LoadTestFlags(Settings):
    url: str | None = flag(None, "a running server", default_text="none; then --start_server is needed")
    start_server: bool = flag(False, "start serve.py on a free port for the run (its memory is then reported); "
                                     "stopped after")
    server_flags: str = flag("", "extra serve.py flags with --start_server")
    token: str | None = flag(None, "bearer token of the server")
    clients: int = flag(16, "concurrent clients", min=1)
    seconds: float = flag(30.0, "how long to run", above=0)
    stream_share: float = flag(0.3, "share of requests that are stream utterances", min=0, max=1)
    lines: int = flag(2, "lines per restore request", min=1)
    long_clients: int = flag(0, "clients (of --clients) that send long restore requests only", min=0)
    long_words: int = reused(ServiceSettings, "max_words", help="words of a long request")
    long_line_words: int = flag(20, "words per line of a long request (all its words: one line)", min=1)
    lookahead: int = reused(PredictionSettings, "lookahead")
    rss_at: str = flag("1000,10000", "request counts after which the started server's VmRSS is read")
    seed: int = flag(0, "random seed of the request mix")


def parse_args(argv=None) -> LoadTestFlags:
    p = FlagParser(__doc__)
    add_flags(p, LoadTestFlags)
    args = p.settings(LoadTestFlags, p.parse_args(argv))
    if (args.url is None) == (not args.start_server):
        p.error("give --url or --start_server (one of them)")
    if args.long_clients > args.clients:
        p.error(f"--long_clients must be at most --clients ({args.clients}), not {args.long_clients}")
    return args


class Tally:
    """Outcomes and latencies of successful requests; reads the server's VmRSS at the --rss_at counts."""

    def __init__(self, pid: int | None, rss_at: list[int]):
        self.pid, self.rss_at, self.rss = pid, sorted(rss_at), {}
        self.latencies: dict[str, list[float]] = {}  # per outcome
        self.count = 0

    def add(self, outcome: str, seconds: float) -> None:
        self.latencies.setdefault(outcome, []).append(seconds)
        self.count += 1
        if self.pid and self.count in self.rss_at:
            self.rss[self.count] = vm_rss_mb(self.pid)


def vm_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kb / 1024


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU time (user + system) of a process, and of its children that are running (serve.py's model
    workers): what the work cost, whatever else shares the machine."""
    def own(p: int) -> float:
        with open(f"/proc/{p}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    children = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            children += [int(c) for c in f.read().split()]
    return own(pid), sum(own(c) for c in children)


async def restore(client: httpx.AsyncClient, url: str, lines: list[str]) -> str:
    reply = await client.post(url + "/v1/restore", json={"lines": lines})
    return str(reply.status_code)


def long_lines(rng: random.Random, words: int, per_line: int) -> list[str]:
    """Lines of ``per_line`` words, ``words`` words in all, cut from the sentences in random order."""
    text = []
    while len(text) < words:
        text += rng.choice(SENTENCES).split()
    return [" ".join(text[i: min(i + per_line, words)]) for i in range(0, words, per_line)]


async def stream(url: str, headers: dict, rng: random.Random, lookahead: int) -> str:
    words = " ".join(rng.choices(SENTENCES, k=2)).split()
    try:
        async with websockets.connect(f"{url}/v1/stream?lookahead={lookahead}", additional_headers=headers) as ws:
            for i in range(0, len(words), 4):
                await ws.send(json.dumps({"words": " ".join(words[i: i + 4])}))
            await ws.send(json.dumps({"end": True}))
            while not json.loads(await ws.recv()).get("end"):
                pass
        return "200"
    except websockets.InvalidStatus as err:
        return str(err.response.status_code)


async def client_loop(url: str, args, tally: Tally, deadline: float, seed: int, long: bool) -> None:
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
    ws_url = "ws" + url[len("http"):]
    async with httpx.AsyncClient(headers=headers, timeout=120) as client:
        while time.monotonic() < deadline:
            kind = "long" if long else "stream" if rng.random() < args.stream_share else "restore"
            lines = long_lines(rng, args.long_words, args.long_line_words) if long else rng.choices(SENTENCES, k=args.lines)
            start = time.perf_counter()
            try:
                if kind == "stream":
                    outcome = await stream(ws_url, headers, rng, args.lookahead)
                else:
                    outcome = await restore(client, url, lines)
            except (httpx.HTTPError, OSError, websockets.WebSocketException) as err:
                outcome = type(err).__name__
            tally.add(f"{kind} {outcome}", time.perf_counter() - start)


def start_server(flags: str, clients: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=ROOT)
    process = subprocess.Popen([sys.executable, os.path.join(ROOT, "serve.py"), "--port", str(port),
                                "--max_client_connections", str(2 * clients), *flags.split()],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(900):
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def report(tally: Tally, seconds: float, args, loads: tuple, cpu: tuple | None) -> None:
    ok = sum(len(latencies) for outcome, latencies in tally.latencies.items() if outcome.endswith(" 200"))
    print(f"clients {args.clients} ({args.long_clients} long, {args.long_words} words), {seconds:.0f} s, "
          f"stream share {args.stream_share}, {args.lines} lines/request")
    print("load average (1 min) before {:.2f}, after {:.2f}".format(*loads))
    print(f"requests {tally.count} ({tally.count / seconds:.1f}/s), ok {ok} ({ok / seconds:.1f}/s), "
          f"not ok {tally.count - ok}")
    for outcome, latencies in sorted(tally.latencies.items()):
        latencies.sort()
        p50, p95 = (latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 for q in (0.5, 0.95))
        print(f"  {outcome}: {len(latencies)} requests, latency p50 {p50:.0f} ms, p95 {p95:.0f} ms")
    for count, mb in sorted(tally.rss.items()):
        print(f"server VmRSS after {count} requests: {mb:.0f} MB")
    if cpu and ok:
        server, children = cpu
        print(f"server CPU: {server:.1f} s in its own process, {children:.1f} s in its children (model workers); "
              f"{1000 * server / ok:.1f} + {1000 * children / ok:.1f} ms a request answered 200")


async def run(args) -> None:
    process = None
    url = args.url
    if args.start_server:
        process, url = start_server(args.server_flags, args.clients)
    load_before = os.getloadavg()[0]
    cpu_before = cpu_seconds(process.pid) if process else None
    tally = Tally(process.pid if process else None, [int(n) for n in args.rss_at.split(",") if n])
    start = time.monotonic()
    try:
        await asyncio.gather(*(client_loop(url.rstrip("/"), args, tally, start + args.seconds, args.seed + i,
                                           long=i < args.long_clients) for i in range(args.clients)))
        load_after = os.getloadavg()[0]
        cpu = tuple(b - a for a, b in zip(cpu_before, cpu_seconds(process.pid))) if process else None
    finally:
        if process:
            process.terminate()
            process.wait(60)
    report(tally, time.monotonic() - start, args, (load_before, load_after), cpu)


if __name__ == "__main__":
    asyncio.run(run(parse_args()))
