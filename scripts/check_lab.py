"""Prove the README's lab command works: `make lab` starts a server that serves chapter 00, then stop it.

Usage: python3 scripts/check_lab.py   (from the repository root; CI runs it after `make test`)
Uses only the standard library, so it runs before or after the venv exists.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request

FIRST_CHAPTER = "00_the_wall.ipynb"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(timeout: float = 600) -> int:
    port, token = free_port(), secrets.token_hex(16)
    lab_args = f"--no-browser --ServerApp.ip=127.0.0.1 --IdentityProvider.token={token}"
    env = {**os.environ, "JUPYTER_PORT": str(port), "USE_REAL_MODEL": "0"}
    server = subprocess.Popen(["make", "lab", f"LAB_ARGS={lab_args}"], env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/api/contents/{FIRST_CHAPTER}?content=0&token={token}"
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if server.poll() is not None:
                print(f"check_lab: `make lab` exited with code {server.returncode}")
                return 1
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    served = json.load(response)
                print(f"check_lab: `make lab` serves {served['path']} ({served['type']}) on 127.0.0.1")
                return 0
            except OSError:
                time.sleep(0.5)
        print(f"check_lab: no answer within {timeout:.0f} s")
        return 1
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


if __name__ == "__main__":
    sys.exit(main())
