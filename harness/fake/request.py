"""What the fake server accepts: the whole request checked before anything reads it (chapter 00).

Every fault is an HTTP error whose message starts with the field at fault,
written as the API writes it (``messages.0.content.1.tool_use.text``), or with
the API's sentence where it names no field (an assistant message last):

- a field the API does not know: 400 ``<field>: Extra inputs are not permitted``, the
  real API's wording (public reports: ``response_format: ...``, ``messages.0.name: ...``).
  What the API knows is what the installed SDK's request types declare, plus
  ``temperature``, ``top_p`` and ``top_k``. A field the API knows but the fake does
  not implement (``thinking``, ``stream: true``, ``stop_sequences``, a forced
  ``tool_choice``, ...) is refused too, as ``<field>: not supported by the offline fake``;
- a wrong type or value: 400 in pydantic's words (``Field required``, ``Input should be
  a valid integer``). The real API answers in them where reports show it (extra inputs,
  ``model: String should have at most 256 characters``); the other cases are unverified,
  and so is the fake's strict choice to refuse ``null`` for an optional field (the SDK
  leaves an unset field out, never sends null);
- a message or block with a field it does not have, a field of the wrong type, a value JSON
  cannot carry, or a history that breaks the API's rules: 400 in the API's words where public
  reports quote them (``messages.3: `tool_use` ids were found without `tool_result` blocks
  immediately after: ...``), then ``[<rule>: messages[N], block M]``: ``core.messages`` holds the
  rules, the one table of the fields a block may have, and the sources of the wordings;
- an unknown model: 404 ``not_found_error``, ``model: <id>``, as the API answers;
- ``max_tokens`` above the model's maximum output (``core.models.max_output``): 400
  ``max_tokens: N > M, which is the maximum allowed number of output tokens for <model>``;
- input over the window: 400 ``prompt is too long: N tokens > M maximum``; input plus
  ``max_tokens`` over it: 400 ``input length and `max_tokens` exceed context limit: I + O > M,
  decrease input length or `max_tokens` and try again``. Input is ``request_tokens``, the
  fake's count; input + ``max_tokens`` equal to the window passes.

The last three wordings are the real API's, as quoted in public bug reports.
"""
from __future__ import annotations

import json
import re
from typing import Any

from anthropic._error_classes import ERROR_CLASSES
from anthropic.types import ToolParam, message_count_tokens_params, message_create_params
from anthropic.types.beta import BetaMemoryTool20250818Param
from anthropic.types.beta import message_count_tokens_params as beta_count_params
from anthropic.types.beta import message_create_params as beta_create_params

from ..core.errors import Portable
from ..core.messages import BLOCK_FIELDS, EXTRA, InvalidHistory, validate_messages
from ..core.models import context_window, max_output
from ..core.tokens import count_checked
from .caching import CacheControlError, check_breakpoints

NOT_IN_FAKE = "not supported by the offline fake"
SAMPLING = {"temperature", "top_p", "top_k"}  # gone from the SDK's types, still taken by the API (unverified)
KNOWN_CREATE = (set(message_create_params.MessageCreateParamsBase.__annotations__)
                | set(beta_create_params.MessageCreateParamsBase.__annotations__) | SAMPLING | {"stream"}) - {"betas"}
KNOWN_COUNT = (set(message_count_tokens_params.MessageCountTokensParams.__annotations__)
               | set(beta_count_params.MessageCountTokensParams.__annotations__)) - {"betas"}  # betas: a header
SERVED_CREATE = {"model", "max_tokens", "messages", "system", "tools", "tool_choice", "metadata", "stream",
                 "stop_sequences", "context_management", "compaction", "cache_control"} | SAMPLING
# ^ context_management and compaction: context_management.py; cache_control: caching.py
SERVED_COUNT = {"model", "messages", "system", "tools", "tool_choice", "context_management", "compaction",
                "cache_control"}
TEXT_FIELDS = BLOCK_FIELDS["text"]  # the one table of a block's fields is core.messages'
MEMORY_TYPE = "memory_20250818"  # chapter 11: the one typed (built-in) tool the fake serves
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")  # unverified: the fake's choice of a tool name's form


class RequestRejected(Portable, Exception):
    """An HTTP error the fake server answers with instead of a reply: ``status``, the API's ``error.type``
    (``kind``), its message, and ``error.details`` (``details``, with its ``error_code``) where the installed
    SDK types one for this fault, so that the SDK raises its own class (``anthropic._error_classes``:
    ``(400, "compaction_block_misplaced")`` becomes ``CompactionBlockMisplacedError``)."""

    def __init__(self, status: int, kind: str, message: str, *, code: str | None = None, **details: Any):
        message = message.encode("utf-8", "backslashreplace").decode()  # a quoted lone surrogate, escaped
        super().__init__(message)
        self.status, self.kind = status, kind
        self.details: dict[str, Any] | None = {"error_code": code, **details} if code else None

    def body(self) -> dict[str, Any]:
        """The error's JSON body, as the API sends it."""
        error: dict[str, Any] = {"type": self.kind, "message": str(self)}
        if self.details:
            error["details"] = self.details
        return {"type": "error", "error": error}


def invalid(field: str, message: str) -> RequestRejected:
    """A 400 whose message starts with the field at fault."""
    return RequestRejected(400, "invalid_request_error", f"{field}: {message}")


def read_body(content: bytes) -> Any:
    """The request's JSON body, or a 400."""
    try:
        return json.loads(content)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise invalid("body", "not valid JSON") from None


def check_request(body: Any, *, count: bool = False) -> None:
    """Raise RequestRejected for anything the real API would refuse in a create (or count_tokens) body,
    the window aside: that is ``check_window``, on the request the model sees."""
    if not isinstance(body, dict):
        raise invalid("body", "Input should be a valid dictionary")
    known, served = (KNOWN_COUNT, SERVED_COUNT) if count else (KNOWN_CREATE, SERVED_CREATE)
    for key in body:
        if key not in known | served:
            raise invalid(key, EXTRA)
        if key not in served:
            raise invalid(key, NOT_IN_FAKE)
    for key in ("model", "messages") if count else ("model", "max_tokens", "messages"):
        if key not in body:
            raise invalid(key, "Field required")
    _check_model_field(body["model"])
    if not count:
        _check_int("max_tokens", body["max_tokens"], minimum=1)
    _check_system(body)
    names = _check_tools(body)
    _check_tool_choice(body, names)
    _check_options(body)
    _check_compaction(body, count)
    _check_messages(body["messages"], compacting="compaction" in body and not count)
    try:  # every cache_control, the top-level one included (caching.py)
        check_breakpoints(body)
    except CacheControlError as error:
        raise RequestRejected(400, "invalid_request_error", str(error)) from None
    try:
        context_window(body["model"])
    except ValueError:
        raise RequestRejected(404, "not_found_error", f"model: {body['model']}") from None
    if not count and body["max_tokens"] > max_output(body["model"]):
        raise invalid("max_tokens", f"{body['max_tokens']} > {max_output(body['model'])}, which is the maximum "
                                    f"allowed number of output tokens for {body['model']}")


def check_window(body: dict[str, Any], window: int | None = None, used: int | None = None) -> None:
    """Raise RequestRejected unless the input (``used`` tokens, counted here if not given), and the input
    plus ``max_tokens``, fit the model's window (or ``window`` tokens, when given)."""
    window = window or context_window(body["model"])
    used = request_tokens(body) if used is None else used
    wanted = body["max_tokens"]
    if used > window:
        raise RequestRejected(400, "invalid_request_error", f"prompt is too long: {used} tokens > {window} maximum")
    if used + wanted > window:
        raise RequestRejected(400, "invalid_request_error",
                              f"input length and `max_tokens` exceed context limit: {used} + {wanted} > {window}, "
                              "decrease input length or `max_tokens` and try again")


def request_tokens(body: dict[str, Any]) -> int:
    """The input tokens of a checked request, as the fake counts them: system, tools and messages."""
    system = body.get("system")
    if isinstance(system, list):
        system = "\n".join(b["text"] for b in system)
    return count_checked(body["messages"], system=system, tools=body.get("tools"))


# --- one field each ---------------------------------------------------------------------

def _check_model_field(model: Any) -> None:
    if not isinstance(model, str):
        raise invalid("model", "Input should be a valid string")
    if not 1 <= len(model) <= 256:
        raise invalid("model", "String should have at least 1 character" if not model
                      else "String should have at most 256 characters")


def _check_int(field: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid(field, "Input should be a valid integer")
    if value < minimum:
        raise invalid(field, f"Input should be greater than or equal to {minimum}")


def _check_number(field: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise invalid(field, "Input should be a valid number")
    if not 0 <= value <= 1:
        raise invalid(field, "Input should be between 0 and 1")


def _check_keys(where: str, value: dict[str, Any], allowed: set[str] | frozenset[str]) -> None:
    if (extra := _extra_key(value, allowed)) is not None:
        raise invalid(f"{where}.{extra}", EXTRA)


def _extra_key(value: dict[str, Any], allowed: set[str] | frozenset[str]) -> str | None:
    """The first key of ``value`` that is not ``allowed``, or None (the fast path: no message is built)."""
    if value.keys() <= allowed:
        return None
    return next(key for key in value if key not in allowed)


def _check_text_block(where: str, block: Any) -> None:
    if not isinstance(block, dict) or block.get("type") != "text":
        raise invalid(where, "only text blocks are supported here")
    if not isinstance(block.get("text"), str):
        raise invalid(f"{where}.text", "Input should be a valid string")
    _check_keys(where, block, TEXT_FIELDS)


def _check_system(body: dict[str, Any]) -> None:
    system = body.get("system", "")
    if isinstance(system, str):
        return
    if not isinstance(system, list):
        raise invalid("system", "Input should be a valid string or a list of text blocks")
    for i, block in enumerate(system):
        _check_text_block(f"system.{i}", block)


def _check_tools(body: dict[str, Any]) -> set[str]:
    """The names of the tools offered (checked)."""
    tools = body.get("tools", [])
    if not isinstance(tools, list):
        raise invalid("tools", "Input should be a valid list")
    names: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise invalid(f"tools.{i}", "Input should be a valid dictionary")
        if tool.get("type", "custom") != "custom":
            name = _check_typed_tool(f"tools.{i}", tool)
            if name in names:
                raise invalid("tools", "Tool names must be unique.")
            names.add(name)
            continue
        _check_keys(f"tools.{i}.custom", tool, set(ToolParam.__annotations__))
        name = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            raise invalid(f"tools.{i}.custom.name", f"String should match pattern '{TOOL_NAME.pattern}'")
        if not isinstance(tool.get("input_schema"), dict):
            raise invalid(f"tools.{i}.custom.input_schema",
                          "Field required" if "input_schema" not in tool else "Input should be a valid dictionary")
        if not isinstance(tool.get("description", ""), str):
            raise invalid(f"tools.{i}.custom.description", "Input should be a valid string")
        if name in names:
            raise invalid("tools", "Tool names must be unique.")
        names.add(name)
    return names


def _check_typed_tool(where: str, tool: dict[str, Any]) -> str:
    """A built-in tool named by its type (chapter 11): only the memory tool, with the fields of the SDK's
    ``MemoryTool20250818Param`` (``anthropic/types/memory_tool_20250818_param.py``, no beta needed; the beta
    namespace has the same fields); its name must be "memory". The wording of these 400s is unverified."""
    if tool["type"] != MEMORY_TYPE:
        raise invalid(f"{where}.type", f"{tool['type']!r} is {NOT_IN_FAKE}: of the typed tools it serves only "
                                       f"'{MEMORY_TYPE}'")
    where = f"{where}.{MEMORY_TYPE}"
    _check_keys(where, tool, set(BetaMemoryTool20250818Param.__annotations__))
    if tool.get("name") != "memory":
        raise invalid(f"{where}.name", "Field required" if "name" not in tool else "Input should be 'memory'")
    for field in ("defer_loading", "strict"):
        if not isinstance(tool.get(field, False), bool):
            raise invalid(f"{where}.{field}", "Input should be a valid boolean")
    for field in ("allowed_callers", "input_examples", "defer_loading", "strict"):
        if field in tool:
            raise invalid(f"{where}.{field}", NOT_IN_FAKE)
    return tool["name"]


def _check_tool_choice(body: dict[str, Any], names: set[str]) -> None:
    if "tool_choice" not in body:
        return
    choice = body["tool_choice"]
    if not isinstance(choice, dict) or choice.get("type") not in ("auto", "any", "tool", "none"):
        raise invalid("tool_choice", "Input should be an object with a type of 'auto', 'any', 'tool' or 'none'")
    _check_keys("tool_choice", choice, {"type", "disable_parallel_tool_use"} | ({"name"} if choice["type"] == "tool"
                                                                              else set()))
    if not isinstance(choice.get("disable_parallel_tool_use", False), bool):
        raise invalid("tool_choice.disable_parallel_tool_use", "Input should be a valid boolean")
    if choice["type"] == "tool" and choice.get("name") not in names:
        raise invalid("tool_choice.name", "must name one of the tools offered")
    if choice["type"] in ("any", "tool"):
        raise invalid("tool_choice.type", f"{choice['type']!r} is {NOT_IN_FAKE}: it answers with 'auto' or 'none'")


def _check_options(body: dict[str, Any]) -> None:
    """temperature, top_p, top_k, stop_sequences, metadata and stream, where present."""
    for field in ("temperature", "top_p"):
        if field in body:
            _check_number(field, body[field])
    if "top_k" in body:
        _check_int("top_k", body["top_k"], minimum=0)
    stops = body.get("stop_sequences", [])
    if not isinstance(stops, list):
        raise invalid("stop_sequences", "Input should be a valid list")
    for i, stop in enumerate(stops):
        if not isinstance(stop, str):
            raise invalid(f"stop_sequences.{i}", "Input should be a valid string")
    if stops:
        raise invalid("stop_sequences", NOT_IN_FAKE)
    metadata = body.get("metadata", {})
    if not isinstance(metadata, dict):
        raise invalid("metadata", "Input should be a valid dictionary")
    _check_keys("metadata", metadata, {"user_id"})
    if not isinstance(metadata.get("user_id", ""), (str, type(None))):
        raise invalid("metadata.user_id", "Input should be a valid string")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise invalid("stream", "Input should be a valid boolean")
    if stream:
        raise invalid("stream", f"{NOT_IN_FAKE}: it answers whole messages only")


def _check_compaction(body: dict[str, Any], count: bool) -> None:
    """``compaction`` (chapter 10), the SDK's ``BetaCompactionConfigParam``: ``{"type": "summarize"}`` with optional
    ``instructions`` (a string, or null). Its docstring: it "cannot be combined with `context_management`", and
    count_tokens "accepts this parameter and ignores it" (so the two may meet there). The wording is ours."""
    if "compaction" not in body:
        return
    config = body["compaction"]
    if not isinstance(config, dict):
        raise invalid("compaction", "Input should be a valid dictionary")
    _check_keys("compaction", config, {"type", "instructions"})
    if config.get("type") != "summarize":
        raise invalid("compaction.type", "Field required" if "type" not in config else "Input should be 'summarize'")
    if not isinstance(config.get("instructions", ""), (str, type(None))):
        raise invalid("compaction.instructions", "Input should be a valid string")
    if not count and "context_management" in body:
        raise invalid("compaction", "cannot be combined with `context_management` (our wording: the SDK's "
                                    "docstring of the field states the rule)")


def _check_messages(messages: Any, compacting: bool) -> None:
    """The API's rules and every field's type (``validate_messages``, chapter 02; ``compacting``: a compaction
    request's), then what the fake does not serve: a citation, a non-text block in a tool_result (it serves no
    document or image). A compaction block's tool changes are the compaction rules' (``compaction_rules``)."""
    try:
        validate_messages(messages, compacting=compacting)
    except InvalidHistory as error:
        raise invalid_history(error) from None
    for i, message in enumerate(messages):
        if isinstance(message["content"], str):
            continue
        for j, block in enumerate(message["content"]):
            if block.get("citations"):
                raise invalid(f"messages.{i}.content.{j}.{block['type']}.citations",
                              f"a non-empty list is {NOT_IN_FAKE}")
            if block["type"] == "tool_result" and isinstance(block.get("content"), list):
                for k, inner in enumerate(block["content"]):
                    _check_text_block(f"messages.{i}.content.{j}.tool_result.content.{k}", inner)


def invalid_history(error: InvalidHistory) -> RequestRejected:
    """The 400 for a history fault: the API's words (``messages.2.content.0: unexpected `tool_use_id` ...``),
    then our rule and where, in brackets; a rule the installed SDK types an error for (``ERROR_CLASSES``: the
    compaction block's) is its ``error_code`` too, so the SDK raises that class."""
    code = error.rule if (400, error.rule) in ERROR_CLASSES else None
    return RequestRejected(400, "invalid_request_error", f"{error.api_message} [{error.rule}: {error.where}]",
                           code=code)
