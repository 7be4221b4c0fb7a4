"""The mistakes students make, one module per chapter (``chNN.py``), and correct versions in other styles.

Each module has ``WRONG``: step name -> [(a wrong version, text its check's line must contain)], and
``RIGHT``: step name -> [correct versions written another way (comprehensions, helpers, another order of
steps)], each of which must pass; ``WRONG_VALUES``: answer name -> [(a wrong value, text the line must
contain)] and, for an exercise with several right answers, ``RIGHT_VALUES``: answer name -> [right values],
where the chapter has such exercises. ``ISSUE`` (in this module) names the wrong and the right versions
written for each mistake the course's grader was found to miss or to reject (issue 33)."""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable


def _joined(attribute: str) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("ch")):
        for name, items in getattr(importlib.import_module(f"{__name__}.{module}"), attribute, {}).items():
            found.setdefault(name, []).extend(items)
    return found


def wrong_answers() -> dict[str, list[tuple[Callable[..., Any], str]]]:
    return _joined("WRONG")


def right_answers() -> dict[str, list[Callable[..., Any]]]:
    return _joined("RIGHT")


def wrong_values() -> dict[str, list[tuple[Any, str]]]:
    return _joined("WRONG_VALUES")


def right_values() -> dict[str, list[Any]]:
    return _joined("RIGHT_VALUES")


ISSUE = {  # the wrong code issue 33 found passing -> (its step, the wrong version here that must now be rejected)
    "collect_tool_results returning copies of the blocks": ("collect_tool_results", "collect_copies"),
    "choose_to_clear with names[id] and no \"unknown\"": ("choose_to_clear", "choose_with_a_plain_lookup"),
    "micro_compact_with_paths raising KeyError for a result whose tool_use is gone":
        ("micro_compact_with_paths", "paths_with_a_plain_lookup"),
    "ask_for_summary catching only APIError": ("ask_for_summary", "ask_for_summary_catching_api_errors_only"),
    "ask_for_summary reading the first block only": ("ask_for_summary", "ask_for_summary_reading_the_first_block"),
    "ask_for_summary not stripping": ("ask_for_summary", "ask_for_summary_unstripped"),
    "my_auto_compact ignoring build": ("my_auto_compact", "auto_compact_ignoring_build"),
    "my_layers not gated by config.auto": ("my_layers", "layers_not_gated_by_auto"),
    "run_tools not counting a refused compact as called": ("run_tools", "run_tools_counting_only_accepted_compacts"),
    "forgotten_requests reading \"- User:\" lines": ("forgotten_requests", "forgotten_by_reading_user_lines"),
    "answered_from_memory not lowercasing": ("answered_from_memory", "grader_lowering_the_reply_only"),
}

ISSUE_RIGHT = {  # the correct code issue 33 found rejected -> (its step, the version here that must now pass)
    "my_agent_loop calling run.client": ("my_agent_loop", "loop_calling_run_client"),
    "third_broken_history with a duplicate tool_result": ("third_broken_history", "answered_twice"),
}
