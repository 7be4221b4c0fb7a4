"""Deterministic workspaces and sessions to run the agent on (chapter 00).

``twelve_files`` is the seed's worked example: a folder ``agents/`` of 12
Python files of about 150 lines (about 2,000 tokens each) and the task
"read every .py file under agents/ and summarise what each does".
``long_session`` is a multi-task working session over four folders that
revisits early files and early instructions; uncompressed it runs well past
100,000 tokens of context. ``wall_session`` is the same session going on
over three more folders (``tests/``, ``scripts/``, ``examples/``) until,
uncompressed, a request no longer fits a 200,000-token window.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from ..core.tools import Workspace

AGENT_FILES = {
    "s01_agent_loop": "runs the basic agent loop: call the model, run the tools it asks for, repeat",
    "s02_tool_use": "dispatches tool calls by name and returns their results to the model",
    "s03_todo_write": "keeps a todo list the agent updates as it plans and finishes steps",
    "s04_subagent": "starts a child agent with a fresh context for a self-contained subtask",
    "s05_skill_loading": "loads skill files on demand instead of putting them all in the prompt",
    "s06_context_compact": "compacts the context in three layers so long sessions keep going",
    "s07_task_system": "stores tasks with dependencies on disk so work survives restarts",
    "s08_background_tasks": "runs slow commands in the background and reports when they finish",
    "s09_agent_teams": "lets several agents share a task board and message each other",
    "s10_team_protocols": "defines request and response protocols between team members",
    "s11_autonomous_agents": "lets idle agents claim unassigned tasks by themselves",
    "s12_worktree_isolation": "gives each task its own git worktree so edits do not collide",
}
CORE_FILES = {
    "c01_config": "reads settings from the environment and validates them",
    "c02_messages": "builds and checks the message list sent to the model",
    "c03_tokens": "estimates how many tokens a request will use",
    "c04_transport": "sends requests over HTTP with retries and timeouts",
    "c05_events": "publishes events that the user interface can subscribe to",
    "c06_storage": "writes session records to an append-only log",
    "c07_permissions": "asks the user before a tool touches anything risky",
    "c08_sandbox": "confines file access to one workspace folder",
    "c09_prompts": "assembles the system prompt from reusable sections",
    "c10_metrics": "counts calls, tokens and latency per session",
    "c11_scheduler": "decides which queued task runs next",
    "c12_shutdown": "stops background work cleanly when the session ends",
}
TOOL_FILES = {
    "t01_read": "reads a file, optionally only some lines",
    "t02_write": "writes a whole file, creating folders as needed",
    "t03_edit": "replaces one exact piece of text in a file",
    "t04_search": "finds lines that match a pattern across files",
    "t05_shell": "runs an allowlisted shell command with a timeout",
    "t06_fetch": "downloads a web page and strips it to text",
    "t07_diff": "shows what changed between two versions of a file",
    "t08_tests": "runs the test suite and reports failures",
    "t09_format": "reformats source files in a consistent style",
    "t10_git": "commits, branches and shows the history of the repository",
}
PLUGIN_FILES = {
    "p01_lint": "runs the linter on changed files after every edit",
    "p02_coverage": "reports which lines the tests did not reach",
    "p03_docs": "builds the documentation site from docstrings",
    "p04_changelog": "collects change notes into the next release entry",
    "p05_cache": "caches tool results keyed by their arguments",
    "p06_telemetry": "sends anonymous usage counts when the user allows it",
    "p07_review": "asks a second model to review a diff before it is committed",
    "p08_i18n": "translates user-facing messages into the configured language",
    "p09_release": "tags a version and uploads the built package",
    "p10_notify": "posts a message when a long task finishes",
    "p11_backup": "copies the session log to a second folder every hour",
    "p12_profile": "measures where a slow command spends its time",
}
TEST_FILES = {
    "test_loop": "checks that the agent loop stops when the model ends its turn",
    "test_dispatch": "checks that every tool call reaches the right handler",
    "test_todos": "checks that finished todo items stay finished",
    "test_subagents": "checks that a child agent starts with an empty history",
    "test_skills": "checks that a skill is loaded only when it is asked for",
    "test_compaction": "checks that compaction keeps every tool call paired with its result",
    "test_tasks": "checks that task dependencies survive a restart",
    "test_background": "checks that a background command reports when it finishes",
    "test_teams": "checks that two agents never claim the same task",
    "test_protocols": "checks that a malformed team message is refused",
    "test_autonomy": "checks that an idle agent picks the oldest open task",
    "test_worktrees": "checks that two tasks never edit the same worktree",
}
SCRIPT_FILES = {
    "sc01_setup": "creates the virtual environment and installs the pinned packages",
    "sc02_lint": "runs the linters on every source file",
    "sc03_bench": "times the agent on a fixed set of tasks",
    "sc04_release": "builds the package and drafts the release notes",
    "sc05_migrate": "upgrades old session logs to the current format",
    "sc06_replay": "replays a session log against a new model",
    "sc07_prune": "deletes transcripts older than a month",
    "sc08_report": "turns benchmark results into a table",
    "sc09_seed": "fills a workspace with example files",
    "sc10_check_links": "finds broken links in the documentation",
    "sc11_profile": "records where a slow run spends its time",
    "sc12_clean": "removes build output and caches",
}
EXAMPLE_FILES = {
    "e01_hello": "asks the agent one question and prints the answer",
    "e02_read_repo": "lets the agent read a small repository and describe it",
    "e03_fix_typo": "lets the agent find and fix a typo in a README",
    "e04_todo_plan": "shows the agent planning a change with a todo list",
    "e05_subagent": "hands a search to a child agent and uses its report",
    "e06_long_session": "keeps one session going over many requests",
    "e07_resume": "reopens a session from its log after a crash",
    "e08_background": "runs the test suite in the background while the agent works",
    "e09_team": "lets two agents split a refactoring between them",
    "e10_review": "asks a second agent to review a change",
    "e11_worktree": "runs two tasks in separate git worktrees",
    "e12_budget": "stops the agent when a token budget runs out",
}

_VERBS = ["load", "parse", "build", "check", "merge", "render", "collect", "update", "resolve",
          "format", "select", "record", "split", "apply", "refresh", "measure"]
_NOUNS = ["request", "payload", "history", "result", "entry", "record", "batch", "chunk", "window",
          "budget", "summary", "message", "handle", "option", "report", "target"]
_FIELDS = ["items", "name", "size", "limit", "offset", "status", "tokens", "path", "owner", "kind"]


def python_module(stem: str, purpose: str, index: int, lines: int = 150) -> str:
    """A realistic-looking Python module of about ``lines`` lines, the same every time."""
    rng = random.Random(f"{stem}:{index}")
    tag = f"v{index}-{stem.split('_', 1)[1].split('_')[0]}"
    out = [f'"""{stem}: {purpose}.', "", "Generated for the course: realistic code that is never run.", '"""',
           "from __future__ import annotations", "", "import json", "from dataclasses import dataclass",
           "", f'VERSION_TAG = "{tag}"', f"DEFAULT_LIMIT = {rng.randint(8, 64)}", ""]
    while len(out) < lines - 8:
        verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
        field_a, field_b = rng.sample(_FIELDS, 2)
        out += [
            "",
            f"def {verb}_{noun}(payload: dict, limit: int = DEFAULT_LIMIT) -> dict:",
            f'    """{verb.capitalize()} the {noun} from ``payload``: keep at most ``limit`` {field_a}, '
            f'carry the {field_b} along, and report the total serialised size."""',
            "    if limit <= 0:",
            f'        raise ValueError(f"{verb}_{noun}: limit must be positive, got {{limit}}")',
            f'    values = list(payload.get("{field_a}", []))[:limit]',
            f'    extra = payload.get("{field_b}") or {{}}',
            "    if not values:",
            f'        return {{"{field_a}": [], "{field_b}": extra, "count": 0}}',
            f"    total = sum(len(json.dumps(v)) for v in values) + {rng.randint(1, 99)}",
            f'    return {{"{field_a}": values, "{field_b}": extra, "count": total}}',
        ]
        if rng.random() < 0.15:
            out.append(f"    # TODO: {verb} {noun}s in batches once the {field_b} is known")
    out += ["", "", "@dataclass", f"class {stem.split('_', 1)[1].title().replace('_', '')}State:",
            f'    """What {stem} keeps between calls."""', "    calls: int = 0", "    last_error: str = \"\"",
            ""]
    return "\n".join(out)


def write_folder(workspace: Workspace, folder: str, files: dict[str, str]) -> list[str]:
    """Write one generated module per entry; returns the workspace-relative paths."""
    paths = []
    for index, (stem, purpose) in enumerate(files.items(), start=1):
        path = f"{folder}/{stem}.py"
        workspace.write_file(path, python_module(stem, purpose, index))
        paths.append(path)
    return paths


@dataclass(frozen=True)
class Scenario:
    """A workspace to build and the user requests to send, in order."""
    name: str
    folders: tuple[tuple[str, dict[str, str]], ...]
    requests: tuple[str, ...]

    def build(self, root: str | Path) -> Workspace:
        workspace = Workspace(root)
        for folder, files in self.folders:
            write_folder(workspace, folder, files)
        return workspace


READ_AGENTS = "Read every .py file under agents/ and summarise what each does."

TWELVE_FILES = Scenario("twelve_files", (("agents", AGENT_FILES),), (READ_AGENTS,))

LONG_SESSION = Scenario(
    "long_session",
    (("agents", AGENT_FILES), ("core", CORE_FILES), ("tools", TOOL_FILES), ("plugins", PLUGIN_FILES)),
    (
        READ_AGENTS,
        "From now on, never edit anything under tools/; it is vendored code.",
        'In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".',
        "What is VERSION_TAG in agents/s01_agent_loop.py?",
        "Count the lines of every .py file under agents/.",
        "Read every .py file under core/ and summarise what each does.",
        'In core/c06_storage.py, change VERSION_TAG to "v6-append-only".',
        "What is VERSION_TAG in agents/s02_tool_use.py?",
        "Search core/ for TODO comments.",
        "What is VERSION_TAG in core/c01_config.py?",
        'In agents/s06_context_compact.py, change VERSION_TAG to "v6-three-layers".',
        "Read every .py file under tools/ and summarise what each does.",
        "What is VERSION_TAG in agents/s03_todo_write.py?",
        "Count the lines of every .py file under core/.",
        "What is VERSION_TAG in core/c02_messages.py?",
        'In core/c09_prompts.py, change VERSION_TAG to "v9-sections".',
        "What is VERSION_TAG in agents/s04_subagent.py?",
        "Search agents/ for TODO comments.",
        "What is VERSION_TAG in tools/t03_edit.py?",
        "What is VERSION_TAG in agents/s06_context_compact.py?",
        "What is VERSION_TAG in core/c06_storage.py?",
        "What is VERSION_TAG in agents/s05_skill_loading.py?",
        "Count the lines of every .py file under tools/.",
        'In agents/s01_agent_loop.py, change VERSION_TAG to "v1-loop".',
        "What is VERSION_TAG in core/c03_tokens.py?",
        "What is VERSION_TAG in agents/s07_task_system.py?",
        "What is VERSION_TAG in core/c09_prompts.py?",
        "Read every .py file under plugins/ and summarise what each does.",
        "What is VERSION_TAG in agents/s08_background_tasks.py?",
        'In plugins/p05_cache.py, change VERSION_TAG to "v5-keyed".',
        "What is VERSION_TAG in core/c04_transport.py?",
        "Search plugins/ for TODO comments.",
        "What is VERSION_TAG in agents/s02_tool_use.py?",
        "What is VERSION_TAG in tools/t01_read.py?",
        'In core/c03_tokens.py, change VERSION_TAG to "v3-cl100k".',
        "What is VERSION_TAG in plugins/p01_lint.py?",
        "What is VERSION_TAG in agents/s09_agent_teams.py?",
        "Count the lines of every .py file under plugins/.",
        "What is VERSION_TAG in core/c05_events.py?",
        "What is VERSION_TAG in agents/s10_team_protocols.py?",
        'In plugins/p11_backup.py, change VERSION_TAG to "v11-hourly".',
        "What is VERSION_TAG in core/c07_permissions.py?",
        "What is VERSION_TAG in agents/s11_autonomous_agents.py?",
        "What is VERSION_TAG in plugins/p07_review.py?",
        "What is VERSION_TAG in agents/s12_worktree_isolation.py?",
        "What is VERSION_TAG in core/c08_sandbox.py?",
        "What is VERSION_TAG in agents/s03_todo_write.py?",
        "What is VERSION_TAG in core/c06_storage.py?",
        "What is VERSION_TAG in plugins/p05_cache.py?",
        "What is VERSION_TAG in core/c10_metrics.py?",
        "What is VERSION_TAG in agents/s01_agent_loop.py?",
        'In agents/s07_task_system.py, change VERSION_TAG to "v7-durable".',
        "What is VERSION_TAG in agents/s07_task_system.py?",
        "Search tools/ for TODO comments.",
        'In core/c12_shutdown.py, change VERSION_TAG to "v12-clean".',
        "What is VERSION_TAG in core/c12_shutdown.py?",
        "Count the lines of every .py file under agents/.",
        'In plugins/p09_release.py, change VERSION_TAG to "v9-signed".',
        "What is VERSION_TAG in plugins/p09_release.py?",
        "What is VERSION_TAG in core/c03_tokens.py?",
        'In agents/s10_team_protocols.py, change VERSION_TAG to "v10-typed".',
        "What is VERSION_TAG in agents/s10_team_protocols.py?",
        "Search core/ for TODO comments.",
        'In core/c01_config.py, change VERSION_TAG to "v1-validated".',
        "What is VERSION_TAG in core/c01_config.py?",
        "What is VERSION_TAG in plugins/p11_backup.py?",
        "What is VERSION_TAG in agents/s06_context_compact.py?",
        "Count the lines of every .py file under core/.",
        "Which file did I first ask you to change?",
        "What did I tell you about tools/?",
        'In tools/t05_shell.py, change VERSION_TAG to "v5-unsafe".',
    ),
)

# LONG_SESSION, then the next stretch of work: chapter 00 sends it until the API refuses a request.
WALL_SESSION = Scenario(
    "wall_session",
    LONG_SESSION.folders + (("tests", TEST_FILES), ("scripts", SCRIPT_FILES), ("examples", EXAMPLE_FILES)),
    LONG_SESSION.requests + (
        "Read every .py file under tests/ and summarise what each does.",
        'In tests/test_loop.py, change VERSION_TAG to "v1-turns".',
        "What is VERSION_TAG in tests/test_loop.py?",
        "Count the lines of every .py file under tests/.",
        "What is VERSION_TAG in agents/s01_agent_loop.py?",
        "Search tests/ for TODO comments.",
        "Read every .py file under scripts/ and summarise what each does.",
        'In scripts/sc03_bench.py, change VERSION_TAG to "v3-fixed".',
        "What is VERSION_TAG in scripts/sc03_bench.py?",
        "Search scripts/ for TODO comments.",
        "Count the lines of every .py file under scripts/.",
        "What is VERSION_TAG in core/c06_storage.py?",
        "Read every .py file under examples/ and summarise what each does.",
    ),
)
