"""Prove the README's lab command works: `make lab` starts a server that serves chapter 00, with the
project's lab defaults (lab-settings/overrides.json: no news question), then stop it.

Usage: python3 scripts/check_lab.py   (from the repository root; CI runs it after `make check`)
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
import tempfile
import time
import urllib.request

FIRST_CHAPTER = "00_the_wall.ipynb"
NOTIFICATIONS = "@jupyterlab/apputils-extension:notification"  # where the news question is switched off


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(timeout: float = 600) -> int:
    port, token = free_port(), secrets.token_hex(16)
    lab_args = f"--no-browser --ServerApp.ip=127.0.0.1 --IdentityProvider.token={token}"
    # A user settings folder of its own: what this machine's user has set must not decide the check.
    env = {**os.environ, "JUPYTER_PORT": str(port), "USE_REAL_MODEL": "0",
           "JUPYTERLAB_SETTINGS_DIR": tempfile.mkdtemp(prefix="check-lab-settings-")}
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
            except OSError:
                time.sleep(0.5)
                continue
            print(f"check_lab: `make lab` serves {served['path']} ({served['type']}) on 127.0.0.1")
            settings = f"http://127.0.0.1:{port}/lab/api/settings/{NOTIFICATIONS}?token={token}"
            with urllib.request.urlopen(settings, timeout=10) as response:
                plugin = json.load(response)  # overrides.json sets the schema's defaults; the user's settings win
            news = plugin["settings"].get("fetchNews", plugin["schema"]["properties"]["fetchNews"]["default"])
            if news != "false":
                print(f"check_lab: the lab would ask about news (fetchNews={news!r}): lab-settings not applied")
                return 1
            print("check_lab: the project's lab settings apply (no news question)")
            return 0
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
