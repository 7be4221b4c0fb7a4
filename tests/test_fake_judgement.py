"""The fake agent compacts on its own judgement when its system prompt states a limit (harness/fake/judgement.py,
chapter 04). Every request goes through the real SDK to the fake server."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import assistant, count_tokens, tool_result, tool_use, user
from harness.core.manual import COMPACT_TOOL
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.judgement import COMPACT_FOCUS, NEAR_LIMIT, stated_limit
from harness.labs.scenarios import AGENT_FILES, python_module
from harness.session.runner import SYSTEM_PROMPT

MODEL = "claude-haiku-4-5"
S01 = python_module("s01_agent_loop", AGENT_FILES["s01_agent_loop"], 1)
ASK_S01 = "What is VERSION_TAG in agents/s01_agent_loop.py?"
ANSWER = 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
TASK_DONE = [user(ASK_S01), assistant([tool_use("r1", "read_file", {"path": "agents/s01_agent_loop.py"})]),
             user([tool_result("r1", S01)])]  # the next step ends the task
TOOLS = FILE_TOOLS + [COMPACT_TOOL]


def reply(system, tools=TOOLS, messages=TASK_DONE, model=None, **kwargs):
    client = (model or FakeModel()).client()
    return client.messages.create(model=MODEL, max_tokens=100, messages=messages, system=system, tools=tools,
                                  **kwargs)


def calls(message) -> list[tuple[str, dict]]:
    return [(b.name, b.input) for b in message.content if b.type == "tool_use"]


def used(system, tools=TOOLS) -> int:
    return count_tokens(TASK_DONE, system=system, tools=tools)


PHRASINGS = [
    "Your context window is {:,} tokens.",
    "You are a coding agent. context limit: {k}k tokens. Be brief.",
    "You have a {}-token budget.",
    "Always keep the context under {:,} tokens, and compact when a task is done.",
    "Context budget: {k}K tokens; plan your reads.",
    "The conversation may grow to at most {:,} tokens before you must tidy it.",
    "Note: your history is limited to {k}k tokens.\nUse tools before you answer.",
]


@pytest.mark.parametrize("phrasing", PHRASINGS)
@pytest.mark.parametrize("near", [True, False])
def test_a_stated_limit_makes_it_compact_at_the_end_of_a_task_only_when_near_it(phrasing, near):
    limit = 3_000 if near else 30_000  # the request holds about 2,550 tokens: 85% of 3,000, 8.5% of 30,000
    system = phrasing.format(limit, k=limit // 1_000)
    assert stated_limit(system) == limit
    assert (used(system) >= NEAR_LIMIT * limit) == near
    message = reply(system)
    assert message.content[0].text == ANSWER  # the task's answer comes first, as with compact_policy
    assert calls(message) == ([("compact", {"focus": COMPACT_FOCUS})] if near else [])


DISTRACTORS = [
    "Each reply may use up to 1,000 tokens.",                     # an output limit
    "Answers must stay under 2,000 tokens.",                      # an output limit, with a limit word
    "The repository keeps 3 API tokens in vault; the limit is 2 requests per second.",  # tokens, another sense
    "Files here have about 2,000 lines; the limit on reads is none.",  # a number that is not tokens
    "Never print the 2,000-token secret in config/.",            # tokens, but no context or limit
    "A tokenizer splits text into tokens: 1,000 of them make about 750 words.",
    "Keep the context under 500 tokens.",                         # under 1,000: not read as a context limit
    SYSTEM_PROMPT,                                                # the course's own prompt states no limit
]


@pytest.mark.parametrize("system", DISTRACTORS)
def test_without_a_stated_context_limit_it_never_compacts(system):
    assert stated_limit(system) is None
    assert calls(reply(system)) == []


def test_the_chapters_prompt_keeps_the_default_silent_even_after_every_task():
    model = FakeModel()  # the default policy: judgement
    assert model.compact_policy == "judgement" and calls(reply(SYSTEM_PROMPT, model=model)) == []


def test_the_smallest_stated_limit_counts_and_a_prompt_in_blocks_is_read_whole():
    system = "Your context window is 200,000 tokens. Keep the conversation below 3,000 tokens."
    assert stated_limit(system) == 3_000
    blocks = [{"type": "text", "text": "You are careful."}, {"type": "text", "text": "context limit: 3k tokens"}]
    assert calls(reply(blocks)) == [("compact", {"focus": COMPACT_FOCUS})]


def test_mid_task_it_reads_first_and_never_compacts():
    message = reply("context limit: 1k tokens", messages=[user(ASK_S01)])
    assert calls(message) == [("read_file", {"path": "agents/s01_agent_loop.py"})]


def test_no_compaction_tool_offered_means_no_compaction():
    system = "context limit: 1k tokens"
    assert calls(reply(system, tools=FILE_TOOLS)) == []
    assert calls(reply(system, tool_choice={"type": "none"})) == []


TIDY = {"name": "tidy_up", "description": "Replace the conversation so far with a short summary. Use it often.",
        "input_schema": {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}}
CONDENSE = {"name": "condense_history", "input_schema": {"type": "object", "properties": {}}}
FILE_SUMMARY = {"name": "summarize_file", "description": "Summarise one file of the repository.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
NEEDS_A_NUMBER = {"name": "compact_context", "description": "Compact the context.",
                  "input_schema": {"type": "object", "properties": {"keep": {"type": "integer"}},
                                   "required": ["keep"]}}


@pytest.mark.parametrize("extra, expected", [
    ([TIDY], [("tidy_up", {"reason": COMPACT_FOCUS})]),               # its description: it summarises the context
    ([CONDENSE], [("condense_history", {})]),                         # its name says so
    ([TIDY, COMPACT_TOOL], [("compact", {"focus": COMPACT_FOCUS})]),  # compact is preferred
    ([FILE_SUMMARY], []),                                             # summarises a file, not the context
    ([NEEDS_A_NUMBER], []),                                           # an input the fake cannot fill
])
def test_a_compaction_tool_is_found_by_its_name_or_description(extra, expected):
    assert calls(reply("context limit: 1k tokens", tools=FILE_TOOLS + extra)) == expected


@pytest.mark.parametrize("policy, limit, compacts", [
    ("never", "context limit: 1k tokens", False),     # never overrides the prompt
    ("after_task", SYSTEM_PROMPT, True),              # forced without a stated limit
    (10, SYSTEM_PROMPT, True), (10_000, "context limit: 1k tokens", False),  # the int decides, not the prompt
])
def test_compact_policy_forces_a_behaviour_whatever_the_prompt_says(policy, limit, compacts):
    assert bool(calls(reply(limit, model=FakeModel(compact_policy=policy)))) == compacts


@pytest.mark.parametrize("policy", ["sometimes", -1, True, 2.5, None])
def test_a_bad_policy_is_refused_by_name(policy):
    with pytest.raises(ValueError, match="compact_policy must be"):
        FakeModel(compact_policy=policy)


def test_the_limit_is_parsed_once_per_distinct_prompt():
    system = "context limit: 2k tokens, parsed once"
    before = stated_limit.cache_info()
    for _ in range(3):
        reply(system)
    after = stated_limit.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 2)


FORMATS = st.sampled_from([str, "{:,}".format, lambda n: f"{n // 1_000}k" if n % 1_000 == 0 else f"{n:,}"])
NOISE = st.sampled_from(["Be brief.", "Read 3 files at most.", "Each reply may use up to 4,096 tokens.",
                         "Use the 2 API tokens sparingly.", ""])


@given(limit=st.integers(1_000, 5_000_000), write=FORMATS, before=NOISE, after=NOISE)
def test_a_limit_in_any_of_its_forms_is_read_exactly_among_distractors(limit, write, before, after):
    system = f"{before}\nYour context window is {write(limit)} tokens.\n{after}"
    assert stated_limit(system) == limit
