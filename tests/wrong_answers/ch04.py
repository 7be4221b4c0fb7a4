"""Chapter 04's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

from harness import COMPACT_ACK, ToolOutcome, assistant, text, tool_result, tool_use, user
from harness.labs.scenarios import READ_AGENTS
from harness.labs.solutions import find_step


def handle_any_dict(tool_input):
    if not isinstance(tool_input, dict):
        return ToolOutcome("Error: compact expects an object of arguments", is_error=True)
    return ToolOutcome(COMPACT_ACK)


def run_tools_unstripped_focus(content, tools):
    results, called, focus = [], False, None
    for block in content:
        if block["type"] == "tool_use":
            outcome = tools.run(block["name"], block["input"])
            results.append(tool_result(block["id"], outcome.content, outcome.is_error))
            if block["name"] == "compact":
                called, focus = True, block["input"].get("focus")
    return results, called, focus


def compact_first(messages, content, tools, compact):
    messages.append(assistant(content))
    results, called, focus = find_step("run_tools").reference(content, tools)
    if called:
        compact(focus)
    if results:
        messages.append(user(results))
    return called


def compact_never_answered():
    return [user(READ_AGENTS), assistant([tool_use("toolu_compact_01", "compact", {})]), user([text("Go on.")])]


def the_first_focus_wins():
    return (1, "the notes")


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "handle_compact": (handle_any_dict, "input {'focus': 3}: at outcome.is_error, yours gave False"),
    "run_tools": (run_tools_unstripped_focus, "a focus: at result[2], yours gave ' the notes on each file '"),
    "my_finish_round": (compact_first, "a focus: at round.compactions[0].valid, yours gave False"),
    "third_broken_history": (compact_never_answered, "your history: at history['refused by'], yours gave "
                                                     "'tool_use_answered'"),
    "two_compacts": (the_first_focus_wins, "a reply that calls compact twice: at result[1], yours gave 'the notes'"),
}

WRONG_VALUES = {  # answer -> (a typical wrong value, what the line must say)
    "largest_limit_with_two": (30_000, "too high"),
}
