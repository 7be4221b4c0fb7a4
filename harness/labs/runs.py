"""Run a scenario from scratch on the offline fake: the experiments of every chapter (chapter 00).

``run_scenario`` builds the scenario's workspace in a scratch folder, opens a
``Session`` on it and sends every request. The folder is rebuilt on each
run, so a run never sees the files of the one before. It only ever deletes
a folder it made itself: each run leaves a marker file in it that names that
very folder (its real path, device and inode: ``scratch.marker_text``), and a
folder that exists and is not empty is refused with an error unless its
marker names it (``root="."`` would otherwise wipe the working directory). A
copy of a run's folder, marker included, or a renamed one is refused too: its
path or inode is another. A marker from before this rule (plain text) is not
trusted either, so such a folder must be emptied by hand once.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

from ..core.config import CompactionConfig
from ..core.loop import RunResult, run_agent
from ..core.tools import Toolbox
from ..fake import fake_client
from ..session.log import SessionLog
from ..session.runner import Session
from ..strategies.base import Compactor
from ..strategies.recall import RecallToolbox, ReversibleLayers
from ..strategies.three_layers import ThreeLayers
from .scenarios import Scenario
from .scratch import marker_text, marks_itself

MARKER = ".scenario-run"  # the file that says "run_scenario made this very folder"


class NotAScratchFolder(ValueError):
    """The folder exists, holds files, and was not made by ``run_scenario``: it is left alone."""


def fresh_folder(root: str | Path) -> Path:
    """``root`` emptied (or created) for a new run, with the marker in it; refuses anything else."""
    root = Path(root)
    if root.exists():
        if not root.is_dir():
            raise NotAScratchFolder(f"{root} is a file, not a scratch folder")
        if any(root.iterdir()) and not marks_itself(root, root / MARKER):
            raise NotAScratchFolder(
                f"{root} is not empty and was not made by run_scenario: refusing to delete it; "
                "give a new or empty folder")
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / MARKER).write_text(marker_text(root), encoding="utf-8")
    return root


def run_scenario(scenario: Scenario, config: CompactionConfig, root: str | Path, *,
                 client: Any = None, requests: tuple[str, ...] | None = None, log: bool = False,
                 recall: bool = False, compactor: Compactor | None = None,
                 loop: Callable[..., RunResult] = run_agent, stop_after: Callable[[RunResult], bool] | None = None,
                 fsync: bool = True,
                 **fake_options: Any) -> Session:
    """Build the scenario's workspace afresh under ``root`` and send all its requests.

    ``client`` defaults to the offline fake (``fake_options`` are its options). ``recall``
    (chapter 09) adds a session log, the ``recall`` tool and reversible placeholders. ``loop`` runs
    each request (chapter 05: the student's own). ``stop_after`` (chapter 09) sends no more requests
    once it is true of a request's result (a request that hit the turn limit, say). ``fsync=False``
    writes the same log without flushing it to the disk each round (a lab run that is only read back,
    never recovered; chapters 04 and 05)."""
    root = fresh_folder(root)
    workspace = scenario.build(root / "workspace")
    session_log = SessionLog(root / "session.jsonl", fsync=fsync) if log or recall else None
    toolbox = RecallToolbox(workspace, session_log) if recall else Toolbox(workspace)
    compactor = compactor or (ReversibleLayers() if recall else ThreeLayers())
    session = Session(client or fake_client(**fake_options), toolbox,
                      config.with_(transcript_dir=root / "transcripts"), log=session_log, compactor=compactor,
                      loop=loop)
    for request in requests or scenario.requests:
        result = session.ask(request)
        if stop_after is not None and stop_after(result):
            break
    return session
