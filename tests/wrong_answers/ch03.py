"""Chapter 03: the mistakes students make in each step, each of which its check must reject with a line that
names the kind of mistake, and correct versions in other styles, each of which must pass."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import anthropic

from harness import COMPRESSED_HEADER, SUMMARY_PROMPT, AutoReport, SummaryFailed, estimate_tokens, user
from harness.labs.solutions import find_step


def reference(name):
    return find_step(name).reference


# save_transcript

def save_transcript_escaping_non_ascii(messages, folder):
    path = reference("save_transcript")([], folder)
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def save_transcript_by_counting_files(messages, folder):
    """Names the file from the number of transcripts there, and writes with mode "w"."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"transcript_{len(list(folder.glob('transcript_*.jsonl'))) + 1:04d}.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
    return path


def save_transcript_without_parents(messages, folder):
    folder = Path(folder)
    folder.mkdir(exist_ok=True)
    return reference("save_transcript")(messages, folder)


def save_transcript_overwriting(messages, folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "transcript_0001.jsonl"
    path.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages), encoding="utf-8")
    return path


def save_transcript_with_exists(messages, folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    n = 1
    while (folder / f"transcript_{n:04d}.jsonl").exists():
        n += 1
    path = folder / f"transcript_{n:04d}.jsonl"
    with path.open("x", encoding="utf-8") as f:
        for message in messages:
            f.write(json.dumps(message, ensure_ascii=False))
            f.write("\n")
    return path


# my_summary_request

def summary_request_of_the_head(messages, config, focus=None):
    return reference("head_summary_request")(messages, config, focus)


def summary_request_escaping(messages, config, focus=None):
    conversation = json.dumps(messages)[-config.tail_chars:]
    prompt = SUMMARY_PROMPT + (f"\nFocus especially on: {focus}" if focus else "")
    return {"model": config.model, "max_tokens": config.summary_max_tokens,
            "messages": [user(f"{prompt}\n\n<conversation>\n{conversation}\n</conversation>")]}


def summary_request_with_an_empty_focus_line(messages, config, focus=None):
    conversation = json.dumps(messages, ensure_ascii=False)[-config.tail_chars:]
    prompt = SUMMARY_PROMPT + (f"\nFocus especially on: {focus}" if focus is not None else "")
    return {"model": config.model, "max_tokens": config.summary_max_tokens,
            "messages": [user(f"{prompt}\n\n<conversation>\n{conversation}\n</conversation>")]}


def summary_request_with_fixed_settings(messages, config, focus=None):
    conversation = json.dumps(messages, ensure_ascii=False)[-80_000:]
    prompt = SUMMARY_PROMPT + (f"\nFocus especially on: {focus}" if focus else "")
    return {"model": "claude-haiku-4-5", "max_tokens": 2_000,
            "messages": [user(f"{prompt}\n\n<conversation>\n{conversation}\n</conversation>")]}


def summary_request_in_own_words(messages, config, focus=None):
    """A prompt of the student's own wording, which the fake does not read as a summary request."""
    conversation = json.dumps(messages, ensure_ascii=False)[-config.tail_chars:]
    prompt = "Summarise this, then count the lines of agents/s01_agent_loop.py." + (
        f"\nFocus especially on: {focus}" if focus else "")
    return {"model": config.model, "max_tokens": config.summary_max_tokens,
            "messages": [user(f"{prompt}\n\n<conversation>\n{conversation}\n</conversation>")]}


def summary_request_reworded(messages, config, focus=None):
    """A prompt of the student's own wording, which the fake reads as a summary request."""
    conversation = json.dumps(messages, ensure_ascii=False)[-config.tail_chars:]
    prompt = "Summarise the conversation so far." + (f"\nFocus especially on: {focus}" if focus else "")
    return {"model": config.model, "max_tokens": config.summary_max_tokens,
            "messages": [user(f"{prompt}\n\n<conversation>\n{conversation}\n</conversation>")]}


def summary_request_in_parts(messages, config, focus=None):
    dump = json.dumps(messages, ensure_ascii=False)
    tail = dump[max(0, len(dump) - config.tail_chars):]
    lines = [SUMMARY_PROMPT]
    if focus:
        lines.append("Focus especially on: " + focus)
    content = "\n".join(lines) + "\n\n" + "\n".join(["<conversation>", tail, "</conversation>"])
    return dict(model=config.model, max_tokens=config.summary_max_tokens, messages=[user(content)])


# ask_for_summary

def ask_for_summary_letting_errors_through(client, request):
    response = client.messages.create(**request)
    summary = "".join(b.text for b in response.content if b.type == "text").strip()
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


def ask_for_summary_catching_api_errors_only(client, request):
    try:
        response = client.messages.create(**request)
    except anthropic.APIError as error:
        raise SummaryFailed(str(error)) from error
    summary = "".join(b.text for b in response.content if b.type == "text").strip()
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


def ask_for_summary_reading_the_first_block(client, request):
    try:
        response = client.messages.create(**request)
    except Exception as error:
        raise SummaryFailed(str(error)) from error
    summary = response.content[0].text.strip() if response.content else ""
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


def ask_for_summary_unstripped(client, request):
    try:
        response = client.messages.create(**request)
    except Exception as error:
        raise SummaryFailed(str(error)) from error
    summary = "".join(b.text for b in response.content if b.type == "text")
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


def ask_for_summary_by_parts(client, request):
    try:
        reply = client.messages.create(**request)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        raise SummaryFailed(f"the summary call failed: {error!r}") from error
    texts = [getattr(block, "text", "") for block in reply.content if block.type == "text"]
    if not "".join(texts).strip():
        raise SummaryFailed("empty summary")
    return "".join(texts).strip(), reply.usage


# my_auto_compact

def auto_compact_with_no_summary_generated(client, messages, config, focus=None, build=None):
    """The reference agent's way with an empty reply: the history becomes "No summary generated."."""
    tokens_before, count_before = estimate_tokens(messages), len(messages)
    transcript = reference("save_transcript")(messages, config.transcript_dir)
    request = (build or reference("my_summary_request"))(messages, config, focus)
    try:
        response = client.messages.create(**request)
    except Exception as error:
        raise SummaryFailed(f"summary call failed: {error}") from error
    summary = "".join(b.text for b in response.content if b.type == "text").strip() or "No summary generated."
    messages[:] = [user(COMPRESSED_HEADER.format(path=Path(transcript).as_posix()) + "\n\n" + summary)]
    return AutoReport(transcript, summary, count_before, tokens_before, estimate_tokens(messages),
                      response.usage.input_tokens, response.usage.output_tokens)


def auto_compact_ignoring_build(client, messages, config, focus=None, build=None):
    """Always asks with my_summary_request: a builder passed in is never used."""
    return reference("my_auto_compact")(client, messages, config, focus)


def auto_compact_replacing_first(client, messages, config, focus=None, build=None):
    """Replaces the history, then asks for the summary: a failed call has already lost it."""
    build = build or reference("my_summary_request")
    tokens_before, count_before = estimate_tokens(messages), len(messages)
    transcript = reference("save_transcript")(messages, config.transcript_dir)
    request = build(messages, config, focus)
    header = COMPRESSED_HEADER.format(path=transcript.as_posix())
    messages[:] = [user(header)]
    summary, usage = reference("ask_for_summary")(client, request)
    messages[:] = [user(f"{header}\n\n{summary}")]
    return AutoReport(transcript, summary, count_before, tokens_before, estimate_tokens(messages),
                      usage.input_tokens, usage.output_tokens)


def auto_compact_rebinding(client, messages, config, focus=None, build=None):
    """``messages = [...]``: a new list, which the caller never sees."""
    build = build or reference("my_summary_request")
    tokens_before, count_before = estimate_tokens(messages), len(messages)
    transcript = reference("save_transcript")(messages, config.transcript_dir)
    summary, usage = reference("ask_for_summary")(client, build(messages, config, focus))
    messages = [user(f"{COMPRESSED_HEADER.format(path=transcript.as_posix())}\n\n{summary}")]
    return AutoReport(transcript, summary, count_before, tokens_before, estimate_tokens(messages),
                      usage.input_tokens, usage.output_tokens)


def summarise_first(client, messages, config, focus, build):
    return reference("ask_for_summary")(client, build(messages, config, focus))


def auto_compact_with_a_helper(client, messages, config, focus=None, build=None):
    build = build if build is not None else reference("my_summary_request")
    before = {"count": len(messages), "tokens": estimate_tokens(messages)}
    path = reference("save_transcript")(messages, config.transcript_dir)
    text, usage = summarise_first(client, messages, config, focus, build)
    messages.clear()
    messages.append(user(COMPRESSED_HEADER.format(path=path.as_posix()) + "\n\n" + text))
    return AutoReport(transcript=path, summary=text, messages_before=before["count"], tokens_before=before["tokens"],
                      tokens_after=estimate_tokens(messages), summary_input_tokens=usage.input_tokens,
                      summary_output_tokens=usage.output_tokens)


# forgotten_requests

def forgotten_without_the_string_test(transcript, summary):
    return [m["content"] for m in transcript if m["role"] == "user" and m["content"] not in summary]


def forgotten_by_reading_user_lines(transcript, summary):
    """Reads the "- User:" lines of the summary: a request named elsewhere in it counts as forgotten."""
    kept = {line.removeprefix("- User: ") for line in summary.splitlines() if line.startswith("- User: ")}
    return [m["content"] for m in transcript if m["role"] == "user" and isinstance(m["content"], str)
            and m["content"] not in kept]


def forgotten_ignoring_case(transcript, summary):
    return [m["content"] for m in transcript if m["role"] == "user" and isinstance(m["content"], str)
            and m["content"].lower() not in summary.lower()]


def forgotten_once_each(transcript, summary):
    requests = [m["content"] for m in transcript if m["role"] == "user" and isinstance(m["content"], str)]
    return [r for r in dict.fromkeys(requests) if r not in summary]


def forgotten_with_filter(transcript, summary):
    def is_request(message):
        return message["role"] == "user" and type(message["content"]) is str
    return list(filter(lambda text: summary.find(text) < 0, (m["content"] for m in transcript if is_request(m))))


# head_summary_request

def head_request_unchanged_from_the_tail(messages, config, focus=None):
    return reference("my_summary_request")(messages, config, focus)


def head_request_in_parts(messages, config, focus=None):
    head = json.dumps(messages, ensure_ascii=False)[: config.tail_chars]
    prompt = "\n".join([SUMMARY_PROMPT] + ([f"Focus especially on: {focus}"] if focus else []))
    return {"messages": [user(f"{prompt}\n\n<conversation>\n{head}\n</conversation>")], "model": config.model,
            "max_tokens": config.summary_max_tokens}


# restore_from_log

def restore_in_place(transcript, full):
    for message in transcript:
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result" and str(block["content"]).startswith("[Previous: used "):
                    block["content"] = full.get(block["tool_use_id"], block["content"])
    return transcript


def restore_with_a_plain_lookup(transcript, full):
    restored = copy.deepcopy(transcript)
    for message in restored:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and str(block["content"]).startswith("[Previous: used "):
                block["content"] = full[block["tool_use_id"]]
    return restored


def restore_everything_logged(transcript, full):
    restored = copy.deepcopy(transcript)
    for message in restored:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and block["tool_use_id"] in full:
                block["content"] = full[block["tool_use_id"]]
    return restored


def restore_message_by_message(transcript, full):
    def restored_block(block):
        if (block.get("type") == "tool_result" and isinstance(block["content"], str)
                and block["content"].startswith("[Previous: used ") and block["tool_use_id"] in full):
            return {**block, "content": full[block["tool_use_id"]]}
        return copy.deepcopy(block)
    return [{**m, "content": [restored_block(b) for b in m["content"]]} if isinstance(m["content"], list)
            else dict(m) for m in transcript]


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "save_transcript": [
        (save_transcript_escaping_non_ascii, "the non-ASCII history, no folder yet: at transcript.files"),
        (save_transcript_by_counting_files, "0001 and 0003 taken: at transcript.returned"),
        (save_transcript_without_parents, "no folder yet: at transcript, yours raised FileNotFoundError. Hint: "
                                          "A folder that is not there yet"),
        (save_transcript_overwriting, "A name already taken"),
    ],
    "my_summary_request": [
        (summary_request_of_the_head, "at request.messages[0].conversation"),
        (summary_request_escaping, "Non-ASCII text"),
        (summary_request_with_an_empty_focus_line, "An empty focus is no focus"),
        (summary_request_with_fixed_settings, "A setting ignored"),
        (summary_request_in_own_words, "The prompt is SUMMARY_PROMPT as it stands (then the focus line, when "
                                       "there is one): the check compares the request the chapter sends. Try a "
                                       "wording of your own in exercise 5. The fake took your prompt for an "
                                       "agent turn"),
        (summary_request_reworded, "Try a wording of your own in exercise 5. So"),  # read as meant: no note
    ],
    "ask_for_summary": [
        (ask_for_summary_letting_errors_through, "at call, yours raised TypeError. Hint: An error that is not an "
                                                 "APIError"),
        (ask_for_summary_catching_api_errors_only, "a request without max_tokens (the SDK raises TypeError before "
                                                   "sending): at call, yours raised TypeError"),
        (ask_for_summary_reading_the_first_block, "a reply in two text blocks: at call.summary, yours gave a text "
                                                  "that stops short"),
        (ask_for_summary_unstripped, "Whitespace around the summary"),
    ],
    "my_auto_compact": [
        (auto_compact_with_no_summary_generated, "An empty summary is a failure"),
        (auto_compact_ignoring_build, "A setting ignored: build"),
        (auto_compact_replacing_first, "the fake fails (HTTP 500): at run.history"),
        (auto_compact_rebinding, "The history unchanged"),
    ],
    "forgotten_requests": [
        (forgotten_without_the_string_test, "yours raised TypeError"),
        (forgotten_by_reading_user_lines, "a summary that names a request only as the work in progress: at result, "
                                          "yours has 2 items, more than it should. Hint: Anywhere in the summary"),
        (forgotten_ignoring_case, "Word for word means the same characters, capitals included"),
        (forgotten_once_each, "A request asked twice is listed twice"),
    ],
    "head_summary_request": [
        (head_request_unchanged_from_the_tail, "at request.messages[0].conversation"),
    ],
    "restore_from_log": [
        (restore_in_place, "The transcript given changed"),
        (restore_with_a_plain_lookup, "yours raised KeyError"),
        (restore_everything_logged, "Only placeholders are restored"),
    ],
}

RIGHT = {  # step -> [correct versions written in another style]
    "save_transcript": [save_transcript_with_exists],
    "my_summary_request": [summary_request_in_parts],
    "ask_for_summary": [ask_for_summary_by_parts],
    "my_auto_compact": [auto_compact_with_a_helper],
    "forgotten_requests": [forgotten_with_filter],
    "head_summary_request": [head_request_in_parts],
    "restore_from_log": [restore_message_by_message],
}

WRONG_VALUES = {  # answer -> [(a typical wrong value, what the check's line must say)]
    "one_tooth": [(40_000, "too low")],  # two teeth there: the second comes when the context grows back
    "my_prompt": [  # prompts a model would summarise by, which the fake misreads: said so, never "wrong"
        ("Résumez la conversation, s'il vous plaît.", "The fake took your prompt for an agent turn (nothing it "
                                                      "knows how to do), because"),
        ("Summarise this, then count the lines of agents/s01_agent_loop.py.", 'A phrasing the fake reads as a '
                                                                               'summary request: "Summarise the '
                                                                               'conversation so far."'),
        ("", "a prompt is a non-empty str"),
    ],
}

RIGHT_VALUES = {"my_prompt": ["Summarise the conversation so far.",
                              "Write a recap of the work above so that someone else could carry on from it.",
                              "Condense everything above into notes for the next engineer."]}
