"""Four real systems' compaction loops and prompts, ported in our own words (tests/compaction_ports.py), run over
the course's long session on the fake through the real SDK, with parallel calls. Each compacts, each summary
keeps the open request, the files the tools touched, the values the assistant found and the user's rule, and
each resumes the pending request: every request gets the answer the workspace says is right (``expected``),
but where the port's own design loses a fact (said below, per port)."""
from __future__ import annotations

import json
import re

import pytest
from compaction_ports import ClaudeCodePort, CodexPort, GeminiPort, LangChainPort

from harness.fake import FakeModel
from harness.labs.scenarios import LONG_SESSION
from harness.fake.reading import EDIT, request_kind, READ_ALL, ASK_TAG, COUNT, SEARCH, FIRST_CHANGE, RECALL_RULE

LIMIT = 60_000  # above what twelve files read together take, so that a compaction is never due right after them
RULE = LONG_SESSION.requests[1]
PORTS = {"claude_code": (ClaudeCodePort, {}), "codex": (CodexPort, {}), "gemini_cli": (GeminiPort, {}),
         "langchain": (LangChainPort, {"trim_tokens": None})}
# what a port's own design loses, request by request: Gemini CLI's snapshot lists no user messages and keeps only
# the newest 30% verbatim, so the first edit asked is gone by the end
LOSES = {"gemini_cli": {"Which file did I first ask you to change?"}}
LOST = re.compile(r"lost track|do not know how|I have no tool|can no longer see")
TAG_ANSWER = re.compile(r'(?:VERSION_TAG in (\S+) is(?: already)?|Changed VERSION_TAG in (\S+) to) "([^"]+)"')


def expected_answers(workspace) -> list[str]:
    """What each request of the long session should get, worked out from the workspace and the requests alone."""
    tags = {p.relative_to(workspace.root).as_posix(): re.search(r'VERSION_TAG = "([^"]+)"', p.read_text()).group(1)
            for p in workspace.root.rglob("*.py")}
    texts = {p.relative_to(workspace.root).as_posix(): p.read_text() for p in workspace.root.rglob("*.py")}
    answers, first = [], None
    for request in LONG_SESSION.requests:
        kind, args = request_kind(request)
        if kind is READ_ALL:
            files = sorted(p for p in texts if p.startswith(args["folder"] + "/"))
            purposes = [re.match(r'"""\S+: (.+?)\.?$', texts[p], re.MULTILINE).group(1) for p in files]
            answers.append("\n".join(f"- {p}: {why}" for p, why in zip(files, purposes)))
        elif kind is EDIT and args["path"].startswith("tools/"):
            answers.append(f"I will not change {args['path']}: you asked me never to edit anything under tools/.")
        elif kind is EDIT:
            first = first or args["path"]
            tags[args["path"]] = args["value"]
            answers.append(f'Changed VERSION_TAG in {args["path"]} to "{args["value"]}".')
        elif kind is ASK_TAG:
            answers.append(f'VERSION_TAG in {args["path"]} is "{tags[args["path"]]}".')
        elif kind is COUNT:
            total = sum(t.count("\n") for p, t in texts.items() if p.startswith(args["folder"] + "/"))
            answers.append(f"The .py files under {args['folder']}/ have {total} lines in total.")
        elif kind is SEARCH:
            todos = sum(t.count("TODO") for p, t in texts.items() if p.startswith(args["folder"] + "/"))
            answers.append(f"Found {todos} TODO comments under {args['folder']}/.")
        elif kind is FIRST_CHANGE:
            answers.append(f"The first file you asked me to change was {first}.")
        elif kind is RECALL_RULE:
            answers.append(f'You told me: "{RULE}"')
        else:
            answers.append(f"Understood. From now on, {request_kind(request)[1]['rule']}")
    return answers


def final_part(answer: str) -> str:
    """A folder's reading ends with the list of what each file does; the notes before it depend on turns."""
    return answer.split("does:\n", 1)[-1] if "What each file under" in answer else answer


def touched_files(messages: list[dict]) -> dict[str, str]:
    """path -> "read" / "edited", from the calls in ``messages`` and from a summary handed over among them,
    read without the fake's code: each port's tools by their names and parameters."""
    files: dict[str, str] = {}
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            files.update({p: a for a, p in re.findall(r"^- (read|edited): (\S+)$", content, re.MULTILINE)})
            continue
        for block in content:
            if block.get("type") == "text":
                files.update({p: a for a, p in re.findall(r"^- (read|edited): (\S+)$", block["text"], re.MULTILINE)})
            if block.get("type") != "tool_use":
                continue
            name, args = block["name"], block["input"]
            path = args.get("file_path") or args.get("absolute_path")
            command = args.get("command")
            if isinstance(command, list):
                command = command[-1]
            if name == "apply_patch":
                files[re.search(r"\*\*\* Update File: (\S+)", args["input"]).group(1)] = "edited"
            elif isinstance(command, str) and re.fullmatch(r"cat (\S+)", command):
                files.setdefault(command[4:], "read")
            elif path:
                files[path] = "read" if name in ("Read", "read_file") and files.get(path) != "edited" else "edited"
    return files


def reported_tags(messages: list[dict]) -> dict[str, str]:
    """path -> the latest VERSION_TAG the assistant reported (an answer, or a summary's finding), in order."""
    found: dict[str, str] = {}
    for message in messages:
        content = message["content"]
        texts = [content] if isinstance(content, str) else [b["text"] for b in content if b.get("type") == "text"]
        if message["role"] == "assistant" and any(b.get("type") == "tool_use" for b in content if isinstance(b, dict)):
            continue
        for text in texts:
            for said, changed, value in TAG_ANSWER.findall(text):
                if message["role"] == "assistant" or "- Found: " in text:
                    found[said or changed] = value
    return found


@pytest.mark.parametrize("name", list(PORTS))
def test_the_ported_loop_compacts_keeps_what_matters_and_resumes(tmp_path, name):
    cls, options = PORTS[name]
    model = FakeModel()
    workspace = LONG_SESSION.build(tmp_path / "ws")
    truth = expected_answers(workspace)
    port = cls(model.client(), workspace, tmp_path / "transcripts", limit=LIMIT, **options)
    for request in LONG_SESSION.requests:
        port.ask(request)
    assert len(port.compactions) >= 3, name
    for compaction in port.compactions:
        summary = compaction.summary
        shown = json.dumps(compaction.shown)
        kept = compaction.before[len(compaction.shown):]
        if any(m["content"] == compaction.request for m in compaction.shown if isinstance(m["content"], str)):
            assert f"- In progress: {compaction.request}" in summary, (name, summary)  # the open request
        else:  # the loop kept it as it was
            assert any(m["content"] == compaction.request for m in kept), name
        for path, action in touched_files(compaction.shown).items():
            assert re.search(rf"^- (read|edited): {re.escape(path)}$", summary, re.MULTILINE), (name, path, summary)
        for path, value in reported_tags(compaction.shown).items():  # the values found
            assert re.search(rf'^- Found: .*{re.escape(path)}.* "{re.escape(value)}"', summary, re.MULTILINE), (
                name, path, value, summary)
        if RULE in shown:
            assert RULE in summary, (name, summary)
        said = " ".join(b.get("text", "") for b in compaction.resumed)
        assert not LOST.search(said), (name, compaction.request, said)  # the pending request goes on
    differ = {request for request, got, want in zip(LONG_SESSION.requests, port.answers, truth)
              if final_part(got) != want}
    assert differ == LOSES.get(name, set()), name
    assert port.answers[-1] == truth[-1]  # the rule held to the end: tools/ is not edited


def test_langchains_default_trim_drops_the_rule_and_tools_gets_edited(tmp_path):
    """The middleware cuts what it summarises to the newest 4,000 tokens (its default): an early rule, and the
    earlier summary that held it, fall outside the cut, so the model edits the vendored folder."""
    model = FakeModel()
    workspace = LONG_SESSION.build(tmp_path / "ws")
    truth = expected_answers(workspace)
    port = LangChainPort(model.client(), workspace, tmp_path / "transcripts", limit=LIMIT)
    for request in LONG_SESSION.requests:
        port.ask(request)
    assert len(port.compactions) >= 3 and all(len(json.dumps(c.shown)) // 4 <= 4_000 for c in port.compactions)
    assert RULE not in port.compactions[-1].summary
    assert port.answers[-2] == "I can no longer see anything you told me about tools/."
    assert port.answers[-1] == 'Changed VERSION_TAG in tools/t05_shell.py to "v5-unsafe".' != truth[-1]
