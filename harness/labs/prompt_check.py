"""Your own summary prompt, tried on the fake, with how the fake read it in plain words (chapter 03).

The fake reads a request by rules, and rules miss phrasings they were not written from (``harness.fake
.interpretation``). A prompt of yours that a model would read as "summarise" may be taken by the fake for an
agent turn. That says nothing about your prompt, so the check says what the fake did, why, what a real model
would do, and a phrasing the fake reads, and never that your prompt is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.auto import build_summary_request
from ..core.config import CompactionConfig
from ..core.messages import Message
from ..fake import explain, fake_client
from ..fake.interpretation import PHRASING, SUMMARY, Reading, _a

A_MODEL = "A real model reads the whole meaning and would most likely summarise; the fake reads by rules."


def misread_note(request: dict[str, Any]) -> str | None:
    """For a request meant as a summary request (the keyword arguments of ``messages.create``): None when the
    fake reads it as one and is sure, else how it read it, in plain words, with a phrasing it reads."""
    reading = explain(request)
    if reading.kind == SUMMARY and reading.sure:
        return None
    if reading.kind == SUMMARY:
        return (f"The fake read your prompt as a summary request, but it is unsure: it could also be "
                f"{_a(reading.other or 'another reading')} ({reading.evidence}). {A_MODEL} To make the fake "
                f'sure, ask for the summary alone, as in "{PHRASING}"')
    return (f"The fake took your prompt for {_a(reading.what)}, because {reading.evidence}. {A_MODEL} "
            f'A phrasing the fake reads as a summary request: "{PHRASING}"')


@dataclass(frozen=True)
class PromptTrial:
    """One prompt tried on the fake: the request sent, how the fake read it, and the reply's text."""
    prompt: str
    request: dict[str, Any]
    reading: Reading
    reply: str

    @property
    def read_as_summary(self) -> bool:
        return self.reading.kind == SUMMARY

    def __str__(self) -> str:
        note = misread_note(self.request)
        said = note or f"The fake read your prompt as a summary request: {self.reading.evidence}."
        first = "\n".join(self.reply.splitlines()[:4])
        return f"{said}\nIts reply begins:\n{first}"


def try_summary_prompt(prompt: str, messages: list[Message], config: CompactionConfig | None = None) -> PromptTrial:
    """Send ``prompt`` as the summary prompt of ``messages`` (laid out as ``build_summary_request`` lays out
    ``SUMMARY_PROMPT``) to a fresh fake; TypeError when ``prompt`` is not a non-empty text."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise TypeError(f"the prompt must be a non-empty str, not {prompt!r}")
    config = config or CompactionConfig()
    request = build_summary_request(messages, model=config.model, max_tokens=config.summary_max_tokens,
                                    tail_chars=config.tail_chars, prompt=prompt)
    response = fake_client().messages.create(**request)
    reply = "".join(block.text for block in response.content if block.type == "text")
    return PromptTrial(prompt, request, explain(request), reply)


def prompt_verdict(prompt: object, messages: list[Message]) -> str | None:
    """Chapter 03's exercise 5 (``Answer.accepts``): None when the fake reads ``prompt``, laid out with
    ``messages`` as the summary prompt, as a summary request and is sure; else what it did, in plain words."""
    if not isinstance(prompt, str) or not prompt.strip():
        return f"a prompt is a non-empty str, not {type(prompt).__name__} {prompt!r:.40}"
    config = CompactionConfig()
    return misread_note(build_summary_request(messages, model=config.model, max_tokens=config.summary_max_tokens,
                                              tail_chars=config.tail_chars, prompt=prompt))
