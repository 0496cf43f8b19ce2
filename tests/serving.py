"""A ``serve.py`` child process on a free port for the service tests: ``Server(*flags)``, ``.url``, ``.log()``,
``.stop()`` (its output goes to ``log_path``); it has answered /health when the constructor returns."""
import os
import signal
import socket
import subprocess
import sys
import time

import httpx

from conftest import ROOT

MODEL = os.path.join(ROOT, "models", "default_en")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, log_path, *flags: str, timeout: float = 90):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.log_file = open(log_path, "w")
        env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
        self.process = subprocess.Popen([sys.executable, "serve.py", "--port", str(self.port), "--model_path", MODEL,
                                         "--device", "cpu", *flags],
                                        cwd=ROOT, env=env, stdout=self.log_file, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"serve.py exited with {self.process.returncode}:\n{self.log()}")
            try:
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        raise AssertionError(f"serve.py did not answer within {timeout} s:\n{self.log()}")

    def cpu_seconds(self) -> float:
        """The CPU time serve.py and its model workers have spent so far."""
        from load_test import cpu_seconds  # utils/bench/ (on the path: conftest)
        return sum(cpu_seconds(self.process.pid))

    def log(self) -> str:
        with open(self.log_path, encoding="utf-8") as f:
            return f.read()

    def stop(self) -> int:
        """SIGTERM, then the exit status (killed after 30 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()
        finally:
            self.log_file.close()
