"""What the fake server accepts: the whole request checked before anything reads it (chapter 00).

Every field the installed SDK declares for a request (``MessageCreateParamsBase``, its beta twin, and the
count_tokens params) is served, or refused as the API refuses it; none is refused for being beyond the fake.
The table (a test walks the SDK's fields, so a field added to the SDK fails it until it is here):

=========================  ======================================================================================
field                      what the fake does
=========================  ======================================================================================
``model``                  served: the model table (``core.models``); an unknown model is a 404
``max_tokens``             served: caps every reply (``output``); 0 is allowed (the SDK's docstring: it warms the
                           cache without a reply): the reply is empty, ``stop_reason`` ``"max_tokens"``
``messages``               served: the API's rules (``core.messages``), thinking blocks (``thinking``), images
                           (``images``)
``system``                 served: a string or text blocks
``tools``                  served: custom tools and the memory tool (chapter 11); another typed (built-in) tool
                           is a 400 naming its type, and the memory tool's ``allowed_callers``,
                           ``input_examples``, ``defer_loading`` and ``strict`` too (ours)
``tool_choice``            served: ``auto``, ``none``, ``any`` and ``tool`` (``choice``);
                           ``disable_parallel_tool_use`` goes to the agent
``thinking``               served: every type the SDK declares (``thinking``)
``stop_sequences``         served: the reply stops at the first one in its text (``output``)
``metadata``               served: checked, not used
``output_config``          served: ``format`` shapes the reply's text; ``effort`` and ``task_budget`` are
                           checked and ignored (``options``)
``service_tier``           served: reported in ``usage`` (``options``)
``speed``                  served: reported in ``usage`` (``options``)
``inference_geo``          served: reported in ``usage`` (``options``)
``diagnostics``            served: ``cache_miss_reason`` null or ``unavailable`` (``options``)
``container``              refused as for an unknown container, or skills without code execution (``options``)
``billing_policy``         served: ``self``; ``user_profile`` needs the profile header (``options``)
``fallbacks``              served: checked; never tried, the model never declines (``options``)
``fallback_credit_token``  refused: the fake issued no token; served in ``best_effort`` mode (``options``)
``mcp_servers``            refused: the offline fake reaches no MCP server (``options``)
``user_profile_id``        a header (the SDK sends it as one): accepted
``workspace_id``           a header (the SDK sends it as one): accepted
``betas``                  a header, ``anthropic-beta``: read where a feature needs one
``context_management``     served: ``context_management`` (its edits; ``clear_thinking_20251015``: ``thinking``);
                           on count_tokens, the count after the edits and ``original_input_tokens``
``cache_control``          served: automatic prompt caching, on the last block that can hold it (``caching``)
``compaction``             served: on-demand compaction, the block alone (``context_management``);
                           ignored by count_tokens, as the SDK's docstring says
``stream``                 served: ``true`` streams the reply as server-sent events (``streaming``); checked
                           a boolean (``options``)
``thread``                 served: the server keeps threads (``threads``), which takes the field off before
                           these checks see the whole request
=========================  ======================================================================================

Besides these, ``temperature``, ``top_p`` and ``top_k`` are taken (gone from the SDK's types, still taken by the
API: unverified) and ignored: the fake is deterministic. Every fault is an HTTP error whose message starts
with the field at fault, written as the API writes it (``messages.0.content.1.tool_use.text``), or with
the API's sentence where it names no field (an assistant message last):

- a field the API does not know: 400 ``<field>: Extra inputs are not permitted``, the
  real API's wording (public reports: ``response_format: ...``, ``messages.0.name: ...``);
- a wrong type or value: 400 in pydantic's words (``Field required``, ``Input should be
  a valid integer``). The real API answers in them where reports show it (extra inputs,
  ``model: String should have at most 256 characters``); the other cases are unverified,
  and so is the fake's strict choice to refuse ``null`` for an optional field (the SDK
  leaves an unset field out, never sends null);
- a message or block with a field it does not have, a field of the wrong type, a value JSON
  cannot carry, or a history that breaks the API's rules: 400 in the API's words where public
  reports quote them (``messages.3: `tool_use` ids were found without `tool_result` blocks
  immediately after: ...``), and nothing more (the API names no rule): ``core.messages`` holds the
  rules, the one table of the fields a block may have, and the sources of the wordings;
- an unknown model: 404 ``not_found_error``, ``model: <id>``, as the API answers;
- ``max_tokens`` above the model's maximum output (``core.models.max_output``): 400
  ``max_tokens: N > M, which is the maximum allowed number of output tokens for <model>``;
- input over the window: ``window``'s to check, on the request the model sees.

The last two wordings are the real API's, as quoted in public bug reports.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping

from anthropic._error_classes import ERROR_CLASSES
from anthropic.types import ToolParam, message_count_tokens_params, message_create_params
from anthropic.types.beta import BetaMemoryTool20250818Param
from anthropic.types.beta import message_count_tokens_params as beta_count_params
from anthropic.types.beta import message_create_params as beta_create_params

from ..core.messages import BLOCK_FIELDS, EXTRA, InvalidHistory, validate_messages
from ..core.models import context_window, max_output
from ..core.tokens import count_checked
from . import thinking
from .caching import CacheControlError, check_breakpoints
from .images import ImageAt, check_images
from .options import check_integer, check_options
from .rejection import RequestRejected, invalid

NOT_IN_FAKE = "not supported by the offline fake"
SAMPLING = {"temperature", "top_p", "top_k"}  # gone from the SDK's types, still taken by the API (unverified)
HEADERS = {"betas", "user_profile_id", "workspace_id"}  # declared, but the SDK sends them as headers
KNOWN_CREATE = (set(message_create_params.MessageCreateParamsBase.__annotations__)
                | set(beta_create_params.MessageCreateParamsBase.__annotations__) | SAMPLING | {"stream"}) - HEADERS
KNOWN_COUNT = (set(message_count_tokens_params.MessageCountTokensParams.__annotations__)
               | set(beta_count_params.MessageCountTokensParams.__annotations__)) - HEADERS
TEXT_FIELDS = BLOCK_FIELDS["text"]  # the one table of a block's fields is core.messages'
MEMORY_TYPE = "memory_20250818"  # chapter 11: the one typed (built-in) tool the fake serves
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")  # unverified: the fake's choice of a tool name's form


def read_body(content: bytes) -> Any:
    """The request's JSON body, or a 400."""
    try:
        return json.loads(content)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise invalid("body", "not valid JSON") from None


def check_request(body: Any, *, count: bool = False, headers: Mapping[str, str] | None = None) -> None:
    """Raise RequestRejected for anything the real API would refuse in a create (or count_tokens) body,
    the window aside: that is ``window.output_room``, on the request the model sees. ``headers``: the request's,
    for the checks that read one (``options``); None skips those."""
    if not isinstance(body, dict):
        raise invalid("body", "Input should be a valid dictionary")
    for key in body:
        if key not in (KNOWN_COUNT if count else KNOWN_CREATE):
            raise invalid(key, EXTRA)
    for key in ("model", "messages") if count else ("model", "max_tokens", "messages"):
        if key not in body:
            raise invalid(key, "Field required")
    _check_model_field(body["model"])
    if not count:
        check_integer("max_tokens", body["max_tokens"], 0)
    _check_system(body)
    names = _check_tools(body)
    _check_tool_choice(body, names)
    check_options(body, headers)
    thinking.check_config(body, count=count)
    _check_compaction(body, count)
    images, thoughts = _check_messages(body["messages"], compacting="compaction" in body and not count)
    try:  # every cache_control, the top-level one included (caching.py)
        check_breakpoints(body)
    except CacheControlError as error:
        raise RequestRejected(400, "invalid_request_error", str(error)) from None
    try:
        context_window(body["model"])
    except ValueError:
        raise RequestRejected(404, "not_found_error", f"model: {body['model']}") from None
    thinking.check_blocks(body, thoughts)
    if images:
        check_images(images, body["model"])
    if not count and body["max_tokens"] > max_output(body["model"]):
        raise invalid("max_tokens", f"{body['max_tokens']} > {max_output(body['model'])}, which is the maximum "
                                    f"allowed number of output tokens for {body['model']}")


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
        raise invalid(where, "only text blocks are supported here" + (" (and, in a tool_result, images)"
                                                                      if "tool_result" in where else ""))
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
    """``tool_choice``'s form (what each type does: ``choice``). The wording of a forced choice naming no
    tool offered, or forcing a tool when none is offered, is ours."""
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
    if choice["type"] == "any" and not names:
        raise invalid("tool_choice", "'any' forces a tool call, and the request offers no tools (our wording)")


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


def _check_messages(messages: Any, compacting: bool) -> tuple[list[ImageAt], list[thinking.Thought]]:
    """The API's rules and every field's type (``validate_messages``, chapter 02; ``compacting``: a compaction
    request's), then what the fake does not serve: a citation, a block in a tool_result other than text or an
    image (a compaction block's tool changes are the compaction rules', ``compaction_rules``). Returns the images
    and the thinking blocks found, for ``images.check_images`` and ``thinking.check_blocks``."""
    try:
        validate_messages(messages, compacting=compacting)
    except InvalidHistory as error:
        raise invalid_history(error) from None
    found: list[ImageAt] = []
    thoughts: list[thinking.Thought] = []
    for i, message in enumerate(messages):
        if isinstance(message["content"], str):
            continue
        for j, block in enumerate(message["content"]):
            kind = block["type"]
            if kind == "text":  # the one list the fake does not serve
                if block.get("citations"):
                    raise invalid(f"messages.{i}.content.{j}.text.citations", f"a non-empty list is {NOT_IN_FAKE}")
            elif kind == "thinking":
                thoughts.append((i, j, block))
            elif kind == "image":
                found.append((f"messages.{i}.content.{j}", f"messages.{i}.content.{j}", block))
            elif kind == "tool_result" and isinstance(block.get("content"), list):
                for k, inner in enumerate(block["content"]):
                    where = f"messages.{i}.content.{j}.tool_result.content.{k}"
                    if isinstance(inner, dict) and inner.get("type") == "image":
                        found.append((where, f"messages.{i}.content.{j}.content.{k}", inner))
                    else:
                        _check_text_block(where, inner)
    return found, thoughts


def invalid_history(error: InvalidHistory) -> RequestRejected:
    """The 400 for a history fault, in the API's words alone (``messages.2.content.0: unexpected `tool_use_id`
    ...``): the API sends no rule name, so neither does the fake (``InvalidHistory.rule`` keeps ours). A rule the
    installed SDK types an error for (``ERROR_CLASSES``: the compaction block's) is its ``error_code``, so the SDK
    raises that class."""
    code = error.rule if (400, error.rule) in ERROR_CLASSES else None
    return RequestRejected(400, "invalid_request_error", error.api_message, code=code)
