"""A loop written as taught, with run_agent's bookkeeping done around it (harness/labs/taught_loop.py, chapter 05):
a session it runs leaves exactly what run_agent's leaves; the layers written as a function leave what
ThreeLayers leaves."""
from __future__ import annotations

import pytest

from harness import CompactionConfig, run_agent
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.labs.solutions.ch05 import SESSIONS, my_agent_loop, my_layers, observe_layers, observe_session, session_left
from harness.labs.taught_loop import taught_loop
from harness.strategies.base import Compactor
from harness.strategies.server_side import ServerToolClearing
from harness.strategies.three_layers import ThreeLayers


@pytest.mark.parametrize("name, args", SESSIONS, ids=[name for name, _ in SESSIONS])
def test_the_taught_loop_leaves_what_run_agent_leaves(name, args):
    assert observe_session(my_agent_loop, args) == session_left(run_agent, args)


@pytest.mark.parametrize("name, args", SESSIONS[1:4], ids=[name for name, _ in SESSIONS[1:4]])
def test_the_layers_as_a_function_leave_what_three_layers_leaves(name, args):
    assert observe_layers(my_layers, args) == session_left(run_agent, args)


def test_the_checks_cases_fire_every_layer_and_stop_every_way():
    left = [observe_session(my_agent_loop, args) for _, args in SESSIONS]
    kinds = {e["kind"] for session in left for e in session["events"]}
    assert kinds == {"micro", "auto", "manual", "max_turns"}


@pytest.mark.parametrize("compactor", [ServerToolClearing(trigger=20_000), Compactor(), ThreeLayers(summarise=len)])
def test_any_strategy_but_the_plain_three_layers_is_refused_with_a_clear_error(tmp_path, compactor):
    with pytest.raises(ValueError, match="your loop runs the three layers only"):
        run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path, compactor=compactor, loop=taught_loop(my_agent_loop))


def test_a_loop_that_returns_something_else_is_refused(tmp_path):
    def sloppy(client, messages, *, system, tools, config, run):
        my_agent_loop(client, messages, system=system, tools=tools, config=config, run=run)
        return None
    with pytest.raises(ValueError, match="your loop returned None"):
        run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path, loop=taught_loop(sloppy))
