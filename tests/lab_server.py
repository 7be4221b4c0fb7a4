"""Start and stop an isolated JupyterLab server for the browser test (chapter-independent helper)."""
from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

# The lab defaults `make lab` uses (no news question, no update check).
PROJECT_SETTINGS = Path(__file__).resolve().parent.parent / "lab-settings"
# Test-only user settings: every cell in the page, not only those scrolled into view, so that
# labels, outputs and formulas of the whole notebook can be checked.
# And no autosave: a test never writes a notebook.
TEST_SETTINGS = {"@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
                 "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def lab_server(root: Path, home: Path, timeout: float = 60, extra: tuple[str, ...] = ()) -> Iterator[str]:
    """A JupyterLab on 127.0.0.1 serving ``root`` (``extra``: more lab options); yields the URL template
    of a notebook (``path``) in a workspace of its own (``workspace``), token included. Always stopped."""
    token, port = secrets.token_hex(16), free_port()
    settings = home / "lab-settings"
    for name, values in TEST_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTERLAB_SETTINGS_DIR": str(settings),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "USE_REAL_MODEL": "0"}
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
               f"--LabApp.app_settings_dir={PROJECT_SETTINGS}",
               f"--ServerApp.root_dir={root}", *extra]
    log = (home / "lab.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{base}/api/status?token={token}", server, timeout)
        yield f"{base}/lab/workspaces/{{workspace}}/tree/{{path}}?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def wait_until_serving(url: str, server: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with code {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"jupyter lab did not answer within {timeout} s")
