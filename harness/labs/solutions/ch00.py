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


def _refused_at_16k() -> int:
    series = _wall()
    return next(c for c, tokens in zip(series.calls, series.context) if tokens + 16_384 > WINDOW)


def _error_at_16k() -> str:
    fits_alone = _wall().context[_refused_at_16k() - 1] <= WINDOW
    return "input length and max_tokens" if fits_alone else "prompt is too long"


ANSWERS = (
    Answer("first_call_over_half", "00", _first_call_over_half,
           hint=f"the first call whose context is over {WINDOW // 2:,} tokens."),
    Answer("twelve_cost", "00", _twelve_cost, tolerance=0.005,
           hint="tokens times the price per million, divided by one million."),
    Answer("predicted_bill", "00", _predicted_bill, tolerance=200_000,  # about 1%
           hint="g = series.context[-1] / len(series), then g * n * (n + 1) / 2."),
    Answer("call_refused_at_16k", "00", _refused_at_16k,
           hint="the first call whose input plus 16,384 is over the window."),
    Answer("error_at_16k", "00", _error_at_16k,
           hint="does that call's input fit the window on its own?"),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "Every call sends the whole history again and is billed for all of its input, so the bill is the sum "
    "of the contexts of its 14 calls (166,848 tokens), not the last one (24,808).",
    "'prompt is too long' when the input alone is over the window; 'input length and max_tokens exceed "
    "context limit' when the input plus max_tokens is. Call 215 sent 198,049 (+ 1,024 fits); call 216 "
    "carried one more file read, 1,993 tokens, wider than the 1,024-token gap between the two limits, so "
    "at 200,042 its input alone was over the window.",
    "Tool results: 95.4% of the last request that went through, while the user's 84 requests took 1,393 "
    "tokens. That is where compaction has to cut.",
    "The context was front-loaded (three folders read in the first 12 requests): a fitted line starts at "
    "16,886 tokens, not at zero, and that constant adds a linear term to the bill, which pulls the ratio "
    "towards 1. It also grew unevenly: slowly through the small requests, then in a jump at the end.",
    "That a diluted instruction is lost: the 17-token rule fell from 0.068% to 0.0086% of what the model "
    "reads, but this fake never forgets what it can still see and still recalls it. Real models' recall "
    "degrading as contexts grow is Anthropic's documentation, not measured here.",
]
