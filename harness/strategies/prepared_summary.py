"""Compaction ahead of time: prepare the summary early, swap it in at the threshold (chapter 12).

Past ``prepare_fraction`` of the threshold the summary is written once, and
set aside with the number of messages it covers; the history goes on
growing. At the threshold the history becomes that summary followed, word
for word, by every message added since it was prepared, so the turns the
prepared summary never saw are not lost, and no summary call stands between
the user and the next answer. If no summary was prepared (the fraction is
1, or a swap left the history still over the threshold) it summarises then,
as chapter 03 does. A summary prepared and never swapped in (the session
ended first) is kept in ``preparations`` as unused: its tokens were spent
for nothing. The Anthropic cookbook's session memory compaction builds its
summary in a background thread for the same reason (chapter 12 cites it);
here the loop is sequential, and chapter 12 models the wait from token counts.
With a session log, a swap is written as records chapter 06's replay already
reads: a compaction record holding the summary message (which replaces the
history), then the verbatim turns again as message records. So ``resume``
rebuilds the history after a swap; the price is that those turns are in the
log twice.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.auto import SummaryRequestBuilder, compressed_message, request_summary, tail_request
from ..core.loop import CallTrace, Event, RunContext
from ..core.tokens import estimate_tokens
from ..core.transcripts import write_transcript
from .three_layers import ThreeLayers


@dataclass
class Preparation:
    """One summary written ahead of time: when, what it covered, what it cost, whether it was used."""
    call: int
    covered: int              # the number of messages (from the start) it summarises
    summary: str
    input_tokens: int
    output_tokens: int
    used: bool = False


class PreparedSummary(ThreeLayers):
    """The reference three layers, whose summary is prepared at ``prepare_fraction`` of the threshold."""
    name = "prepared_summary"

    def __init__(self, prepare_fraction: float = 0.7, build: SummaryRequestBuilder = tail_request) -> None:
        if not 0 < prepare_fraction <= 1:
            raise ValueError(f"prepare_fraction must be in (0, 1], got {prepare_fraction}")
        super().__init__()
        self.prepare_fraction, self.summary_request = prepare_fraction, build
        self.preparations: list[Preparation] = []

    @property
    def pending(self) -> Preparation | None:
        """The latest prepared summary, if it has not been used yet."""
        last = self.preparations[-1] if self.preparations else None
        return last if last and not last.used else None

    def before_call(self, run: RunContext) -> list[str]:
        config, layers = run.config, []
        if config.micro and run.micro(self.clear_old_results):
            layers.append("micro")
        if not config.auto:
            return layers
        size = run.context_size()
        if size > config.threshold and self.pending:
            self.swap(run)
            layers.append("prepared")
        if run.context_size() > config.threshold:
            run.summarise_and_replace("auto", compact=self.compact)
            layers.append("auto")
        elif self.pending is None and size > self.prepare_fraction * config.threshold and "prepared" not in layers:
            self.prepare(run)
            layers.append("prepare")
        return layers

    def prepare(self, run: RunContext) -> None:
        """Write the summary of the history as it is now and set it aside (the history is unchanged)."""
        summary, usage = request_summary(run.client, self.summary_request(run.messages, run.config, None))
        self.preparations.append(Preparation(run.call, len(run.messages), summary,
                                             usage.input_tokens, usage.output_tokens))
        run.record(CallTrace(run.call, usage.input_tokens, usage.output_tokens,
                             estimate_tokens(run.messages), 0, ("prepare",), (), "summary"))
        run.emit(Event("prepare", run.call, estimate_tokens(run.messages), estimate_tokens(run.messages),
                       {"covered": len(run.messages)}))

    def swap(self, run: RunContext) -> None:
        """Transcript first, then the prepared summary and, verbatim, every message added since."""
        prepared = self.pending
        assert prepared is not None
        before, count = estimate_tokens(run.messages), len(run.messages)
        transcript = write_transcript(run.messages, run.config.transcript_dir)
        run.messages[:] = [compressed_message(transcript, prepared.summary), *run.messages[prepared.covered:]]
        prepared.used = True
        if run.log:  # replay: the summary replaces everything, then the verbatim turns are appended again
            run.log.compacted(run.messages[:1], layer="prepared", message=run.messages[0],
                              transcript=transcript.as_posix())
            run.log.sync(run.messages)
        run.emit(Event("prepared", run.call, before, estimate_tokens(run.messages), {
            "transcript": transcript.as_posix(), "summary": prepared.summary, "messages_before": count,
            "kept_verbatim": count - prepared.covered}))
