"""A loop written as taught, with run_agent's bookkeeping done around it (harness/labs/taught_loop.py, chapter 05):
a session it runs leaves exactly what run_agent's leaves."""
from __future__ import annotations

import pytest

from harness import CompactionConfig, run_agent
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.labs.solutions.ch05 import SESSIONS, my_agent_loop, observe_session, session_left
from harness.labs.taught_loop import taught_loop
from harness.strategies.server_side import ServerToolClearing


@pytest.mark.parametrize("name, args", SESSIONS, ids=[name for name, _ in SESSIONS])
def test_the_taught_loop_leaves_what_run_agent_leaves(name, args):
    assert observe_session(my_agent_loop, args) == session_left(run_agent, args)


def test_a_server_side_strategy_is_refused_with_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="does not route: run it with harness.run_agent"):
        run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path, compactor=ServerToolClearing(trigger=20_000),
                     loop=taught_loop(my_agent_loop))


def test_a_loop_that_returns_something_else_is_refused(tmp_path):
    def sloppy(client, messages, *, system, tools, config, compactor, run):
        my_agent_loop(client, messages, system=system, tools=tools, config=config, compactor=compactor, run=run)
        return None
    with pytest.raises(ValueError, match="your loop returned None"):
        run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path, loop=taught_loop(sloppy))
