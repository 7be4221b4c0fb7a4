"""Chapter 13's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

from harness.core.manual import COMPACT_TOOL_NAME, compact_focus
from harness.core.messages import assistant, tool_result, user
from harness.core.tokens import text_tokens
from harness.core.tools import PathEscape
from harness.production.offload import offload_placeholder, reads_saved, save_output
from harness.production.reinject import RESTORED_HEADER, file_entry, instruction_entry


def _round(messages, content, tools, compact, limit, should_save, after=False):
    """Chapter 04's end of round, saving each result ``should_save`` picks; ``after``: replace it once appended."""
    messages.append(assistant(content))
    results, called, focus, big = [], False, None, []
    for block in content:
        if block["type"] != "tool_use":
            continue
        outcome = tools.run(block["name"], block["input"])
        output = outcome.content
        if should_save(block, outcome, limit):
            if after:
                big.append(len(results))
            else:
                output = offload_placeholder(save_output(tools.workspace, block["name"], output), output)
        results.append(tool_result(block["id"], output, outcome.is_error))
        if block["name"] == COMPACT_TOOL_NAME:
            called, focus = True, compact_focus(block["input"])
    if results:
        messages.append(user(results))
    if called:
        compact(focus)
    for index in big:  # too late: the whole result went in, and a compaction may have seen it
        block = messages[-1]["content"][index]
        block["content"] = offload_placeholder(save_output(tools.workspace, "read_file", block["content"]),
                                               block["content"])
    return called


def _saved_ok(block, outcome, limit):
    return (not outcome.is_error and block["name"] != COMPACT_TOOL_NAME
            and not reads_saved(block["name"], block["input"]) and text_tokens(outcome.content) > limit)


def offload_after_appending(messages, content, tools, compact, limit):
    """The round as in chapter 04, then the big results swapped for their placeholders."""
    def late(block, outcome, limit):
        return _saved_ok(block, outcome, limit) and block["name"] == "read_file"
    return _round(messages, content, tools, compact, limit, late, after=True)


def offload_by_characters(messages, content, tools, compact, limit):
    return _round(messages, content, tools, compact, limit, lambda b, o, n: (
        not o.is_error and b["name"] != COMPACT_TOOL_NAME and not reads_saved(b["name"], b["input"])
        and len(o.content) > n))


def offload_at_the_limit(messages, content, tools, compact, limit):
    return _round(messages, content, tools, compact, limit, lambda b, o, n: (
        not o.is_error and b["name"] != COMPACT_TOOL_NAME and not reads_saved(b["name"], b["input"])
        and text_tokens(o.content) >= n))


def offload_errors_too(messages, content, tools, compact, limit):
    return _round(messages, content, tools, compact, limit, lambda b, o, n: (
        b["name"] != COMPACT_TOOL_NAME and not reads_saved(b["name"], b["input"]) and text_tokens(o.content) > n))


def offload_read_backs_too(messages, content, tools, compact, limit):
    return _round(messages, content, tools, compact, limit, lambda b, o, n: (
        not o.is_error and b["name"] != COMPACT_TOOL_NAME and text_tokens(o.content) > n))


def offload_compact_too(messages, content, tools, compact, limit):
    return _round(messages, content, tools, compact, limit, lambda b, o, n: (
        not o.is_error and not reads_saved(b["name"], b["input"]) and text_tokens(o.content) > n))


def offload_in_steps(messages, content, tools, compact, limit):
    """Right, written another way: the decision in a helper, the results built first."""
    def keep_in_context(name, tool_input, outcome):
        if outcome.is_error or name == COMPACT_TOOL_NAME or reads_saved(name, tool_input):
            return True
        return text_tokens(outcome.content) <= limit

    messages.append(assistant(content))
    uses = [b for b in content if b["type"] == "tool_use"]
    outcomes = [(b, tools.run(b["name"], b["input"])) for b in uses]
    results = []
    for block, outcome in outcomes:
        shown = outcome.content
        if not keep_in_context(block["name"], block["input"], outcome):
            shown = offload_placeholder(save_output(tools.workspace, block["name"], outcome.content),
                                        outcome.content)
        results.append(tool_result(block["id"], shown, outcome.is_error))
    if results:
        messages.append(user(results))
    compacts = [b for b in uses if b["name"] == COMPACT_TOOL_NAME]
    if compacts:
        compact(compact_focus(compacts[-1]["input"]))
    return bool(compacts)


def _restore(restore, workspace, budget, max_files, *, files_first=False, newest_last=False, catch=True,
             check_budget=True, skip=True, count_all=False, none_when_empty=True):
    entries, left, files = [], budget, 0
    instructions = [instruction_entry(i) for i in restore.instructions]
    paths = list(reversed(restore.recent_files)) if newest_last else list(restore.recent_files)

    def fits(entry):
        return not check_budget or text_tokens(entry) <= left

    file_entries = []
    for path in paths:
        if files == max_files:
            break
        try:
            content = workspace.read_file(path)
        except (OSError, UnicodeError, PathEscape):
            if not catch:
                raise
            if count_all:
                files += 1
            continue
        file_entries.append(file_entry(path, content))
        files += 1
    for entry in (file_entries + instructions) if files_first else (instructions + file_entries):
        if fits(entry):
            entries.append(entry)
            left -= text_tokens(entry)
        elif not skip:
            break
    if not entries and none_when_empty:
        return None
    return "\n\n".join([RESTORED_HEADER] + entries)


def reinject_files_first(restore, workspace, budget, max_files):
    return _restore(restore, workspace, budget, max_files, files_first=True)


def reinject_oldest_file_first(restore, workspace, budget, max_files):
    return _restore(restore, workspace, budget, max_files, newest_last=True)


def reinject_a_deleted_file(restore, workspace, budget, max_files):
    """No guard around read_file: a deleted file stops the whole re-injection."""
    return _restore(restore, workspace, budget, max_files, catch=False)


def reinject_over_the_budget(restore, workspace, budget, max_files):
    return _restore(restore, workspace, budget, max_files, check_budget=False)


def reinject_until_one_does_not_fit(restore, workspace, budget, max_files):
    return _restore(restore, workspace, budget, max_files, skip=False)


def reinject_counting_missing_files(restore, workspace, budget, max_files):
    return _restore(restore, workspace, budget, max_files, count_all=True)


def reinject_a_header_alone(restore, workspace, budget, max_files):
    return _restore(restore, workspace, budget, max_files, none_when_empty=False)


def reinject_in_steps(restore, workspace, budget, max_files):
    """Right, written another way: every candidate first, then one pass over the budget."""
    candidates = [(False, instruction_entry(i)) for i in restore.instructions]
    for path in restore.recent_files:
        try:
            candidates.append((True, file_entry(path, workspace.read_file(path))))
        except (OSError, UnicodeError, PathEscape):
            pass
    chosen, spent, files = [], 0, 0
    for is_file, entry in candidates:
        if is_file and files >= max_files:
            continue
        if spent + text_tokens(entry) > budget:
            continue
        chosen.append(entry)
        spent += text_tokens(entry)
        files += is_file
    return "\n\n".join([RESTORED_HEADER, *chosen]) if chosen else None


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "my_finish_offloading": [
        (offload_after_appending, "whole and was replaced afterwards"),
        (offload_by_characters, "not characters"),
        (offload_at_the_limit, "exactly limit tokens stays in"),
        (offload_errors_too, "An error is never saved"),
        (offload_read_backs_too, "never saved again"),
        (offload_compact_too, "acknowledgement is never saved"),
    ],
    "my_reinjection": [
        (reinject_files_first, "Instructions first"),
        (reinject_oldest_file_first, "newest first"),
        (reinject_a_deleted_file, "catch the error"),
        (reinject_over_the_budget, "stop adding what does not fit"),
        (reinject_until_one_does_not_fit, "the next one tried"),
        (reinject_counting_missing_files, "counting only the files put back"),
        (reinject_a_header_alone, "not a header alone"),
    ],
}

RIGHT = {"my_finish_offloading": [offload_in_steps], "my_reinjection": [reinject_in_steps]}

WRONG_VALUES = {  # answer -> [(a typical wrong value, what its line must say)]
    "ex1_limit": [(2_000, "too high")],   # a file's read is under 2,000 tokens: nothing is saved
    "ex2_kept": [(True, "how many tokens is the rule")],  # the rule's entry needs more than 10 tokens
    "ex3_over": [(0, "too low")],         # a folder of twelve files is over 10,000 tokens
    "ex4_compactions": [(3, "too high")],  # the three layers' count at 50,000, not offloading's
}
