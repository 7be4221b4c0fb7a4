"""Chapter 03's steps: auto-compaction in three small functions and the one that runs them, and the exercises.

The cases: the chapter's histories (the small one, the 12-file one, the first
20 requests of the long session, one that starts with a summary, one in
non-ASCII characters, none at all) and random valid histories; for the
transcript, folders that are missing, empty, or already hold transcripts (with
a gap in the numbers); for the summary call, a fake that answers, fails with
HTTP 500, answers empty, or refuses a request too long for a 2,000-token
window; for the request, a 200-character tail that cuts inside a message, a
focus and an empty focus, another model and ``summary_max_tokens``.

The rules the references fix where the chapter leaves a choice: a transcript takes
the first free number from 0001 (so a gap is filled); an empty focus adds no
line; a forgotten request is one that is not a substring of the summary, listed
in order with its repeats; a placeholder whose id the log lacks stays. The
exercises' cases are the chapter's histories, their summaries (of the whole
tail and of a short one) and their micro-compacted copies, not the long
session's transcripts, which take too long to make for a check. Exercise 3 asks
for a value (``ANSWERS``): its truth runs the slider's positions with the
harness's ``auto_compact``.

Every run that writes gets a folder of its own under one temporary folder,
laid out afresh before each run (so yours and the reference start from the
same files) and removed when the process exits. A client in a case is a fake
client; ``compare`` deep-copies it, which makes a new client of a copy of the
same fake (``FakeClient.__reduce__``), so each run starts with the fake's
counters as they were.
"""
from __future__ import annotations

import copy
import json
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from anthropic.types import Message as Message_
from anthropic.types import TextBlock, ThinkingBlock, Usage

from ...core.auto import COMPRESSED_HEADER, SUMMARY_PROMPT, AutoReport, SummaryFailed
from ...core.config import CompactionConfig
from ...core.error_text import error_text
from ...core.messages import Message, assistant, iter_tool_results, result_text, text, tool_result, tool_use, user
from ...core.micro import is_placeholder, micro_compact
from ...core.tokens import estimate_tokens
from ...core.transcripts import read_transcript
from ...fake import fake_client
from ..auto_lab import SAWTOOTH_REQUESTS, THRESHOLD_RANGE, run_with_threshold
from ..prompt_check import misread_note, prompt_verdict
from ..runs import run_scenario
from ..scenarios import LONG_SESSION
from ..scratch import scratch_folder
from ..yours import Raised, random_histories
from . import Answer, Step, raised
from .ch02 import twelve_file_history


def save_transcript(messages, folder):
    """Write one JSON object per line to a new transcript_NNNN.jsonl in folder; return its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
    number = 1
    while True:
        path = folder / f"transcript_{number:04d}.jsonl"
        try:
            with path.open("x", encoding="utf-8") as f:  # "x": never overwrite
                f.write(lines)
            return path
        except FileExistsError:
            number += 1


def my_summary_request(messages, config, focus=None):
    """The keyword arguments of the summary call: the prompt, then the tail of the history as JSON."""
    conversation = json.dumps(messages, ensure_ascii=False)[-config.tail_chars:]
    prompt = SUMMARY_PROMPT
    if focus:
        prompt += f"\nFocus especially on: {focus}"
    content = f"{prompt}\n\n<conversation>\n{conversation}\n</conversation>"
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(content)]}


def ask_for_summary(client, request):
    """(summary text, usage) of one summary call, or SummaryFailed."""
    try:
        response = client.messages.create(**request)
    except Exception as error:  # any API or transport failure
        raise SummaryFailed(f"summary call failed: {error_text(error)}") from error
    summary = "".join(b.text for b in response.content if b.type == "text").strip()
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


def my_auto_compact(client, messages, config, focus=None, build=my_summary_request):
    """Transcript first, then the summary, then replace messages in place; SummaryFailed changes nothing."""
    tokens_before, count_before = estimate_tokens(messages), len(messages)
    transcript = save_transcript(messages, config.transcript_dir)              # 1. save everything
    summary, usage = ask_for_summary(client, build(messages, config, focus))   # 2. may raise SummaryFailed
    header = COMPRESSED_HEADER.format(path=transcript.as_posix())
    messages[:] = [user(f"{header}\n\n{summary}")]                             # 3. only now, replace
    return AutoReport(transcript, summary, count_before, tokens_before, estimate_tokens(messages),
                      usage.input_tokens, usage.output_tokens)


def forgotten_requests(transcript, summary):
    """The user requests of transcript (its user messages whose content is a string) that summary does not
    repeat word for word, in the transcript's order, repeats included."""
    requests = [m["content"] for m in transcript if m["role"] == "user" and isinstance(m["content"], str)]
    return [request for request in requests if request not in summary]


def head_summary_request(messages, config, focus=None):
    """my_summary_request, but the conversation is the first config.tail_chars characters of the JSON."""
    conversation = json.dumps(messages, ensure_ascii=False)[:config.tail_chars]
    prompt = SUMMARY_PROMPT
    if focus:
        prompt += f"\nFocus especially on: {focus}"
    content = f"{prompt}\n\n<conversation>\n{conversation}\n</conversation>"
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(content)]}


def restore_from_log(transcript, full):
    """A copy of transcript in which every placeholder whose tool_use_id is in full holds full[id] again."""
    restored = copy.deepcopy(transcript)  # the transcript given stays as it is
    for _, _, block in iter_tool_results(restored):
        if is_placeholder(block["content"]) and block["tool_use_id"] in full:
            block["content"] = full[block["tool_use_id"]]
    return restored


# The chapter's histories, built once.

SMALL = (
    user("What is VERSION_TAG in a.py?"),
    assistant([text("Reading a.py."), tool_use("toolu_1", "read_file", {"path": "a.py"})]),
    user([tool_result("toolu_1", 'VERSION_TAG = "v1"  # a.py: the first module')]),
    assistant('VERSION_TAG in a.py is "v1".'),
    user('In a.py, change VERSION_TAG to "v2".'),
)
NON_ASCII = (
    user("Résumé: 言 — what does notes.md say?"),
    assistant([tool_use("toolu_1", "read_file", {"path": "notes.md"})]),
    user([tool_result("toolu_1", "Café, naïve, 言語, ünïcödé " * 20)]),
    assistant("It lists words with accents and 言語."),
    user("Résumé again, 言 first."),
)
LISTED = (user("Plot the data."), assistant([tool_use("toolu_1", "bash", {"command": "plot"})]),
          user([tool_result("toolu_1", [text("a chart of the data")])]), assistant("Plotted."), user("Thanks."))
REPEATED = (user("What is VERSION_TAG in a.py?"), assistant('It is "v1".'),
            user("What is VERSION_TAG in a.py?"), assistant('Still "v1".'), user("Thanks."))


@lru_cache(maxsize=1)
def first20_history() -> tuple[Message, ...]:
    """The long session's first 20 requests with compaction off (the chapter's ``first20``)."""
    with scratch_folder(Path("_work/03_auto_compact")) as root:
        off = CompactionConfig(micro=False, auto=False)
        return tuple(run_scenario(LONG_SESSION, off, root / "first20", requests=SAWTOOTH_REQUESTS).messages)


def summary_of(history: list[Message], tail_chars: int = 80_000) -> str:
    """The fake's summary of a history's tail (the chapter's ``twelve_summary`` for the 12-file history)."""
    return ask_for_summary(fake_client(), my_summary_request(history, CompactionConfig(tail_chars=tail_chars)))[0]


@lru_cache(maxsize=1)
def after_summary() -> tuple[Message, ...]:
    """A history that starts with an earlier compaction's message (the chapter's ``after_summary``)."""
    summary = summary_of(list(twelve_file_history()))
    return (user(COMPRESSED_HEADER.format(path="old/transcript_0001.jsonl") + "\n\n" + summary),
            assistant("I have the summary. What next?"), user("Which files did you read?"))


def named_histories() -> list[tuple[str, list[Message]]]:
    return [("the small history", list(SMALL)), ("the non-ASCII history", list(NON_ASCII)),
            ("the 12-file history", list(twelve_file_history())), ("first20", list(first20_history())),
            ("after a summary", list(after_summary()))]


@lru_cache(maxsize=1)
def _scratch() -> tempfile.TemporaryDirectory[str]:
    """One temporary folder for every run of these cases; removed when the process exits."""
    return tempfile.TemporaryDirectory(prefix="ch03-steps-")


def _case_folder(kind: str, n: int) -> Path:
    return Path(_scratch().name) / kind / f"case{n:03d}" / "transcripts"


def _files(folder: Path) -> dict[str, list[str]] | str:
    """Every file of a folder, by name, as its lines (split on newlines, so a missing last one shows)."""
    if not folder.is_dir():
        return "no folder"
    return {p.name: p.read_text(encoding="utf-8").split("\n") for p in sorted(folder.iterdir())}


# save_transcript: (messages, folder), with what the folder holds before the call.

OLD = "an older transcript\n"
LAYOUTS: tuple[tuple[str, dict[str, str] | None], ...] = (
    ("no folder yet", None),
    ("an empty folder", {}),
    ("transcript_0001 taken", {"transcript_0001.jsonl": OLD}),
    ("0001 and 0002 taken", {"transcript_0001.jsonl": OLD, "transcript_0002.jsonl": OLD}),
    ("0001 and 0003 taken", {"transcript_0001.jsonl": OLD, "transcript_0003.jsonl": OLD}),
    ("other files only", {"notes.txt": "not a transcript\n", "transcript_0001.jsonl.bak": OLD}),
)


LAYOUT_TRAPS = {"no folder yet": "no folder", "transcript_0001 taken": "taken", "0001 and 0002 taken": "taken",
                "0001 and 0003 taken": "gap", "other files only": "other files"}


@lru_cache(maxsize=1)
def _save_setup() -> tuple[list[tuple[Any, ...]], dict[Path, dict[str, str] | None]]:
    histories = named_histories() + [("no messages", [])]
    histories += [(f"random history {i}", h) for i, h in enumerate(random_histories(24, seed=3))]
    cases: list[tuple[str, tuple[Any, ...]]] = []
    before: dict[Path, dict[str, str] | None] = {}
    for i, (name, history) in enumerate(histories):
        layouts = LAYOUTS if i < 6 else (LAYOUTS[i % len(LAYOUTS)],)
        for layout, files in layouts:
            folder = _case_folder("save_transcript", len(cases))
            before[folder] = files
            cases.append((f"{name}, {layout}", (history, folder), LAYOUT_TRAPS.get(layout)))
    folder = _case_folder("save_transcript", len(cases))
    before[folder] = None
    cases.append(("the small history, the folder given as a str", (list(SMALL), str(folder)), "str"))
    return cases, before


def _lay_out(folder: Path, files: dict[str, str] | None) -> None:
    """The case's folder as it is before the call: missing (with its parent), or holding these files."""
    shutil.rmtree(folder.parent, ignore_errors=True)
    if files is not None:
        folder.mkdir(parents=True)
        for name, content in files.items():
            (folder / name).write_text(content, encoding="utf-8")


def transcript_written(function, args):
    """What a save_transcript is judged by: the name of the path it returns, and every file in the folder."""
    messages, folder = args
    folder = Path(folder)
    _lay_out(folder, _save_setup()[1][folder])
    returned = function(messages, args[1])
    in_folder = isinstance(returned, Path) and returned.parent == folder
    return {"returned": returned.name if in_folder else f"not a Path in the folder: {returned!r}",
            "files": _files(folder)}


# my_summary_request and head_summary_request: (messages, config, focus).

@lru_cache(maxsize=1)
def _request_cases() -> list[tuple[str, tuple[Any, ...]]]:
    config = CompactionConfig()
    short_tail = config.with_(tail_chars=200)
    other = CompactionConfig(model="claude-sonnet-4-6", summary_max_tokens=512, tail_chars=1_000)
    cases = [(name, (history, config, None), "non-ascii" if "non-ASCII" in name else None)
             for name, history in named_histories()]
    cases += [("the 12-file history, with a focus", (list(twelve_file_history()), config, "the user's requests"),
               "focus"),
              ("the 12-file history, an empty focus", (list(twelve_file_history()), config, ""), "empty focus"),
              ("the non-ASCII history, a 200-character tail", (list(NON_ASCII), short_tail, None), "tail_chars"),
              ("first20, model claude-sonnet-4-6, summary_max_tokens 512, tail_chars 1,000",
               (list(first20_history()), other, None), "config"),
              ("no messages", ([], config, None))]
    cases += [(f"random history {i}, a 200-character tail", (h, short_tail, "files" if i % 7 == 0 else None))
              for i, h in enumerate(random_histories(40, seed=3))]
    return cases


def request_parts(function, args):
    """What a summary request is judged by: its arguments, and each message's prompt and conversation apart."""
    request = function(*args)

    def parts(message):
        content = message.get("content")
        if not isinstance(content, str):
            return message
        prompt, tag, conversation = content.partition("\n\n<conversation>\n")
        return {"role": message.get("role"), "prompt": prompt, "conversation": conversation if tag else "(no tag)"}

    return {"arguments": sorted(request), "model": request.get("model"), "max_tokens": request.get("max_tokens"),
            "messages": [parts(m) for m in request.get("messages", [])]}


# ask_for_summary: (client, request).

CLIENTS = (("answers", {}), ("fails (HTTP 500)", {"fail_summaries": 1}), ("answers empty", {"empty_summaries": True}),
           ("window of 2,000 tokens", {"window": 2_000}))


class ScriptedClient:
    """A client whose ``messages.create`` answers every request with the same reply: given blocks, as the SDK
    types them (a reply the fake never writes: several text blocks, a thinking block first, blank lines)."""

    def __init__(self, blocks: list[Any]):
        self.blocks = blocks

    @property
    def messages(self) -> "ScriptedClient":
        return self

    def create(self, **request: Any) -> Message_:
        return Message_(id="msg_scripted", type="message", role="assistant", model=request["model"],
                        content=self.blocks, stop_reason="end_turn", stop_sequence=None,
                        usage=Usage(input_tokens=120, output_tokens=30))


SUMMARY_LINES = ("1. What was accomplished:\n- read: a.py", "2. Current state:\n- In progress: change a.py")
REPLIES = (("a reply in two text blocks", [TextBlock(type="text", text=SUMMARY_LINES[0] + "\n"),
                                           TextBlock(type="text", text=SUMMARY_LINES[1])], "blocks"),
           ("a reply that starts with a thinking block",
            [ThinkingBlock(type="thinking", thinking="What matters here?", signature="c2ln"),
             TextBlock(type="text", text=SUMMARY_LINES[0])], "blocks"),
           ("a reply with blank lines around the summary",
            [TextBlock(type="text", text="\n\n  " + SUMMARY_LINES[0] + "  \n")], "strip"),
           ("a reply of blank lines only", [TextBlock(type="text", text=" \n\n ")], "blank"))


@lru_cache(maxsize=1)
def _summary_cases() -> list[tuple[Any, ...]]:
    config = CompactionConfig()
    small = my_summary_request(list(SMALL), config)
    cases: list[tuple[Any, ...]] = [(f"the small history, {name}", (ScriptedClient(blocks), small), trap)
                                    for name, blocks, trap in REPLIES]
    without = {key: value for key, value in small.items() if key != "max_tokens"}
    cases += [("the small history, a request without max_tokens (the SDK raises TypeError before sending)",
               (fake_client(), without), "not an API error"),
              ("the small history, the fake fails (HTTP 500)", (fake_client(fail_summaries=1), small), "fails")]
    histories = named_histories() + [(f"random history {i}", h) for i, h in enumerate(random_histories(8, seed=5))]
    cases += [(f"{name}, the fake {kind}", (fake_client(**options), my_summary_request(history, config)))
              for name, history in histories for kind, options in CLIENTS]
    cases += [("the small history, max_tokens 5 (a reply cut short)", (fake_client(), small | {"max_tokens": 5})),
              ("the small history, max_tokens 0 (refused)", (fake_client(), small | {"max_tokens": 0}), "fails")]
    return cases


def summary_returned(function, args):
    """What a summary call is judged by: the text, and the tokens of the usage it returns."""
    summary, usage = function(*args)
    return {"summary": summary, "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}}


# my_auto_compact: (client, messages, config, focus).

def quoted_request(messages, config, focus=None):
    """A request builder of a case's own: the summary prompt with the last 500 characters of the history as
    JSON, and another max_tokens (what ``build`` must be asked for when a caller passes one)."""
    conversation = json.dumps(messages, ensure_ascii=False)[-500:]
    return {"model": config.model, "max_tokens": 300,
            "messages": [user(f"{SUMMARY_PROMPT}\n\n<conversation>\n{conversation}\n</conversation>")]}


@lru_cache(maxsize=1)
def _compact_cases() -> list[tuple[Any, ...]]:
    twelve = list(twelve_file_history())
    runs: list[tuple[str, list[Message], str, str | None, Any, str | None]] = [
        ("the small history", list(SMALL), "fails (HTTP 500)", None, None, "fails"),
        ("the small history", list(SMALL), "answers empty", None, None, "empty"),
        ("the small history, build=quoted_request", list(SMALL), "answers", None, quoted_request, "build"),
        ("the 12-file history, build=head_summary_request", twelve, "answers", None, head_summary_request, "build"),
        ("the 12-file history, with a focus", twelve, "answers", "the user's requests", None, "focus")]
    runs += [(name, history, "answers", None, None, None) for name, history in named_histories()]
    runs += [(name, history, kind, None, None, "fails" if kind != "answers empty" else "empty")
             for name, history in (("the small history", list(SMALL)), ("the 12-file history", twelve))
             for kind, _ in CLIENTS[1:]]
    runs += [(f"random history {i}", h, "answers", None, None, None) for i, h in enumerate(random_histories(30, seed=3))]
    options = dict(CLIENTS)
    cases: list[tuple[Any, ...]] = []
    for n, (name, history, kind, focus, build, trap) in enumerate(runs):
        config = CompactionConfig(transcript_dir=_case_folder("auto", n))
        arguments = (fake_client(**options[kind]), history, config, focus) + ((build,) if build else ())
        cases.append((f"{name}, the fake {kind}" + (", a focus" if focus else ""), arguments, trap))
    return cases


def compaction_outcome(function, args):
    """What a run of an auto_compact is judged by: whether, when it returned, the history given was replaced
    in place by one message holding the summary, the history afterwards (the transcript's path as <transcript>), every transcript written, and
    the report or the exception's type."""
    messages, config = args[1], args[2]
    folder = config.transcript_dir
    _lay_out(folder, None)
    replaced = True
    try:
        report = function(*args)
        replaced = len(messages) == 1 and report.summary in str(messages[0].get("content"))
        outcome: Any = {"summary": report.summary, "messages_before": report.messages_before,
                        "tokens_before": report.tokens_before,
                        "tokens_after is the history's size": report.tokens_after == estimate_tokens(messages),
                        "summary tokens": (report.summary_input_tokens, report.summary_output_tokens),
                        "names the file written": [Path(report.transcript)] == sorted(folder.glob("*"))}
    except Exception as error:
        outcome = Raised(type(error).__name__)
    written = sorted(folder.glob("*"))
    shown = json.dumps(messages, ensure_ascii=False)
    for path in written:
        shown = shown.replace(path.as_posix(), "<transcript>")
    return {"replaced in place": replaced, "history": json.loads(shown),
            "transcripts": [read_transcript(p) for p in written], "outcome": outcome}


# Exercise 1, forgotten_requests: (transcript, summary).

ASK, EDIT = "What is VERSION_TAG in a.py?", 'In a.py, change VERSION_TAG to "v2".'
BY_HAND = (  # (what the summary is like, the summary): the rule is the text itself, wherever it stands
    ("a summary that names a request only as the work in progress",
     f"1. What was accomplished:\n- read: a.py\n2. Current state:\n- In progress: {EDIT}", "lines"),
    ("a summary that quotes a request inside a longer line",
     f"2. Current state:\n- User: {ASK} (answered: v1)\n- User: {EDIT}", "lines"),
    ("a summary that repeats a request in capitals", f"- User: {ASK.upper()}\n- User: {EDIT}", "case"),
)


@lru_cache(maxsize=1)
def _forgotten_cases() -> list[tuple[Any, ...]]:
    cases: list[tuple[Any, ...]] = [(f"the small history, {name}", (list(SMALL), summary), trap)
                                    for name, summary, trap in BY_HAND]
    cases += [(f"{name}, its summary", (history, summary_of(history))) for name, history in named_histories()]
    cases += [(f"{name}, the summary of its last 2,000 characters", (history, summary_of(history, 2_000)))
              for name, history in named_histories()[2:4]]
    cases += [("a request asked twice, an empty summary", (list(REPEATED), ""), "repeats"),
              ("a request asked twice, its summary", (list(REPEATED), summary_of(list(REPEATED))), "repeats"),
              ("no messages", ([], ""))]
    cases += [(f"random history {i}, the summary of its last 300 characters", (h, summary_of(h, 300)))
              for i, h in enumerate(random_histories(20, seed=7))]
    return cases


# Exercise 4, restore_from_log: (transcript, full).

def _logged(history: list[Message]) -> dict[str, str]:
    return {block["tool_use_id"]: result_text(block) for _, _, block in iter_tool_results(history)}


def _compacted(history: list[Message], keep_recent: int) -> list[Message]:
    placeholders = copy.deepcopy(history)
    micro_compact(placeholders, keep_recent, frozenset(), 0)
    return placeholders


@lru_cache(maxsize=1)
def _restore_cases() -> list[tuple[str, tuple[Any, ...]]]:
    twelve, first20 = list(twelve_file_history()), list(first20_history())
    full = _logged(twelve)
    half = dict(list(full.items())[::2])
    cases: list[tuple[Any, ...]] = [
        ("the 12-file history, keep_recent=3, half of its results logged", (_compacted(twelve, 3), half), "half"),
        ("a result whose content is a list, no placeholders", (list(LISTED), _logged(list(LISTED))),
         "no placeholders")]
    cases += [(f"the 12-file history, keep_recent={k}", (_compacted(twelve, k), full)) for k in (0, 3, 13)]
    cases += [
              ("first20, keep_recent=3", (_compacted(first20, 3), _logged(first20))),
              ("no messages", ([], {}))]
    cases += [(f"random history {i}, keep_recent={i % 4}", (_compacted(h, i % 4), _logged(h)))
              for i, h in enumerate(random_histories(30, seed=11))]
    return cases


def restored_and_given(function, args):
    """What a restore is judged by: the transcript it returns, and the one it was given, afterwards."""
    return {"restored": function(*args), "given": args[0]}


ORDER = ("The order of two steps: the transcript first, then the summary, and only then the replacement; when "
         "the summary fails, SummaryFailed reaches the caller with the history as it was (look at the case's fake).")
PROMPT_AS_IT_IS = ("The prompt is SUMMARY_PROMPT as it stands (then the focus line, when there is one): the "
                   "check compares the request the chapter sends. Try a wording of your own in exercise 5.")


def own_prompt(expected: Any, got: Any) -> str | None:
    """A ``Step.diagnose``: "own prompt" where the reference's prompt is SUMMARY_PROMPT and yours is not."""
    ours = type(expected) is str and expected.startswith(SUMMARY_PROMPT)
    return "own prompt" if ours and type(got) is str and not got.startswith(SUMMARY_PROMPT) else None
STEPS = [
    Step("save_transcript", "03", save_transcript, lambda: _save_setup()[0], transcript_written, label="transcript",
         hint="One line per message, each the message's JSON followed by a newline; the first free name from "
              "transcript_0001.jsonl on; return the path of the file written.",
         traps={"no folder": "A folder that is not there yet (nor its parent): create it, with its parents, "
                             "before writing.",
                "taken": "A name already taken: an existing transcript must stay as it was, and yours wrote over "
                         "it or skipped a free name (look at the case's folder).",
                "gap": "A gap in the numbers (0001 and 0003 taken): counting the files gives a name that is taken; "
                       "try the numbers from 0001 in turn until one is free.",
                "other files": "Other files in the folder are not transcripts: only transcript_NNNN.jsonl names "
                               "count as taken.",
                "str": "The folder may come as a str: make it a Path first, and return a Path."},
         flags={"files": "Compare the lines of the file with the messages: ensure_ascii=False keeps é and 言 as "
                         "they are, and every line, the last too, ends with a newline."},
         diagnose=raised),
    Step("my_summary_request", "03", my_summary_request, _request_cases, request_parts, label="request",
         hint="The three arguments from the config; the message: the prompt, the focus line when there is a focus, "
              "a blank line, then the tail of the JSON in <conversation> tags.",
         traps={"non-ascii": "Non-ASCII text: json.dumps escapes é as \\u00e9 unless told otherwise, and the "
                             "escapes eat into the tail (pass ensure_ascii=False).",
                "empty focus": "An empty focus is no focus: no focus line for \"\" either.",
                "focus": "A setting ignored: the focus (see the case) adds its line after the prompt.",
                "tail_chars": "A setting ignored: the tail is the config's tail_chars characters (see the case), "
                              "not a number of your own.",
                "config": "A setting ignored: model, max_tokens and the tail all come from the config "
                          "(see the case's settings).",
                "own prompt": PROMPT_AS_IT_IS},
         diagnose=own_prompt, misread=misread_note),
    Step("ask_for_summary", "03", ask_for_summary, _summary_cases, summary_returned, label="call",
         hint="Call with the request as it is; join the text of the reply's text blocks, strip it; any failure of "
              "the call, and an empty text, become SummaryFailed.",
         traps={"blocks": "The reply's blocks: a reply can hold several blocks, and not all of them are text (a "
                          "thinking block has no .text); join the text of every text block.",
                "strip": "Whitespace around the summary: strip it.",
                "blank": "A reply of blank lines is an empty summary, once stripped: SummaryFailed.",
                "not an API error": "An error that is not an APIError: the SDK raises TypeError for a request it "
                                    "cannot send; the docstring says any exception of the call becomes SummaryFailed.",
                "fails": "A failed call reaches the caller as SummaryFailed (chained to its cause), whatever "
                         "the SDK raised."},
         twins=("harness.core.auto:request_summary",)),
    Step("my_auto_compact", "03", my_auto_compact, _compact_cases, compaction_outcome, label="run",
         hint="Save, then summarise, then replace the history in place with COMPRESSED_HEADER (the transcript's "
              "path), a blank line and the summary; return the AutoReport.",
         flags={"replaced in place": "The history unchanged: replace the contents of the list you were "
                                          "given (messages[:] = ...); binding the name to a new list leaves the "
                                          "caller's history as it was."},
         traps={"build": "A setting ignored: build (the case passes a builder of its own) makes the summary request; "
                         "call it rather than my_summary_request.",
                "fails": ORDER,
                "empty": "An empty summary is a failure: SummaryFailed, the history as it was; never a stand-in "
                         "text in place of the history.",
                "focus": "A setting ignored: pass the focus on to build."},
         twins=("harness.core.auto:auto_compact",)),
    Step("forgotten_requests", "03", forgotten_requests, _forgotten_cases,
         hint="Every user message whose content is a string, in order and with repeats, that the summary does "
              "not contain character for character.",
         traps={"lines": "Anywhere in the summary: a request counts as repeated wherever its text appears, on any "
                         "line and inside a longer one, not only as a line of its own.",
                "case": "Word for word means the same characters, capitals included.",
                "repeats": "A request asked twice is listed twice, in the transcript's order.",
                "TypeError": "Only user messages whose content is a string are requests: a list of tool results "
                             "is not one."},
         diagnose=raised),
    Step("head_summary_request", "03", head_summary_request, _request_cases, request_parts, label="request",
         hint="The request of my_summary_request, except the slice: the first config.tail_chars characters.",
         traps={"own prompt": PROMPT_AS_IT_IS}, diagnose=own_prompt, misread=misread_note),
    Step("restore_from_log", "03", restore_from_log, _restore_cases, restored_and_given, label="after",
         hint="A deep copy of the transcript; a placeholder whose id the log has gets the logged output back.",
         flags={"given": "The transcript given changed: work on a deep copy and return it."},
         traps={"KeyError": "A KeyError on an id the log lacks: such a placeholder stays as it is.",
                "half": "Half the results logged: a placeholder whose id the log lacks stays as it is.",
                "no placeholders": "Only placeholders are restored: a result still whole stays as it is."},
         diagnose=raised),
]

# Exercise 3, one_tooth: the lowest THRESHOLD of the slider at which the first 20 requests compact once.

def _one_tooth() -> int:
    """The slider's positions from the lowest up, each run with the harness's auto_compact; the first
    at which the first 20 requests compact exactly once."""
    low, high, step = THRESHOLD_RANGE
    with scratch_folder(Path("_work/03_auto_compact")) as root:
        for threshold in range(low, high + 1, step):
            if len(run_with_threshold(threshold, root / "one_tooth").compactions) == 1:
                return threshold
    raise ValueError("no position of the slider gives exactly one compaction")


OWN_PROMPT = ("Summarise the conversation below for whoever picks the work up next: what has been done, where "
              "things stand now, and which decisions were taken and why.")  # one prompt of one's own


ANSWERS = (
    Answer("my_prompt", "03", truth=lambda: OWN_PROMPT, accepts=lambda value: prompt_verdict(value, list(SMALL)),
           own_words=True),
    Answer("one_tooth", "03", truth=_one_tooth,
           hint="Move the slider up from its lowest position and count the orange lines: stop at the first "
                "position with exactly one."),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "So that nothing is lost before anything is thrown away: if the summary call raises or comes back empty, "
    "SummaryFailed leaves the history exactly as it was, and the transcript is just one more file on disk.",
    "Two compactions in the same second get the same clock name, and mode 'w' silently replaces the first. "
    "Mode 'x' refuses to create a file that exists, so with a counter the next number is tried and no "
    "transcript is ever overwritten.",
    "The tail holds the current request and the state of the work; the head is old work, or placeholders after "
    "micro-compaction. The price: what was said early falls off (the 'never edit tools/' rule), and at the end "
    "the agent edits the file the user had put off limits.",
    "It replaces the history by 'No summary generated.': everything the agent knew, reduced to one line. "
    "Raising SummaryFailed keeps the history.",
    "Micro-compaction runs before every call, so most results were placeholders turns before auto fired; "
    "swapping the two inside one turn saves one of the eleven. An append-only log, written before any layer "
    "rewrites the history, keeps every output.",
]
