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

from ...core.auto import COMPRESSED_HEADER, SUMMARY_PROMPT, AutoReport, SummaryFailed
from ...core.config import CompactionConfig
from ...core.messages import Message, assistant, iter_tool_results, result_text, text, tool_result, tool_use, user
from ...core.micro import is_placeholder, micro_compact
from ...core.tokens import estimate_tokens
from ...core.transcripts import read_transcript
from ...fake import fake_client
from ..auto_lab import SAWTOOTH_REQUESTS, THRESHOLD_RANGE, run_with_threshold
from ..runs import run_scenario
from ..scenarios import LONG_SESSION
from ..scratch import scratch_folder
from ..yours import Raised, random_histories
from . import Answer, Step
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
        raise SummaryFailed(f"summary call failed: {error}") from error
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


@lru_cache(maxsize=1)
def _save_setup() -> tuple[list[tuple[str, tuple[Any, ...]]], dict[Path, dict[str, str] | None]]:
    histories = named_histories() + [("no messages", [])]
    histories += [(f"random history {i}", h) for i, h in enumerate(random_histories(24, seed=3))]
    cases: list[tuple[str, tuple[Any, ...]]] = []
    before: dict[Path, dict[str, str] | None] = {}
    for i, (name, history) in enumerate(histories):
        layouts = LAYOUTS if i < 6 else (LAYOUTS[i % len(LAYOUTS)],)
        for layout, files in layouts:
            folder = _case_folder("save_transcript", len(cases))
            before[folder] = files
            cases.append((f"{name}, {layout}", (history, folder)))
    folder = _case_folder("save_transcript", len(cases))
    before[folder] = None
    cases.append(("the small history, the folder given as a str", (list(SMALL), str(folder))))
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
    other = CompactionConfig(model="claude-sonnet-4-5", summary_max_tokens=512, tail_chars=1_000)
    cases = [(name, (history, config, None)) for name, history in named_histories()]
    cases += [("the 12-file history, with a focus", (list(twelve_file_history()), config, "the user's requests")),
              ("the 12-file history, an empty focus", (list(twelve_file_history()), config, "")),
              ("the non-ASCII history, a 200-character tail", (list(NON_ASCII), short_tail, None)),
              ("first20, another model and max_tokens", (list(first20_history()), other, None)),
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


@lru_cache(maxsize=1)
def _summary_cases() -> list[tuple[str, tuple[Any, ...]]]:
    config = CompactionConfig()
    histories = named_histories() + [(f"random history {i}", h) for i, h in enumerate(random_histories(8, seed=5))]
    cases = [(f"{name}, the fake {kind}", (fake_client(**options), my_summary_request(history, config)))
             for name, history in histories for kind, options in CLIENTS]
    small = my_summary_request(list(SMALL), config)
    cases += [("the small history, max_tokens 5 (a reply cut short)",
               (fake_client(), small | {"max_tokens": 5})),
              ("the small history, max_tokens 0 (refused)", (fake_client(), small | {"max_tokens": 0}))]
    return cases


def summary_returned(function, args):
    """What a summary call is judged by: the text, and the tokens of the usage it returns."""
    summary, usage = function(*args)
    return {"summary": summary, "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}}


# my_auto_compact: (client, messages, config, focus).

@lru_cache(maxsize=1)
def _compact_cases() -> list[tuple[str, tuple[Any, ...]]]:
    runs = [(name, history, "answers", None) for name, history in named_histories()]
    twelve = list(twelve_file_history())
    runs += [("the 12-file history, with a focus", twelve, "answers", "the user's requests")]
    runs += [(name, history, kind, None) for name, history in (("the small history", list(SMALL)),
                                                               ("the 12-file history", twelve))
             for kind, _ in CLIENTS[1:]]
    runs += [(f"random history {i}", h, "answers", None) for i, h in enumerate(random_histories(30, seed=3))]
    options = dict(CLIENTS)
    return [(f"{name}, the fake {kind}" + (", a focus" if focus else ""),
             (fake_client(**options[kind]), history, CompactionConfig(transcript_dir=_case_folder("auto", n)), focus))
            for n, (name, history, kind, focus) in enumerate(runs)]


def compaction_outcome(function, args):
    """What a run of an auto_compact is judged by: the history afterwards (the transcript's path as
    <transcript>), every transcript written, and the report or the exception's type."""
    _, messages, config, _ = args
    folder = config.transcript_dir
    _lay_out(folder, None)
    try:
        report = function(*args)
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
    return {"history": json.loads(shown), "transcripts": [read_transcript(p) for p in written], "outcome": outcome}


# Exercise 1, forgotten_requests: (transcript, summary).

@lru_cache(maxsize=1)
def _forgotten_cases() -> list[tuple[str, tuple[Any, ...]]]:
    cases = [(f"{name}, its summary", (history, summary_of(history))) for name, history in named_histories()]
    cases += [(f"{name}, the summary of its last 2,000 characters", (history, summary_of(history, 2_000)))
              for name, history in named_histories()[2:4]]
    cases += [("a request asked twice, an empty summary", (list(REPEATED), "")),
              ("a request asked twice, its summary", (list(REPEATED), summary_of(list(REPEATED)))),
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
    cases = [(f"the 12-file history, keep_recent={k}", (_compacted(twelve, k), full)) for k in (0, 3, 13)]
    cases += [("the 12-file history, half of its results logged", (_compacted(twelve, 3), half)),
              ("the 12-file history, no placeholders", (twelve, full)),
              ("first20, keep_recent=3", (_compacted(first20, 3), _logged(first20))),
              ("no messages", ([], {}))]
    cases += [(f"random history {i}, keep_recent={i % 4}", (_compacted(h, i % 4), _logged(h)))
              for i, h in enumerate(random_histories(30, seed=11))]
    return cases


def restored_and_given(function, args):
    """What a restore is judged by: the transcript it returns, and the one it was given, afterwards."""
    return {"restored": function(*args), "given": args[0]}


STEPS = [
    Step("save_transcript", "03", save_transcript, lambda: _save_setup()[0], transcript_written, label="transcript",
         hint="Create the folder with its parents; one json.dumps(m, ensure_ascii=False) + '\\n' per message; "
              "try transcript_0001.jsonl, 0002, ... with open mode 'x' until one is free; return that Path."),
    Step("my_summary_request", "03", my_summary_request, _request_cases, request_parts, label="request",
         hint="Only the last config.tail_chars characters of json.dumps(messages, ensure_ascii=False), after the "
              "prompt (and the focus line when focus is not empty), in <conversation> tags; model and max_tokens "
              "from config."),
    Step("ask_for_summary", "03", ask_for_summary, _summary_cases, summary_returned, label="call",
         hint="Any exception of the call, and a reply whose text blocks join (stripped) to nothing, become "
              "SummaryFailed; return (text, response.usage)."),
    Step("my_auto_compact", "03", my_auto_compact, _compact_cases, compaction_outcome, label="run",
         hint="Save, then summarise, then replace: SummaryFailed must reach the caller with the history untouched; "
              "the one message is COMPRESSED_HEADER with the path, a blank line, then the summary.",
         needs=("save_transcript", "my_summary_request", "ask_for_summary")),
    Step("forgotten_requests", "03", forgotten_requests, _forgotten_cases,
         hint="Every user message whose content is a string (skip the lists of tool results), in order and with "
              "repeats, that is not a substring of the summary."),
    Step("head_summary_request", "03", head_summary_request, _request_cases, request_parts, label="request",
         hint="The request of my_summary_request, with the first config.tail_chars characters of the JSON."),
    Step("restore_from_log", "03", restore_from_log, _restore_cases, restored_and_given, label="after",
         hint="Work on a deep copy; put back full[id] only where the content is a placeholder and the id is in full."),
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


ANSWERS = (
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
    "Micro-compaction runs before every call, so results were placeholders turns before auto fired; swapping "
    "the two inside one turn saves none. An append-only log, written before any layer rewrites the history, "
    "keeps every output.",
]
