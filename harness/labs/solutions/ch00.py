"""Chapter 00 has no step to write (it measures the wall): only the answers to its recap questions."""
from __future__ import annotations

from . import Step

STEPS: list[Step] = []

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
