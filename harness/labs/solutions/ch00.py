"""Chapter 00 has no step to write (it measures the wall): the values its exercises ask for, worked out on
the chapter's two runs, and the answers to its recap questions."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import anthropic

from ...core.config import CompactionConfig
from ...core.models import context_window
from ...core.tools import Toolbox
from ...fake import fake_client
from ...session.runner import Session
from ...strategies.base import Compactor
from ..growth import GrowthSeries, growth_series
from ..runs import run_scenario
from ..scenarios import TWELVE_FILES, WALL_SESSION
from ..scratch import scratch_folder
from . import Answer, Step

STEPS: list[Step] = []
NO_COMPACTION = CompactionConfig(micro=False, auto=False)
WINDOW = context_window(NO_COMPACTION.model)
PRICE_PER_MILLION = 1.00  # as in the chapter


@lru_cache(maxsize=1)
def _wall() -> GrowthSeries:
    """Section 2's run: the wall session, request by request, up to the API's refusal."""
    with scratch_folder(Path("_work/00_answers")) as root:
        session = Session(fake_client(), Toolbox(WALL_SESSION.build(root / "workspace")), NO_COMPACTION,
                          Compactor())
        for request in WALL_SESSION.requests:
            try:
                session.ask(request)
            except anthropic.BadRequestError:
                break
    return growth_series(session.trace)


def _first_call_over_half() -> int:
    series = _wall()
    return next(c for c, tokens in zip(series.calls, series.context) if tokens > WINDOW // 2)


def _twelve_cost() -> float:
    with scratch_folder(Path("_work/00_answers")) as root:
        run = run_scenario(TWELVE_FILES, NO_COMPACTION, root / "twelve")
    return growth_series(run.trace).billed[-1] * PRICE_PER_MILLION / 1e6


def _predicted_bill() -> float:
    series = _wall()
    n = len(series)
    return series.context[-1] / n * n * (n + 1) / 2


def _refused_at_32k() -> int:
    """On a model that refuses input + max_tokens over the window with a 400 (before Sonnet 4.5)."""
    series = _wall()
    return next((c for c, tokens in zip(series.calls, series.context) if tokens + 32_000 > WINDOW), len(series) + 1)


def _error_at_32k() -> str:
    series = _wall()
    fits_alone = _refused_at_32k() <= len(series) and series.context[_refused_at_32k() - 1] <= WINDOW
    return "input length and max_tokens" if fits_alone else "prompt is too long"


ANSWERS = (
    Answer("first_call_over_half", "00", _first_call_over_half,
           hint=f"the first call whose context is over {WINDOW // 2:,} tokens."),
    Answer("twelve_cost", "00", _twelve_cost, tolerance=0.0005,
           hint="tokens times the price per million, divided by one million."),
    Answer("predicted_bill", "00", _predicted_bill, tolerance=200_000,  # about 1%
           hint="g = series.context[-1] / len(series), then g * n * (n + 1) / 2."),
    Answer("call_refused_at_32k", "00", _refused_at_32k,
           hint="the first call whose input plus 32,000 is over the window."),
    Answer("error_at_32k", "00", _error_at_32k,
           hint="does that call's input fit the window on its own?"),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "Every call sends the whole history again and is billed for all of its input, so the bill is the sum "
    "of the contexts: one call per turn, 14 calls (166,848 tokens against a last context of 24,808); with "
    "the 12 reads in one turn, 3 calls (25,775 against 24,485). The count of calls is this fake's.",
    "Input alone over the window is a 400, 'prompt is too long'. Input plus max_tokens over it is served "
    "on Sonnet 4.5 and newer models, and a reply cut at the window stops with "
    "model_context_window_exceeded; earlier models answered a 400, 'input length and max_tokens exceed "
    "context limit'. Call 142 sent 179,518 (+ 1,024 fits); call 143 carried 12 file reads of one turn, "
    "23,737 tokens, far wider than the 1,024-token band, so at 203,255 its input alone was over.",
    "Tool results: 95.2% of the last request that went through, while the user's 84 requests took 1,393 "
    "tokens. That is where compaction has to cut.",
    "The context was front-loaded (three folders read in the first 12 requests): a fitted line starts at "
    "34,340 tokens, not at zero, and that constant adds a linear term to the bill, which pulls the ratio "
    "towards 1. It also grew unevenly, in jumps of a whole folder read in one turn, which takes the fitted line's "
    "1.98 down to 1.84.",
    "That a diluted instruction is lost: the 17-token rule fell from 0.068% to 0.0095% of what the model "
    "reads, but this fake never forgets what it can still see and still recalls it. Real models' recall "
    "degrading as contexts grow is Anthropic's documentation, not measured here.",
]
