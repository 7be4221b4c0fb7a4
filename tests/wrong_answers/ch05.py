"""Chapter 05: the mistakes students make in the layers and the loop, each of which its check must reject with a
line that names the kind of mistake, correct versions in other styles (the loop calling ``run.client``, as the
chapter's step 2 does), and an exercise's values a little off."""
from __future__ import annotations

from harness.core.loop import to_dicts
from harness.core.messages import text
from harness.labs.loop_lab import MEMORY_NAMES, context_tokens
from harness.labs.micro_lab import micro_layer
from harness.labs.solutions.ch02 import micro_compact_seen_only, my_micro_compact
from harness.labs.solutions.ch03 import my_auto_compact
from harness.labs.solutions.ch04 import my_finish_round
from harness.labs.solutions.ch05 import my_layers


# my_layers

def layers_with_the_s06_count(run):
    config, fired = run.config, []
    if config.micro and run.micro(micro_layer(my_micro_compact)):  # chapter 02's first version: no guard
        fired.append("micro")
    if config.auto and run.context_size() > config.threshold:
        run.summarise_and_replace("auto", compact=my_auto_compact)
        fired.append("auto")
    return fired


def auto_first(run):
    config, fired = run.config, []
    if config.auto and run.context_size() > config.threshold:
        run.summarise_and_replace("auto", compact=my_auto_compact)
        fired.append("auto")
    if config.micro and run.micro(micro_layer(micro_compact_seen_only)):
        fired.append("micro")
    return fired


def layers_not_gated_by_auto(run):
    fired = []
    if run.config.micro and run.micro(micro_layer(micro_compact_seen_only)):
        fired.append("micro")
    if run.context_size() > run.config.threshold:
        run.summarise_and_replace("auto", compact=my_auto_compact)
        fired.append("auto")
    return fired


def layers_not_gated_by_micro(run):
    fired = []
    if run.micro(micro_layer(micro_compact_seen_only)):
        fired.append("micro")
    if run.config.auto and run.context_size() > run.config.threshold:
        run.summarise_and_replace("auto", compact=my_auto_compact)
        fired.append("auto")
    return fired


def layers_by_a_table(run):
    def micro():
        return run.micro(micro_layer(micro_compact_seen_only))

    def auto():
        if run.context_size() <= run.config.threshold:
            return False
        run.summarise_and_replace("auto", compact=my_auto_compact)
        return True

    steps = (("micro", run.config.micro, micro), ("auto", run.config.auto, auto))
    return [name for name, on, step in steps if on and step()]


# my_agent_loop

def goes_on_after_compact(client, messages, *, system, tools, config, run):
    for _ in range(config.max_turns):
        my_layers(run)
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens, system=system,
                                          tools=tools.schemas, messages=messages)
        content = to_dicts(response.content) or [text("(no reply)")]
        my_finish_round(messages, content, tools,
                        lambda focus: run.summarise_and_replace("manual", focus, compact=my_auto_compact))
        if not any(block["type"] == "tool_use" for block in content):
            return "end_turn"
    return "max_turns"


def loop_without_a_turn_limit(client, messages, *, system, tools, config, run):
    while True:
        my_layers(run)
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens, system=system,
                                          tools=tools.schemas, messages=messages)
        content = to_dicts(response.content) or [text("(no reply)")]
        if my_finish_round(messages, content, tools,
                           lambda focus: run.summarise_and_replace("manual", focus, compact=my_auto_compact)):
            return "compact"
        if not any(block["type"] == "tool_use" for block in content):
            return "end_turn"


def loop_calling_run_client(client, messages, *, system, tools, config, run):
    """The call as the chapter's step 2 makes it: through run.client, with run's system and schemas."""
    def manual(focus):
        run.summarise_and_replace("manual", focus, compact=my_auto_compact)

    turns = 0
    while turns < run.config.max_turns:
        turns += 1
        my_layers(run)
        response = run.client.messages.create(model=run.config.model, max_tokens=run.config.max_tokens,
                                              system=run.system, tools=run.schemas, messages=run.messages)
        content = to_dicts(response.content) or [text("(no reply)")]
        asked = [block for block in content if block["type"] == "tool_use"]
        if my_finish_round(run.messages, content, tools, manual):
            return "compact"
        if not asked:
            return "end_turn"
    return "max_turns"


# late_agent_loop

def late_loop_without_layers(client, messages, *, system, tools, config, run):
    """The layers left out, not moved."""
    for _ in range(config.max_turns):
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens, system=system,
                                          tools=tools.schemas, messages=messages)
        content = to_dicts(response.content) or [text("(no reply)")]
        if my_finish_round(messages, content, tools,
                           lambda focus: run.summarise_and_replace("manual", focus, compact=my_auto_compact)):
            return "compact"
        if not any(block["type"] == "tool_use" for block in content):
            return "end_turn"
    return "max_turns"


def late_loop_calling_run_client(client, messages, *, system, tools, config, run):
    def manual(focus):
        run.summarise_and_replace("manual", focus, compact=my_auto_compact)

    for _ in range(run.config.max_turns):
        response = run.client.messages.create(model=run.config.model, max_tokens=run.config.max_tokens,
                                              system=run.system, tools=run.schemas, messages=run.messages)
        my_layers(run)
        content = to_dicts(response.content) or [text("(no reply)")]
        if my_finish_round(messages, content, tools, manual):
            return "compact"
        if not [block for block in content if block["type"] == "tool_use"]:
            return "end_turn"
    return "max_turns"


# working_share

def share_of_everything(picture):
    return picture[MEMORY_NAMES.index("working")].tokens / sum(part.tokens for part in picture)


def share_of_items(picture):
    return picture[0].items / sum(part.items for part in picture if part.where == "context")


def share_by_name(picture):
    working = next(part for part in picture if part.name == "working")
    return working.tokens / context_tokens(picture)


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "my_layers": [
        (auto_first, "at session."),
        (layers_not_gated_by_auto, "twelve files, micro on, auto off, THRESHOLD 10,000: at session."),
        (layers_not_gated_by_micro, "A setting ignored: config.micro"),
        (layers_with_the_s06_count, "Results cleared before the model read them"),
    ],
    "my_agent_loop": [
        (goes_on_after_compact, "twelve files, all three layers: at session."),
        (loop_without_a_turn_limit, "At most config.max_turns calls"),
    ],
    "late_agent_loop": [
        (late_loop_without_layers, "late_agent_loop: differs in "),
    ],
    "working_share": [
        (share_of_everything, "transcripts on disk of 90,000 tokens: at result, yours gave 0.03123"),
        (share_of_items, "Tokens, not items"),
    ],
}

RIGHT = {  # step -> [correct versions written in another style]
    "my_layers": [layers_by_a_table],
    "my_agent_loop": [loop_calling_run_client],
    "late_agent_loop": [late_loop_calling_run_client],
    "working_share": [share_by_name],
}

WRONG_VALUES = {"user_lines_per_summary": [([0, 1], "items, the answer 3")],
                "largest_working_share": [(1.0, "too high")],
                "thresholds_keeping_rule": [(frozenset({120_000}), "should not be there")]}
