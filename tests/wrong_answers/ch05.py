"""Chapter 05's typical wrong answer: the loop goes on after a manual compaction (chapter 04, section 6)."""
from __future__ import annotations

from harness.core.loop import finish_round, to_dicts
from harness.core.messages import text


def goes_on_after_compact(client, messages, *, system, tools, config, compactor, run):
    for _ in range(config.max_turns):
        compactor.before_call(run)
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens, system=system,
                                          tools=tools.schemas, messages=messages)
        content = to_dicts(response.content) or [text("(no reply)")]
        finish_round(messages, content, tools, lambda focus: compactor.on_compact(run, focus))
        compactor.after_round(run, response.usage)
        if not any(block["type"] == "tool_use" for block in content):
            return "end_turn"
    return "max_turns"


WRONG = {"my_agent_loop": (goes_on_after_compact, "twelve files, all three layers: at session.")}
