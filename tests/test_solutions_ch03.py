"""Chapter 03's references and cases (harness/labs/solutions/ch03.py): the references agree with the harness's
layer, so a function that passes its check agrees with it too; the observations catch what they are for."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from harness import auto_compact, read_transcript, request_summary, user
from harness.core.auto import tail_request
from harness.labs.solutions import find_step
from harness.labs.solutions.ch03 import save_transcript
from harness.labs.steps import judge
from harness.labs.yours import compare


def test_the_references_agree_with_the_harness_on_every_case():
    for name, harness_version in [("my_summary_request", tail_request), ("ask_for_summary", request_summary),
                                  ("my_auto_compact", auto_compact)]:
        step = find_step(name)
        cases = [case for case in step.cases() if case[2:] != ("build",)]  # the harness's takes no builder
        agreement = compare(name, step.reference, harness_version, cases, step.observe, step.label)
        assert agreement.ok, str(agreement)


@settings(max_examples=15, deadline=None)
@given(taken=st.sets(st.integers(1, 6), max_size=5), content=st.text(max_size=30))
def test_a_transcript_takes_the_first_free_number_and_overwrites_nothing(tmp_path_factory, taken, content):
    folder = tmp_path_factory.mktemp("transcripts")
    for number in taken:
        (folder / f"transcript_{number:04d}.jsonl").write_text("old\n", encoding="utf-8")
    history = [user(content or "?")]
    path = save_transcript(history, folder)
    assert path.name == f"transcript_{min(set(range(1, 8)) - taken):04d}.jsonl"
    assert read_transcript(path) == history and json.dumps(history[0], ensure_ascii=False) in path.read_text("utf-8")
    assert all((folder / f"transcript_{n:04d}.jsonl").read_text(encoding="utf-8") == "old\n" for n in taken)


def test_a_transcript_written_with_mode_w_at_a_fixed_name_is_caught():
    def overwriting(messages, folder):
        path = Path(folder) / "transcript_0001.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages), encoding="utf-8")
        return path

    line, passed = judge(find_step("save_transcript"), overwriting)
    assert not passed and "transcript_0001 taken: at transcript.returned" in line


def test_replacing_before_the_summary_is_caught_on_a_failing_call():
    reference = find_step("my_auto_compact").reference

    def replace_first(client, messages, config, focus=None):
        original = list(messages)
        messages[:] = [user("compacting...")]  # the history is gone before the summary is asked for
        report = reference(client, original, config, focus)
        messages[:] = original
        return report

    line, passed = judge(find_step("my_auto_compact"), replace_first)
    assert not passed and "fails (HTTP 500): at run.history" in line
