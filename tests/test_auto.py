"""Layer 2, auto-compaction and transcripts (harness/core/auto.py, harness/core/transcripts.py, chapter 03)."""
from __future__ import annotations

import copy
import json
import threading

import pytest

from harness import (COMPRESSED_HEADER, SUMMARY_PROMPT, CompactionConfig, SummaryFailed, assistant,
                     auto_compact, build_summary_request, count_tokens, estimate_tokens, read_transcript,
                     summarise, text, tool_result, tool_use, user, validate_messages, write_transcript)
from harness.fake import FakeModel, fake_client

QUESTIONS = ("What was accomplished?", "What is the current state?", "What key decisions were made, and why?")


def work_history(rounds: int = 6, size: int = 3000) -> list[dict]:
    messages = [user("Read every .py file under agents/ and summarise what each does.")]
    for n in range(rounds):
        messages.append(assistant([text(f"Note: agents/m{n}.py — module number {n}"),
                                   tool_use(f"r{n}", "read_file", {"path": f"agents/m{n}.py"})]))
        messages.append(user([tool_result(f"r{n}", f"# module {n} ünïcode\n" + "code line\n" * (size // 10))]))
    return messages


class Recorder:
    """Wraps a client: records each create() request (deep-copied) and can check things first."""

    def __init__(self, client, before_create=None):
        self.inner, self.before_create, self.requests = client, before_create, []
        self.messages = self

    def create(self, **request):
        self.requests.append(copy.deepcopy(request))
        if self.before_create:
            self.before_create(request)
        return self.inner.messages.create(**request)


@pytest.fixture
def config(tmp_path):
    return CompactionConfig(transcript_dir=tmp_path / "transcripts")


# --- the summary request ------------------------------------------------------


def test_summary_prompt_asks_three_questions():
    for question in QUESTIONS:
        assert question in SUMMARY_PROMPT


def test_summary_request_has_no_tools_and_only_the_tail():
    history = work_history()
    dump = json.dumps(history, ensure_ascii=False)
    assert len(dump) > 5000
    request = build_summary_request(history, tail_chars=5000, model="m", max_tokens=123)
    assert set(request) == {"model", "max_tokens", "messages"}  # no tools, no system
    assert (request["model"], request["max_tokens"]) == ("m", 123)
    [message] = request["messages"]
    assert message["role"] == "user" and isinstance(message["content"], str)
    prompt = message["content"]
    assert prompt.startswith(SUMMARY_PROMPT)
    assert all(q in prompt for q in QUESTIONS)
    assert f"<conversation>\n{dump[-5000:]}\n</conversation>" in prompt
    assert dump[-5001:] not in prompt
    assert "Read every .py file" not in prompt  # the first request was cut off by the tail
    assert "Focus" not in prompt


def test_summary_request_keeps_everything_when_the_tail_is_long_enough():
    history = work_history(2, 200)
    dump = json.dumps(history, ensure_ascii=False)
    prompt = build_summary_request(history, tail_chars=80_000, model="m", max_tokens=9)["messages"][0]["content"]
    assert f"<conversation>\n{dump}\n</conversation>" in prompt
    assert "ünïcode" in prompt  # not escaped


def test_summary_request_carries_the_focus():
    prompt = build_summary_request(work_history(1), tail_chars=100, model="m", max_tokens=9,
                                   focus="the user's rules")["messages"][0]["content"]
    assert "Focus especially on: the user's rules" in prompt
    assert prompt.index("Focus especially on") < prompt.index("<conversation>")


def test_summarise_sends_the_request_and_returns_text_and_usage(config):
    client = Recorder(fake_client())
    history = work_history()
    summary, usage = summarise(client, history, config.with_(tail_chars=4000, summary_max_tokens=77), focus="notes")
    [sent] = client.requests
    assert sent == build_summary_request(history, tail_chars=4000, model=config.model, max_tokens=77, focus="notes")
    assert summary.startswith("1. What was accomplished:")
    assert "Focus: notes" in summary
    assert usage.input_tokens == count_tokens(sent["messages"])
    assert usage.output_tokens > 0


# --- auto_compact ---------------------------------------------------------------


def test_auto_compact_replaces_history_by_one_message(config):
    history = work_history()
    before = copy.deepcopy(history)
    model = FakeModel()
    report = auto_compact(model.client(), history, config)
    assert model.requests == ["summary"]
    assert report.transcript == config.transcript_dir / "transcript_0001.jsonl"
    assert read_transcript(report.transcript) == before
    [message] = history
    header = COMPRESSED_HEADER.format(path=report.transcript.as_posix())
    assert message == user(f"{header}\n\n{report.summary}")
    assert "Note: agents/m5.py — module number 5" in report.summary
    assert report.messages_before == len(before)
    assert report.tokens_before == estimate_tokens(before)
    assert report.tokens_after == estimate_tokens(history) < report.tokens_before
    request = build_summary_request(before, tail_chars=config.tail_chars, model=config.model,
                                    max_tokens=config.summary_max_tokens)
    assert report.summary_input_tokens == count_tokens(request["messages"])
    assert report.summary_output_tokens > 0
    validate_messages(history)


def test_transcript_is_written_before_the_summary_call(config):
    history = work_history()
    full = copy.deepcopy(history)
    seen = []

    def transcript_must_exist(request):
        files = sorted(config.transcript_dir.glob("*.jsonl"))
        assert len(files) == 1
        assert read_transcript(files[0]) == full
        assert history == full  # not replaced yet
        seen.append(files[0])

    report = auto_compact(Recorder(fake_client(), transcript_must_exist), history, config)
    assert seen == [report.transcript]


@pytest.mark.parametrize("options", [{"fail_summaries": 1}, {"empty_summaries": True}], ids=["fails", "empty"])
def test_failed_summary_changes_nothing_keeps_transcript_and_raises(config, options):
    history = work_history()
    before = copy.deepcopy(history)
    model = FakeModel(**options)
    with pytest.raises(SummaryFailed):
        auto_compact(model.client(), history, config)
    assert history == before
    [transcript] = config.transcript_dir.glob("*.jsonl")
    assert read_transcript(transcript) == before
    assert model.requests == ["summary"]


def test_after_a_failed_summary_the_next_attempt_works(config):
    history = work_history()
    client = FakeModel(fail_summaries=1).client()
    with pytest.raises(SummaryFailed, match="summary call failed"):
        auto_compact(client, history, config)
    report = auto_compact(client, history, config)
    assert report.transcript.name == "transcript_0002.jsonl"
    assert len(history) == 1


def test_summary_failure_keeps_the_cause():
    class Broken:
        class messages:
            @staticmethod
            def create(**request):
                raise ConnectionError("wire cut")

    with pytest.raises(SummaryFailed) as info:
        summarise(Broken(), work_history(1), CompactionConfig())
    assert isinstance(info.value.__cause__, ConnectionError)
    assert "wire cut" in str(info.value)


def test_empty_summary_message(config):
    with pytest.raises(SummaryFailed, match="no text"):
        summarise(fake_client(empty_summaries=True), work_history(1), config)


# --- transcripts ------------------------------------------------------------------


def test_transcript_round_trip_is_jsonl(tmp_path):
    history = work_history(2, 100)
    path = write_transcript(history, tmp_path / "t")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(history)
    assert [json.loads(line) for line in lines] == history
    assert read_transcript(path) == history
    assert "ünïcode" in path.read_text(encoding="utf-8")


def test_fifty_compactions_in_a_row_never_collide(config):
    client = fake_client()
    paths, histories = [], []
    for n in range(50):
        history = [user(f"Request number {n}: summarise this.")]
        histories.append(copy.deepcopy(history))
        paths.append(auto_compact(client, history, config).transcript)
    assert [p.name for p in paths] == [f"transcript_{n:04d}.jsonl" for n in range(1, 51)]
    assert [read_transcript(p) for p in paths] == histories


def test_counter_skips_past_gaps_without_overwriting(tmp_path):
    first = write_transcript([user("one")], tmp_path)
    second = write_transcript([user("two")], tmp_path)
    first.unlink()  # one file left, so the counter starts at 2, which exists
    third = write_transcript([user("three")], tmp_path)
    assert third.name == "transcript_0003.jsonl"
    assert read_transcript(second) == [user("two")]


def test_two_threads_writing_at_once_never_collide(tmp_path):
    start = threading.Barrier(2)
    written: dict[str, list] = {"a": [], "b": []}

    def writer(name):
        start.wait()
        for n in range(25):
            written[name].append(write_transcript([user(f"{name} {n}")], tmp_path))

    threads = [threading.Thread(target=writer, args=(name,)) for name in written]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    paths = written["a"] + written["b"]
    assert len(set(paths)) == 50
    assert len(list(tmp_path.glob("transcript_*.jsonl"))) == 50
    for name, own in written.items():
        assert [read_transcript(p) for p in own] == [[user(f"{name} {n}")] for n in range(25)]
