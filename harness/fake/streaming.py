"""A reply as server-sent events: ``stream: true`` (chapter 00).

``client.messages.create(stream=True)``, ``client.messages.stream(...)`` and their beta twins read
the events the SDK's accumulators parse (``anthropic/lib/streaming/_messages.py`` and
``_beta_messages.py``, ``accumulate_event``; ``anthropic/_streaming.py`` skips an event without a
name, and ``ping``). ``message_events`` turns the message the fake would have sent whole into
those events, so a streamed reply, accumulated, is the same message:

- ``message_start``: the message with no content, ``stop_reason`` and ``stop_sequence`` null, its
  usage with ``output_tokens`` 0 (``iterations`` come at the end); then one ``ping``;
- per block: ``content_block_start``, deltas, ``content_block_stop``. ``text`` starts empty and
  grows by ``text_delta``; ``tool_use`` starts with ``input: {}`` and gets its JSON by
  ``input_json_delta`` in at least two pieces; ``thinking`` starts empty, grows by
  ``thinking_delta`` and ends with one ``signature_delta``; ``compaction`` starts with null
  ``content`` and ``encrypted_content`` and gets both in one ``compaction_delta`` (the only delta the
  SDK's ``BetaRawContentBlockDelta`` declares for it; ``signature`` and ``tool_changes``, which no
  delta carries, come in the start event). Any other block (``redacted_thinking``) starts whole and
  has no delta;
- ``message_delta``: ``stop_reason``, ``stop_sequence`` (and ``stop_details``, ``container`` when
  the message has them), the cumulative usage the SDK's ``MessageDeltaUsage`` declares, and
  ``context_management`` (beta); then ``message_stop``.

The SDK's and the docs' examples agree on this order; the sizes of the pieces (48 characters) are
*this fake*'s. Errors never start a stream: the fake answers every fault before it, as an HTTP error.
"""
from __future__ import annotations

import json
from typing import Any

PIECE = 48  # characters of text, thinking or JSON per delta (this fake's choice)
DELTA_USAGE = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "server_tool_use",
               "output_tokens_details", "iterations")  # what MessageDeltaUsage (beta) declares, output_tokens aside
DELTA_FIELDS = ("stop_details", "container")


def message_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The events that stream ``message`` (a Messages API response body), in order."""
    usage = message["usage"]
    start = {key: value for key, value in message.items()
             if key not in ("content", "stop_reason", "stop_sequence", "context_management", *DELTA_FIELDS)}
    start.update(content=[], stop_reason=None, stop_sequence=None,
                 usage={**{k: v for k, v in usage.items() if k != "iterations"}, "output_tokens": 0})
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(message["content"]):
        first, deltas = block_start(block)
        events.append({"type": "content_block_start", "index": index, "content_block": first})
        events += [{"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas]
        events.append({"type": "content_block_stop", "index": index})
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"],
             **{key: message[key] for key in DELTA_FIELDS if message.get(key) is not None}}
    end: dict[str, Any] = {"type": "message_delta", "delta": delta, "usage": {
        "output_tokens": usage["output_tokens"], **{k: usage[k] for k in DELTA_USAGE if usage.get(k) is not None}}}
    if message.get("context_management") is not None:
        end["context_management"] = message["context_management"]
    return [*events, end, {"type": "message_stop"}]


def block_start(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A block's ``content_block_start`` payload and the deltas that complete it."""
    kind = block["type"]
    if kind == "text":
        return {**block, "text": ""}, [{"type": "text_delta", "text": piece} for piece in pieces(block["text"])]
    if kind == "tool_use":
        source = json.dumps(block["input"], ensure_ascii=False, separators=(",", ":"))
        return {**block, "input": {}}, [{"type": "input_json_delta", "partial_json": piece}
                                        for piece in pieces(source, at_least=2)]
    if kind == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": piece} for piece in pieces(block["thinking"])]
        return {**block, "thinking": "", "signature": ""}, [*deltas, {"type": "signature_delta",
                                                                     "signature": block["signature"]}]
    if kind == "compaction":
        return {**block, "content": None, "encrypted_content": None}, [{
            "type": "compaction_delta", "content": block.get("content"),
            "encrypted_content": block.get("encrypted_content")}]
    return block, []


def pieces(value: str, at_least: int = 1) -> list[str]:
    """``value`` cut into deltas of ``PIECE`` characters, into ``at_least`` pieces when it is that long."""
    size = min(PIECE, max(1, len(value) // at_least))
    return [value[i:i + size] for i in range(0, len(value), size)]


def sse_body(message: dict[str, Any]) -> bytes:
    """``message`` streamed: each event as ``event: <type>`` and ``data: <json>``, a blank line after."""
    return "".join(f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"
                   for event in message_events(message)).encode()


def canonical(body: dict[str, Any]) -> bytes:
    """``body`` as the SDK's encoder writes a request (compact, UTF-8, keys in their order): for a streamed
    request without its ``stream``, the bytes of the same request sent plain, from which the reply's ids
    are drawn, so that both get the same message."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
