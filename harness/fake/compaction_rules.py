"""A compaction block's round trip: signed when the fake returns it, checked when it comes back (chapter 10).

The installed SDK types an error for each way a compaction can go wrong, with
its meaning in the error class's docstring (``anthropic/types/compaction_*_error.py``)
and its ``error_code`` in ``anthropic/_error_classes.py``. Where the block sits
(first in ``messages``, only one with content, not in a ``system`` message) and
an incomplete turn are the history's rules, chapter 02's module
(``core.messages``). Here are the rules only the server that issued a block can
check, and those of running a compaction:

- ``compaction_signature_invalid``: a block with content whose ``signature`` is
  not one this fake issued (missing, not of its form, or forged);
- ``compaction_content_mismatch``: its ``content`` differs from the text its
  signature recorded;
- ``compaction_tool_changes_mismatch``: its ``tool_changes`` differ from what was
  returned with it (a field dropped counts: it was returned);
- ``compaction_nothing_to_summarize``: messages that hold no content, only
  failed compactions (null content, no-ops): nothing to summarise, or to answer
  from (*this fake* refuses both);
- ``compaction_too_many_tool_references``: the conversation calls more distinct
  tools than ``MAX_TOOL_REFERENCES``, *this fake*'s limit (the API's is not public);
- ``compaction_unavailable`` (HTTP 529): a transient server fault, which nothing
  offline causes: ``FakeModel(compaction_unavailable=N)`` makes the first N
  compactions fail so, for testing a retry.

A block with null content is a failed compaction, which the server treats as a
no-op (the SDK's ``BetaCompactionBlock``): it is never checked. The wordings are
ours; each names the SDK class whose docstring it follows.

The signature is *this fake*'s (the API's is opaque): ``fake-signature-`` and a
digest of the content, a digest of the tool changes, and an HMAC-SHA256 of the two
under ``FAKE_KEY``, a fixed key written here. It is no secret: it only makes an
edited or forged signature detectable, and the same block always gets the same
signature. ``encrypted_content`` is opaque and not checked.
"""
from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from ..core.messages import Block, Message, blocks
from .request import RequestRejected

FAKE_KEY = b"context-compaction offline fake: compaction signatures"  # not a secret (module docstring)
SIGNATURE_PREFIX = "fake-signature-"
MAX_TOOL_REFERENCES = 128  # *this fake*'s limit on the distinct tools a compacted conversation calls


def compaction_block(summary: str, tool_changes: list[dict[str, Any]] | None = None) -> Block:
    """The block a compaction returns, with every field the SDK's ``BetaCompactionBlock`` carries for being
    sent back verbatim: ``encrypted_content`` (a digest of the summary), ``signature`` (this fake's, over the
    content and the tool changes) and ``tool_changes`` (``[]``: the fake serves no tool changes)."""
    block = {"type": "compaction", "content": summary,
             "encrypted_content": "fake-encrypted-" + hashlib.sha256(summary.encode()).hexdigest()[:32],
             "tool_changes": [] if tool_changes is None else tool_changes}
    recorded = _content_digest(summary), _changes_digest(block)
    return {**block, "signature": f"{SIGNATURE_PREFIX}{recorded[0]}.{recorded[1]}.{_mac(*recorded)}"}


def check_returned_blocks(messages: list[Message]) -> None:
    """RequestRejected (with the SDK's ``error_code``) unless every compaction block with content is one this fake
    issued, sent back with its content and tool changes unchanged. ``messages``: a checked history."""
    for i, message in enumerate(messages):
        for j, block in enumerate(message["content"] if isinstance(message["content"], list) else ()):
            if block["type"] == "compaction" and block.get("content") is not None:
                _check_block(block, f"messages.{i}.content.{j}.compaction")


def nothing_to_summarize() -> RequestRejected:
    """The 400 for messages whose only content is failed compactions (null content, no-ops)."""
    return RequestRejected(400, "invalid_request_error", "messages: holds no `user` or `assistant` content to "
                           "summarize or adopt, only failed compactions (our wording: "
                           "CompactionNothingToSummarizeError)", code="compaction_nothing_to_summarize")


def check_tool_references(messages: list[Message]) -> None:
    """RequestRejected if the conversation a compaction would record calls more distinct tools than
    ``MAX_TOOL_REFERENCES``. ``messages``: a checked history."""
    tools = {block["name"] for message in messages for block in blocks(message) if block["type"] == "tool_use"}
    if len(tools) > MAX_TOOL_REFERENCES:
        raise RequestRejected(400, "invalid_request_error", f"messages: the conversation calls {len(tools)} distinct "
                              f"tools, more than a `compaction` block records ({MAX_TOOL_REFERENCES}, this fake's "
                              "limit) (our wording: CompactionTooManyToolReferencesError)",
                              code="compaction_too_many_tool_references")


def compaction_unavailable() -> RequestRejected:
    """The API's 529 for a compaction that failed for a transient reason (the SDK: "Retry the request")."""
    return RequestRejected(529, "overloaded_error", "the compaction could not be completed for a transient "
                           "reason; retry the request (our wording: CompactionUnavailableError; the offline fake "
                           "fails only when asked to, FakeModel(compaction_unavailable=N))",
                           code="compaction_unavailable")


def _check_block(block: Block, where: str) -> None:
    signature = block.get("signature")
    parts = signature[len(SIGNATURE_PREFIX):].split(".") if isinstance(signature, str) and signature.startswith(
        SIGNATURE_PREFIX) else []
    if len(parts) != 3 or not hmac.compare_digest(parts[2], _mac(parts[0], parts[1])):
        raise RequestRejected(400, "invalid_request_error", f"{where}.signature: does not verify: send the block "
                              "back exactly as it was returned (our wording: CompactionSignatureInvalidError)",
                              code="compaction_signature_invalid")
    if parts[0] != _content_digest(block["content"]):
        raise RequestRejected(400, "invalid_request_error", f"{where}.content: differs from the text its "
                              "`signature` recorded (our wording: CompactionContentMismatchError)",
                              code="compaction_content_mismatch")
    if parts[1] != _changes_digest(block):
        raise RequestRejected(400, "invalid_request_error", f"{where}.tool_changes: differs from what was returned "
                              "with the block (our wording: CompactionToolChangesMismatchError)",
                              code="compaction_tool_changes_mismatch")


def _content_digest(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _changes_digest(block: Block) -> str:
    """A digest of the block's tool changes as sent: a missing field differs from null and from ``[]``."""
    changes = json.dumps([block["tool_changes"]] if "tool_changes" in block else [], sort_keys=True)
    return hashlib.sha256(changes.encode()).hexdigest()[:16]


def _mac(content_digest: str, changes_digest: str) -> str:
    return hmac.new(FAKE_KEY, f"{content_digest}.{changes_digest}".encode("utf-8", "surrogatepass"),
                    hashlib.sha256).hexdigest()[:32]
