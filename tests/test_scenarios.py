"""The scenarios, run end to end through the loop (harness/labs/scenarios.py, harness/labs/runs.py, chapters 00 and 05)."""
from __future__ import annotations

from pathlib import Path

import anthropic
import pytest

from harness import CompactionConfig, Toolbox, count_tokens, user, validate_messages
from harness.core.micro import s06_micro_compact
from harness.fake import fake_client
from harness.labs.runs import MARKER, NotAScratchFolder, run_scenario
from harness.labs.scenarios import AGENT_FILES, LONG_SESSION, READ_AGENTS, TWELVE_FILES, WALL_SESSION
from harness.session.runner import Session
from harness.strategies.base import Compactor
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.three_layers import ThreeLayers

UNCOMPRESSED = CompactionConfig(micro=False, auto=False)


def lists_all_twelve(answer: str) -> bool:
    return all(f"- agents/{stem}.py: {purpose}" in answer for stem, purpose in AGENT_FILES.items())


# --- the workspaces ------------------------------------------------------------------


def test_twelve_files_workspace(tmp_path):
    workspace = TWELVE_FILES.build(tmp_path / "a")
    files = sorted((workspace.root / "agents").glob("*.py"))
    assert [f.stem for f in files] == sorted(AGENT_FILES)
    for f in files:
        content = f.read_text()
        assert 140 <= len(content.splitlines()) <= 160  # about 150 lines
        assert 1_800 <= count_tokens([user(content)]) <= 2_100
        assert content.startswith(f'"""{f.stem}: {AGENT_FILES[f.stem]}.')
    again = TWELVE_FILES.build(tmp_path / "b")
    assert [p.read_bytes() for p in files] == [(again.root / "agents" / p.name).read_bytes() for p in files]
    assert TWELVE_FILES.requests == (READ_AGENTS,)


def test_long_session_workspace_and_requests(tmp_path):
    workspace = LONG_SESSION.build(tmp_path)
    assert {p.parent.name for p in workspace.root.rglob("*.py")} == {"agents", "core", "tools", "plugins"}
    assert len(list(workspace.root.rglob("*.py"))) == 46
    assert len(LONG_SESSION.requests) > 50
    assert LONG_SESSION.requests[0] == READ_AGENTS
    assert LONG_SESSION.requests[-3:] == ("Which file did I first ask you to change?",
                                           "What did I tell you about tools/?",
                                           'In tools/t05_shell.py, change VERSION_TAG to "v5-unsafe".')


def test_wall_session_is_the_long_session_going_on(tmp_path):
    assert WALL_SESSION.folders[:4] == LONG_SESSION.folders
    assert WALL_SESSION.requests[:len(LONG_SESSION.requests)] == LONG_SESSION.requests
    workspace = WALL_SESSION.build(tmp_path)
    assert {p.parent.name for p in workspace.root.rglob("*.py")} == {
        "agents", "core", "tools", "plugins", "tests", "scripts", "examples"}
    assert len(list(workspace.root.rglob("*.py"))) == 46 + 36


def test_wall_session_uncompressed_is_refused_in_its_last_request(tmp_path):
    session = Session(fake_client(), Toolbox(WALL_SESSION.build(tmp_path)), UNCOMPRESSED, Compactor())
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long: 203255 tokens > 200000 maximum"):
        for request in WALL_SESSION.requests:
            session.ask(request)
    assert len(session.answers) == len(WALL_SESSION.requests) - 1  # the last folder's twelve reads do not fit
    assert session.stats.peak_context == 179_518 and session.stats.model_calls == 142
    validate_messages(session.messages)


def test_run_scenario_starts_from_a_clean_root(tmp_path):
    run_scenario(TWELVE_FILES, UNCOMPRESSED, tmp_path / "run", requests=("What is VERSION_TAG in agents/s01_agent_loop.py?",))
    stale = tmp_path / "run" / "workspace" / "agents" / "stale.py"
    stale.write_text("left over")
    session = run_scenario(TWELVE_FILES, UNCOMPRESSED, tmp_path / "run")
    assert not stale.exists()
    assert "stale" not in session.answers[0]
    assert session.config.transcript_dir == tmp_path / "run" / "transcripts"


def test_run_scenario_stops_after_the_request_that_stop_after_names(tmp_path):
    """A request that hits max_turns ends the run when ``stop_after`` says so (chapter 09's spiral)."""
    spiralling = CompactionConfig(keep_recent=0, preserve_tools=frozenset(), auto=False, max_turns=5)
    both = ("Read every .py file under agents/ and summarise what each does.",
            "What is VERSION_TAG in agents/s01_agent_loop.py?")
    s06 = ThreeLayers(micro=s06_micro_compact)  # the s06 count: each result cleared before the model reads it
    stopped = run_scenario(TWELVE_FILES, spiralling, tmp_path / "stopped", requests=both, compactor=s06,
                           stop_after=lambda result: result.stop == "max_turns")
    assert stopped.answers == [""] and stopped.stats.model_calls == 5
    unstopped = run_scenario(TWELVE_FILES, spiralling, tmp_path / "all", requests=both, compactor=s06)
    assert len(unstopped.answers) == 2 and unstopped.stats.model_calls > 5


# --- the twelve-file task ---------------------------------------------------------------


@pytest.fixture(scope="module")
def uncompressed(tmp_path_factory):
    return run_scenario(TWELVE_FILES, UNCOMPRESSED, tmp_path_factory.mktemp("twelve") / "run")


def test_twelve_files_without_compaction(uncompressed):
    stats = uncompressed.stats
    assert lists_all_twelve(uncompressed.answers[0])
    assert stats.model_calls == 3  # list, the 12 reads in one turn, the answer
    assert stats.summary_calls == 0 and stats.re_reads == 0 and stats.compactions == {}
    inputs = [t.input_tokens for t in uncompressed.trace]
    assert inputs == sorted(inputs)  # without compaction the context only grows
    assert stats.peak_context == inputs[-1] > 12 * 1_800
    assert stats.input_tokens_billed == sum(inputs)
    validate_messages(uncompressed.messages + [user("next")])  # it ends with the answer


@pytest.mark.parametrize("config", [
    CompactionConfig(preserve_tools=frozenset()),                   # micro alone clears old reads
    CompactionConfig(threshold=5_000),                               # auto summarises repeatedly
    CompactionConfig(threshold=5_000, preserve_tools=frozenset()),  # both
], ids=["micro", "auto", "both"])
def test_twelve_files_one_call_per_turn_with_compaction_still_lists_all_files(tmp_path, uncompressed, config):
    """One read per turn (``disable_parallel_tool_use``): each layer has something to act on between reads."""
    session = run_scenario(TWELVE_FILES, config, tmp_path / "run", compactor=OneCallPerTurn(ThreeLayers()))
    assert lists_all_twelve(session.answers[0])
    stats = session.stats
    assert stats.peak_context < uncompressed.stats.peak_context / 2
    assert stats.input_tokens_billed < 4 * uncompressed.stats.input_tokens_billed  # fourteen calls instead of three
    assert sum(stats.compactions.values()) >= 1
    if config.auto and config.threshold == 5_000:
        assert stats.compactions["auto"] == stats.summary_calls >= 3
        assert len(list((tmp_path / "run" / "transcripts").glob("*.jsonl"))) == stats.summary_calls
    validate_messages(session.messages + [user("next")])


def test_twelve_files_with_parallel_calls_and_compaction_between_reads_and_reading(tmp_path, uncompressed):
    """The twelve reads arrive in one message. The s06 count keeping 3 results clears nine before the model reads
    them: it reads them again (and again), and bills more than no compaction at all; the harness's micro_compact
    spares them, and the task takes its three calls. Past a threshold of 5,000 tokens auto-compaction runs before
    the call that would read them, on the last 80,000 characters of the history: the reads' message alone is
    longer, so the summary holds no whole message, names no request, and the model has lost the task."""
    nothing = CompactionConfig(preserve_tools=frozenset())
    s06 = run_scenario(TWELVE_FILES, nothing, tmp_path / "s06", compactor=ThreeLayers(micro=s06_micro_compact))
    assert lists_all_twelve(s06.answers[0]) and s06.stats.re_reads == 18 and s06.stats.model_calls == 6
    assert s06.stats.input_tokens_billed > uncompressed.stats.input_tokens_billed
    micro = run_scenario(TWELVE_FILES, nothing, tmp_path / "micro")
    assert lists_all_twelve(micro.answers[0]) and (micro.stats.re_reads, micro.stats.model_calls) == (0, 3)
    assert micro.stats.input_tokens_billed <= uncompressed.stats.input_tokens_billed
    auto = run_scenario(TWELVE_FILES, CompactionConfig(threshold=5_000), tmp_path / "auto")
    assert auto.answers == ["I have lost track of the current request. What should I do next?"]
    assert auto.stats.summary_calls == 1 and auto.stats.model_calls == 3
    validate_messages(auto.messages + [user("next")])


def test_twelve_files_is_deterministic(tmp_path):
    # the same root: the transcript path is part of the compressed message, so of the token counts
    config = CompactionConfig(threshold=5_000, preserve_tools=frozenset())
    first = run_scenario(TWELVE_FILES, config, tmp_path / "run")
    second = run_scenario(TWELVE_FILES, config, tmp_path / "run")
    assert first.answers == second.answers
    assert [(t.call, t.input_tokens, t.output_tokens, t.layers, t.tools) for t in first.trace] == \
        [(t.call, t.input_tokens, t.output_tokens, t.layers, t.tools) for t in second.trace]


# --- the emergent re-read trade-off on the long session ---------------------------------------


def test_re_reads_never_increase_as_keep_recent_grows(tmp_path):
    """Nothing preserved, default threshold, the s06 count: the fewer results micro keeps, the more the agent
    re-reads, since a turn's parallel reads are cleared before it reads them. The harness's guard takes that away:
    its re-reads and peak do not depend on keep_recent (those left come from summaries and from cleared files
    asked about again), and keeping more only costs input."""
    base = CompactionConfig(preserve_tools=frozenset())
    s06 = [run_scenario(LONG_SESSION, base.with_(keep_recent=k), tmp_path / f"s{k}",
                        compactor=ThreeLayers(micro=s06_micro_compact)) for k in range(1, 7)]
    re_reads = [s.stats.re_reads for s in s06]
    assert re_reads[0] > 0
    assert all(later <= earlier for earlier, later in zip(re_reads, re_reads[1:])), re_reads
    guarded = [run_scenario(LONG_SESSION, base.with_(keep_recent=k), tmp_path / f"k{k}") for k in range(1, 7)]
    assert len({(s.stats.re_reads, s.stats.peak_context, s.stats.model_calls) for s in guarded}) == 1
    assert guarded[0].stats.re_reads < min(re_reads)
    billed = [s.stats.input_tokens_billed for s in guarded]
    assert billed == sorted(billed) and len(set(billed)) == len(billed)
    assert all(s.answers[-1] for s in s06 + guarded)


@pytest.mark.parametrize("mine", [False, True], ids=["a folder of someone else's", "the working directory"])
def test_run_scenario_never_deletes_a_folder_it_did_not_make(tmp_path, monkeypatch, mine):
    keep = tmp_path / "notes.txt"
    keep.write_text("precious")
    root = tmp_path
    if mine:
        monkeypatch.chdir(tmp_path)
        root = Path(".")
    with pytest.raises(NotAScratchFolder, match="refusing to delete"):
        run_scenario(TWELVE_FILES, UNCOMPRESSED, root)
    assert keep.read_text() == "precious" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_run_scenario_refuses_a_file_and_uses_an_empty_folder(tmp_path):
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(NotAScratchFolder, match="is a file"):
        run_scenario(TWELVE_FILES, UNCOMPRESSED, tmp_path / "a_file")
    (tmp_path / "empty").mkdir()
    run_scenario(TWELVE_FILES, UNCOMPRESSED, tmp_path / "empty", requests=("What is VERSION_TAG in agents/s01_agent_loop.py?",))
    assert (tmp_path / "empty" / MARKER).is_file()


# --- re-reads and reads after an edit ----------------------------------------------


def test_a_read_after_an_edit_is_not_a_re_read():
    from harness.session.runner import count_re_reads
    calls = [("read_file", {"path": "a.py"}), ("edit_file", {"path": "a.py"}), ("read_file", {"path": "a.py"}),
             ("read_file", {"path": "a.py"}), ("write_file", {"path": "b.py"}), ("read_file", {"path": "b.py"}),
             ("bash", {"command": "cat a.py"}), ("read_file", {"path": "b.py"})]
    # a.py: read, edited, read again (after the edit), read a third time (forgot); b.py written unread, then
    # read (a first read), then read again (forgot)
    assert count_re_reads(calls) == (2, 1)
    assert count_re_reads([]) == (0, 0)


def test_the_uncompressed_long_session_re_reads_only_after_edits(tmp_path):
    session = run_scenario(LONG_SESSION, UNCOMPRESSED, tmp_path, client=fake_client())
    stats = session.stats
    assert stats.re_reads == 0 and stats.reads_after_edit > 0  # it forgets nothing; edits make it look again


def test_a_session_runs_the_loop_it_is_given(tmp_path):
    calls = []

    def my_loop(client, messages, **kwargs):
        from harness import run_agent
        calls.append(len(messages))
        return run_agent(client, messages, **kwargs)

    session = Session(fake_client(), Toolbox(TWELVE_FILES.build(tmp_path / "w")), UNCOMPRESSED, Compactor(),
                      loop=my_loop)
    session.ask(TWELVE_FILES.requests[0])
    assert calls == [1] and session.stats.model_calls > 1
