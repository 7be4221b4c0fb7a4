"""Chapter 03's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

import json
from pathlib import Path

from harness import COMPRESSED_HEADER, AutoReport, SummaryFailed, estimate_tokens, user
from harness.labs.solutions import find_step


def save_transcript_escaping_non_ascii(messages, folder):
    reference = find_step("save_transcript").reference
    path = reference([], folder)
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def summary_request_of_the_head(messages, config, focus=None):
    return find_step("head_summary_request").reference(messages, config, focus)


def ask_for_summary_letting_errors_through(client, request):
    response = client.messages.create(**request)
    summary = "".join(b.text for b in response.content if b.type == "text").strip()
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


def auto_compact_with_no_summary_generated(client, messages, config, focus=None):
    """The reference agent's way with an empty reply: the history becomes "No summary generated."."""
    tokens_before, count_before = estimate_tokens(messages), len(messages)
    transcript = find_step("save_transcript").reference(messages, config.transcript_dir)
    request = find_step("my_summary_request").reference(messages, config, focus)
    try:
        response = client.messages.create(**request)
    except Exception as error:
        raise SummaryFailed(f"summary call failed: {error}") from error
    summary = "".join(b.text for b in response.content if b.type == "text").strip() or "No summary generated."
    messages[:] = [user(COMPRESSED_HEADER.format(path=Path(transcript).as_posix()) + "\n\n" + summary)]
    return AutoReport(transcript, summary, count_before, tokens_before, estimate_tokens(messages),
                      response.usage.input_tokens, response.usage.output_tokens)


def forgotten_without_the_string_test(transcript, summary):
    return [m["content"] for m in transcript if m["role"] == "user" and m["content"] not in summary]


def head_request_unchanged_from_the_tail(messages, config, focus=None):
    return find_step("my_summary_request").reference(messages, config, focus)


def restore_in_place(transcript, full):
    for message in transcript:
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result" and str(block["content"]).startswith("[Previous: used "):
                    block["content"] = full.get(block["tool_use_id"], block["content"])
    return transcript


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "save_transcript": (save_transcript_escaping_non_ascii, "the non-ASCII history, no folder yet: at transcript.files"),
    "my_summary_request": (summary_request_of_the_head, "at request.messages[0].conversation"),
    "ask_for_summary": (ask_for_summary_letting_errors_through, "HTTP 500): at call, yours raised InternalServerError"),
    "my_auto_compact": (auto_compact_with_no_summary_generated, "answers empty: at run.history"),
    "forgotten_requests": (forgotten_without_the_string_test, "yours raised TypeError"),
    "head_summary_request": (head_request_unchanged_from_the_tail, "at request.messages[0].conversation"),
    "restore_from_log": (restore_in_place, "at after.given"),
}

WRONG_VALUES = {  # answer -> (a typical wrong value, what the check's line must say)
    "one_tooth": (40_000, "too low"),  # two teeth there: the second comes when the context grows back
}
