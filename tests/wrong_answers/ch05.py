"""Chapter 05's typical wrong answers: auto measured before micro ran; the loop goes on after a manual
compaction (chapter 04, section 6); an exercise's values a little off."""
from __future__ import annotations

from harness.core.loop import to_dicts
from harness.core.messages import text
from harness.labs.micro_lab import micro_layer
from harness.labs.solutions.ch02 import my_micro_compact
from harness.labs.solutions.ch03 import my_auto_compact
from harness.labs.solutions.ch04 import my_finish_round
from harness.labs.solutions.ch05 import my_layers


def auto_first(run):
    config, fired = run.config, []
    if config.auto and run.context_size() > config.threshold:
        run.summarise_and_replace("auto", compact=my_auto_compact)
        fired.append("auto")
    if config.micro and run.micro(micro_layer(my_micro_compact)):
        fired.append("micro")
    return fired


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


WRONG = {"my_layers": (auto_first, "at session."),
         "my_agent_loop": (goes_on_after_compact, "twelve files, all three layers: at session.")}

WRONG_VALUES = {"user_lines_per_summary": ([0, 1], "items, the answer 3"),
                "largest_working_share": (1.0, "too high"),
                "thresholds_keeping_rule": (frozenset({120_000}), "missing")}
