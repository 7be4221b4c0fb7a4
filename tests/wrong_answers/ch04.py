"""Chapter 04: the mistakes students make in each step, each of which its check must reject with a line that
names the kind of mistake, and correct versions in other styles, each of which must pass."""
from __future__ import annotations

from harness import COMPACT_ACK, ToolOutcome, assistant, compact_focus, text, tool_result, tool_use, user
from harness.labs.scenarios import READ_AGENTS
from harness.labs.solutions import find_step


def reference(name):
    return find_step(name).reference


# handle_compact

def handle_any_dict(tool_input):
    if not isinstance(tool_input, dict):
        return ToolOutcome("Error: compact expects an object of arguments", is_error=True)
    return ToolOutcome(COMPACT_ACK)


def handle_with_the_focus_echoed(tool_input):
    outcome = reference("handle_compact")(tool_input)
    return outcome if outcome.is_error else ToolOutcome(f"{COMPACT_ACK} Focus: {tool_input.get('focus')}")


def handle_by_set_of_keys(tool_input):
    allowed = type(tool_input) is dict and set(tool_input) <= {"focus"} and all(
        type(value) is str for value in tool_input.values())
    return ToolOutcome(COMPACT_ACK) if allowed else ToolOutcome(f"compact: bad input {tool_input!r}", True)


# run_tools

def run_tools_unstripped_focus(content, tools):
    results, called, focus = [], False, None
    for block in content:
        if block["type"] == "tool_use":
            outcome = tools.run(block["name"], block["input"])
            results.append(tool_result(block["id"], outcome.content, outcome.is_error))
            if block["name"] == "compact":
                called, focus = True, block["input"].get("focus")
    return results, called, focus


def run_tools_counting_only_accepted_compacts(content, tools):
    """A refused compact call is not counted as called."""
    results, called, focus = [], False, None
    for block in content:
        if block["type"] != "tool_use":
            continue
        if block["name"] == "compact":
            outcome = reference("handle_compact")(block["input"])
            if not outcome.is_error:
                called, focus = True, compact_focus(block["input"])
        else:
            outcome = tools.run(block["name"], block["input"])
        results.append(tool_result(block["id"], outcome.content, outcome.is_error))
    return results, called, focus


def run_tools_first_focus(content, tools):
    results, called, focus = [], False, None
    for block in content:
        if block["type"] != "tool_use":
            continue
        if block["name"] == "compact":
            outcome = reference("handle_compact")(block["input"])
            focus = focus if called else compact_focus(block["input"])
            called = True
        else:
            outcome = tools.run(block["name"], block["input"])
        results.append(tool_result(block["id"], outcome.content, outcome.is_error))
    return results, called, focus


def outcome_of(block, tools):
    if block["name"] == "compact":
        return reference("handle_compact")(block["input"])
    return tools.run(block["name"], block["input"])


def run_tools_in_two_passes(content, tools):
    uses = [b for b in content if b["type"] == "tool_use"]
    results = [tool_result(b["id"], outcome_of(b, tools).content, outcome_of(b, tools).is_error) for b in uses]
    compacts = [b for b in uses if b["name"] == "compact"]
    return results, bool(compacts), compact_focus(compacts[-1]["input"]) if compacts else None


# my_finish_round

def compact_first(messages, content, tools, compact):
    messages.append(assistant(content))
    results, called, focus = reference("run_tools")(content, tools)
    if called:
        compact(focus)
    if results:
        messages.append(user(results))
    return called


def finish_with_an_empty_message(messages, content, tools, compact):
    messages.append(assistant(content))
    results, called, focus = reference("run_tools")(content, tools)
    messages.append(user(results))
    if called:
        compact(focus)
    return called


def finish_compacting_per_call(messages, content, tools, compact):
    """Compacts once for each compact call, after the results."""
    messages.append(assistant(content))
    results, _, _ = reference("run_tools")(content, tools)
    if results:
        messages.append(user(results))
    calls = [b for b in content if b["type"] == "tool_use" and b["name"] == "compact"]
    for block in calls:
        compact(compact_focus(block["input"]))
    return bool(calls)


def finish_with_early_returns(messages, content, tools, compact):
    messages += [assistant(content)]
    results, called, focus = reference("run_tools")(content, tools)
    if not results:
        return False
    messages += [user(results)]
    if not called:
        return False
    compact(focus)
    return True


# third_broken_history

def compact_never_answered():
    return [user(READ_AGENTS), assistant([tool_use("toolu_compact_01", "compact", {})]), user([text("Go on.")])]


def refused_for_ending_with_the_assistant():
    return [user(READ_AGENTS), assistant([tool_use("toolu_compact_01", "compact", {})]),
            user([tool_result("toolu_compact_01", COMPACT_ACK)]), assistant("Done.")]


def answered_twice():
    """A duplicate result: a 400 at the API ("each tool_use must have a single result")."""
    return [user(READ_AGENTS), assistant([tool_use("toolu_compact_01", "compact", {})]),
            user([tool_result("toolu_compact_01", COMPACT_ACK), tool_result("toolu_compact_01", COMPACT_ACK)])]


def text_before_the_result():
    ask, call = user(READ_AGENTS), assistant([text("Tidying up."), tool_use("toolu_compact_01", "compact", {})])
    return [ask, call, user([text("(the result follows)"), tool_result("toolu_compact_01", COMPACT_ACK)])]


# two_compacts

def the_first_focus_wins():
    return (1, "the notes")


def compacts_twice():
    return (2, "the rules")


def two_compacts_as_a_list():
    return [1, "the rules"]


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "handle_compact": [
        (handle_any_dict, "input {'focus': 3}: at outcome.is_error, yours gave False"),
        (handle_with_the_focus_echoed, "Acknowledge only"),
    ],
    "run_tools": [
        (run_tools_unstripped_focus, "a focus: at result.focus, yours gave a text that differs from character 0 on: "
                                     "' the notes on each file '. Hint: The focus as compact_focus gives it"),
        (run_tools_counting_only_accepted_compacts, "compact with focus 3 (refused): at result['compact called'], "
                                                    "yours gave False. Hint: A refused compact call still counts"),
        (run_tools_first_focus, "Two compact calls in one reply"),
    ],
    "my_finish_round": [
        (compact_first, "a focus: at round.compactions[0].valid, yours gave False. Hint: The order of two steps"),
        (finish_with_an_empty_message, "A reply without a tool call"),
        (finish_compacting_per_call, "Two compact calls in one reply"),
    ],
    "third_broken_history": [
        (compact_never_answered, "at history[\"compact's result right after its call\"], yours gave False"),
        (refused_for_ending_with_the_assistant, "Refused, but by one of the chapter's two rules, or a rule about "
                                                "something else"),
    ],
    "two_compacts": [
        (the_first_focus_wins, "a reply that calls compact twice: at result[1], yours gave a text"),
        (compacts_twice, "at result[0], yours gave 2"),
    ],
}

RIGHT = {  # step -> [correct versions written in another style]
    "handle_compact": [handle_by_set_of_keys],
    "run_tools": [run_tools_in_two_passes],
    "my_finish_round": [finish_with_early_returns],
    "third_broken_history": [answered_twice, text_before_the_result],
    "two_compacts": [two_compacts_as_a_list],
}

WRONG_VALUES = {  # answer -> [(a typical wrong value, what the line must say)]
    "largest_limit_with_two": [(30_000, "too high")],
}
