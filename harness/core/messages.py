"""The one message format: plain dicts in the Anthropic Messages API shape (chapter 02).

History is a list of JSON-serialisable dicts, ``{"role": ..., "content": ...}``,
with content either a string or a list of ``text`` / ``tool_use`` /
``tool_result`` blocks, and, in an assistant message, the ``compaction`` block
the API's server compaction returns (chapter 10) and the ``thinking`` and
``redacted_thinking`` blocks of a reply with thinking on, sent back as they came;
a user message (or a tool_result's content) may hold ``image`` blocks.
Nothing here depends on SDK classes, so a history survives a JSON round trip
unchanged.

What ``check_message`` enforces, for every message (so every entry point):

- a message holds ``role`` and ``content`` only, a block only the fields of
  ``BLOCK_FIELDS`` (the fields of the SDK's ``Beta*BlockParam`` types; a test
  compares the table with the installed SDK). Anything else is
  ``Extra inputs are not permitted``, as the API says;
- each field has the type the SDK declares: strings, booleans, a tool input
  object, ``cache_control`` (``{"type": "ephemeral", "ttl": "5m" | "1h"}``),
  ``citations`` (null or a list of typed objects), a tool_use's ``caller``, a
  compaction's ``tool_changes`` (null or a list of ``tool_addition`` /
  ``tool_removal`` objects), an image's ``source`` (``base64`` with one of the
  SDK's four media types, ``url`` or ``file``) and ``transformations``. Nested
  objects the fake never serves (a citation's or tool change's own fields) are checked only for their ``type``;
- every value is one JSON can carry and reads back the same: ``str`` without a
  lone surrogate (UTF-8 cannot encode one), ``int``, a finite ``float`` (JSON
  has no NaN or infinity), ``bool``, ``None``, ``list`` and ``dict`` with
  ``str`` keys; no tuple, set or bytes. Containers nest at most ``MAX_DEPTH``
  levels, counting the message as one. 100 is far more than any real history
  needs (a message, its content, a block and a tool input are four) and far
  enough below Python's recursion limit (1,000 frames) that ``json.dumps``,
  ``repr`` and this module's own walks never run out of stack, whatever the
  caller's depth. Whether the API has a depth limit of its own is unverified.
  ``check_sendable`` applies the same rule to any value (a log record).

A fault is an ``InvalidHistory`` with our ``rule`` name, message ``index``,
``block`` index and ``tool_id`` as attributes, and ``path`` + ``detail``: the
field at fault and the message. The API's own words, as public GitHub issues
quote its 400s verbatim, for: no messages (devoxx/DevoxxGenieIDEAPlugin#567),
an empty message (anthropics/claude-code#6774, #3196), an empty or blank text
(stackblitz/bolt.new#7426; anthropics/claude-code#23440), a tool_use not
answered first thing in the next message (anthropics/claude-code#5989, #1237;
Kilo-Org/kilocode#5163: the API names the assistant message and lists every
unanswered id, so a result placed after text reads the same), a tool_result
answering nothing (anthropics/claude-code#13460, #18947;
continuedev/continue#4751), two tool_results for one tool_use
(router-for-me/CLIProxyAPI#4998 quotes it whole; sipeed/picoclaw#1793,
QwenLM/qwen-code#8163), a duplicate tool_use id
(anthropics/claude-code#21317, #21083), an assistant message last
(smallmain/vscode-unify-chat-provider#249: the newer models' rule, which the
fake applies to every model; ``allow_prefill`` lifts it for a string), an
unknown field (``Extra inputs are not permitted``), an image's media type outside
the four (``...image.source.base64.media_type: Input should be 'image/jpeg', ...``,
anthropics/claude-code#2438, #8184). A field of the wrong type is
in pydantic's words (``Input should be a valid string``), the API's style in the
reports that show one, unverified case by case (an image source's unknown ``type``
in pydantic's words for a tagged union). Our own words, where no public
wording was found: a block type in the wrong role, a compaction's blank content,
a value JSON cannot carry, the depth, and the compaction block's rules (chapter
10), whose rule names are the ``error_code`` the installed SDK types for each
(``anthropic/_error_classes.py``), read as its docstring says: a block with
content goes first in ``messages`` (and never in a ``system`` message), only the
last one returned is sent, and a compaction request (``compacting``) does not
end on the assistant's unanswered tool calls. A block with null content is a
failed compaction the server treats as a no-op (``BetaCompactionBlock``): it may
stay anywhere.
Not checked: the tool_use id pattern the API enforces (``^[a-zA-Z0-9_-]+$``,
anomalyco/opencode#1279) and the trailing whitespace of a final assistant
prefill.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable

from .errors import Portable

Message = dict[str, Any]
Block = dict[str, Any]

MESSAGE_FIELDS = frozenset({"role", "content"})
BLOCK_FIELDS: dict[str, frozenset[str]] = {  # what each block may hold: the SDK's Beta*BlockParam fields
    "text": frozenset({"type", "text", "cache_control", "citations"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control", "caller", "toolset_name"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"}),
    "compaction": frozenset({"type", "content", "encrypted_content", "signature", "cache_control", "tool_changes"}),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
    "image": frozenset({"type", "source", "cache_control", "transformations"}),
}
BLOCK_ROLES = {"text": ("user", "assistant"), "tool_use": ("assistant",), "tool_result": ("user",),
               "compaction": ("assistant",), "thinking": ("assistant",), "redacted_thinking": ("assistant",),
               "image": ("user",)}
MAX_DEPTH = 100  # containers nested in one message, the message included (see the module docstring)
EXTRA = "Extra inputs are not permitted"

# The API's wordings, verbatim from public reports (repository#issue):
NO_MESSAGES = "at least one message is required"  # devoxx/DevoxxGenieIDEAPlugin#567
EMPTY_MESSAGE = ("all messages must have non-empty content except for the optional final assistant message")
# ^ anthropics/claude-code#6774, #3196
EMPTY_TEXT = "text content blocks must be non-empty"  # stackblitz/bolt.new#7426
BLANK_TEXT = "text content blocks must contain non-whitespace text"  # anthropics/claude-code#23440
UNANSWERED = ("`tool_use` ids were found without `tool_result` blocks immediately after: {ids}. Each `tool_use` "
              "block must have a corresponding `tool_result` block in the next message.")
# ^ anthropics/claude-code#5989, #1237; Kilo-Org/kilocode#5163
UNEXPECTED_RESULT = ("unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must "
                     "have a corresponding `tool_use` block in the previous message.")
# ^ anthropics/claude-code#13460, #18947; continuedev/continue#4751
DUPLICATE_ID = "`tool_use` ids must be unique"  # anthropics/claude-code#21317, #21083
NO_PREFILL = ("This model does not support assistant message prefill. "
              "The conversation must end with a user message.")  # smallmain/vscode-unify-chat-provider#249
DUPLICATE_RESULT = "each tool_use must have a single result. Found multiple `tool_result` blocks with id: {id}"
# ^ router-for-me/CLIProxyAPI#4998 (at messages.52.content.1: the second result's path); sipeed/picoclaw#1793
# Ours, each with the meaning of the docstring of the SDK's error class named in it (anthropic/types/):
MISPLACED = ("a `compaction` block goes first in `messages` (never in a `system` message), in place of the "
             "messages it summarizes (our wording: CompactionBlockMisplacedError)")
AMBIGUOUS = ("`messages` holds more than one `compaction` block with content: send only the one returned last "
             "(our wording: CompactionBlockAmbiguousError)")
INCOMPLETE_TURN = ("a compaction request cannot end on an unfinished `assistant` turn: its `tool_use` blocks have "
                   "no `tool_result` (our wording: CompactionIncompleteTurnError)")


class InvalidHistory(Portable, ValueError):
    """A history the Messages API would reject (chapter 02).

    Names our rule, the message index, block index and tool id (attributes ``rule``, ``index``, ``block``,
    ``tool_id``); ``path`` is the field at fault as the API writes it (``messages.2.content.0``, or ``messages``
    where the API names no index, empty where it names no field) and ``detail`` the API's wording;
    ``api_message`` is the two together, as the API's 400 reads, and the text is ours, then that."""

    def __init__(self, rule: str, index: int, detail: str, tool_id: str | None = None, block: int | None = None,
                 *, path: str | None = None, where: str | None = None):
        self.rule, self.index, self.tool_id, self.block = rule, index, tool_id, block
        self.detail = _printable(detail)
        self.path = _printable(path if path is not None else f"messages.{index}" + (
            f".content.{block}" if block is not None else ""))
        self.where = _printable(where or f"messages[{index}]" + (f", block {block}" if block is not None else "")
                                + (f", tool id {tool_id}" if tool_id else ""))
        super().__init__(f"{rule}: {self.where}: {self.api_message}")

    @property
    def api_message(self) -> str:
        return f"{self.path}: {self.detail}" if self.path else self.detail


def _printable(value: str) -> str:
    """``value`` with any lone surrogate (a bad field name or tool id quoted) escaped, so UTF-8 can carry it."""
    return value if value.isascii() or _encodable(value) else value.encode("utf-8", "backslashreplace").decode()


class _Fault(Exception):
    """A bad value inside a message: raised by the field checks, turned into InvalidHistory by
    ``check_message``. ``path`` (keys and indexes, outermost first) grows at the front as it travels out;
    ``fixed_path``, when set, is where the API reports the fault instead (``messages``)."""

    def __init__(self, detail: str, rule: str = "block_fields", path: str | None = None,
                 at: list[Any] | None = None):
        super().__init__(detail)
        self.detail, self.rule, self.fixed_path, self.path = detail, rule, path, at or []


# --- builders -----------------------------------------------------------------

def text(value: str) -> Block:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str, tool_input: dict[str, Any]) -> Block:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def tool_result(tool_id: str, content: str, is_error: bool = False) -> Block:
    block: Block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


def user(content: str | list[Block]) -> Message:
    return {"role": "user", "content": content}


def assistant(content: str | list[Block]) -> Message:
    return {"role": "assistant", "content": content}


# --- reading ------------------------------------------------------------------

def blocks(message: Message) -> list[Block]:
    """The message's content as a list of blocks (a string becomes one text block).

    Unchecked, for hot loops: pass a message of a history its caller checked (``check_shape``)."""
    content = message["content"]
    return [text(content)] if isinstance(content, str) else content


def iter_tool_results(messages: list[Message]) -> list[tuple[int, int, Block]]:
    """Every tool_result block as (message index, block index, block), oldest first."""
    check_shape(messages)
    found = []
    for i, message in enumerate(messages):
        content = message["content"]
        if message["role"] == "user" and isinstance(content, list):
            for j, block in enumerate(content):
                if block["type"] == "tool_result":
                    found.append((i, j, block))
    return found


def iter_tool_uses(messages: list[Message]) -> list[tuple[int, Block]]:
    """Every tool_use block as (message index, block), oldest first."""
    check_shape(messages)
    return [(i, block) for i, message in enumerate(messages)
            if message["role"] == "assistant" and isinstance(message["content"], list)
            for block in message["content"] if block["type"] == "tool_use"]


def tool_names_by_id(messages: list[Message]) -> dict[str, str]:
    """Map each tool_use id to its tool name (works on plain dicts, so after JSON too)."""
    check_shape(messages)
    names = {}
    for message in messages:
        content = message["content"]
        if message["role"] == "assistant" and isinstance(content, list):
            for block in content:
                if block["type"] == "tool_use":
                    names[block["id"]] = block["name"]
    return names


def text_of(message: Message) -> str:
    """The message's text blocks joined by newlines (tool blocks ignored).

    Unchecked, like ``blocks``: pass a message of a checked history."""
    return "\n".join(b["text"] for b in blocks(message) if b.get("type") == "text")


def result_text(block: Block) -> str:
    """A tool_result's content as a string (list content: its text blocks joined).

    Unchecked: pass a block of a checked history (``check_message`` vets a result's fields and content)."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


# --- the API rules ------------------------------------------------------------

def validate_messages(messages: list[Message], *, allow_prefill: bool = False, compacting: bool = False) -> None:
    """Raise InvalidHistory unless the Messages API would accept this history.

    The rules: every message well formed (``check_message``); at least one
    message; a compaction block with content comes first, and only one
    (``check_compaction_blocks``, chapter 10); every tool_use is answered first
    thing in the next user message; every tool_result answers a tool_use of the
    message just before, once; tool_use ids are unique; the history ends with a
    user message (or an assistant prefill, or a turn the server paused after a
    compaction block: chapter 10). ``compacting``: the history of a compaction
    request (chapter 10), which samples no reply, so it may end on the
    assistant's finished turn, but not on its unanswered tool calls.
    """
    if not isinstance(messages, list):
        raise InvalidHistory("non_empty_history", 0, _not_a_list(messages), path="messages")
    if not messages:
        raise InvalidHistory("non_empty_history", 0, NO_MESSAGES, path="messages")
    for i, message in enumerate(messages):
        check_message(message, i)  # every message first, so the tool rules read only sound blocks
    check_compaction_blocks(messages)
    last = messages[-1]
    if compacting and last["role"] == "assistant" and any(b.get("type") == "tool_use" for b in blocks(last)):
        raise InvalidHistory("compaction_incomplete_turn", len(messages) - 1, INCOMPLETE_TURN)
    seen_ids: set[str] = set()
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            _check_tool_uses(messages, i, seen_ids)
        else:
            _check_tool_results(messages, i)
    if last["role"] != "user" and not (allow_prefill and isinstance(last["content"], str)) \
            and not compacting and not paused_after_compaction(last):
        raise InvalidHistory("ends_with_user", len(messages) - 1, NO_PREFILL, path="")


def check_compaction_blocks(messages: list[Message]) -> None:
    """Raise InvalidHistory unless the history's compaction blocks with content are at most one, and that one
    is the first block of ``messages`` (chapter 10): the API reads the block in place of everything it
    summarises, so the client sends the last block returned first and drops what came before it.

    Unchecked: pass a history whose messages ``check_message`` passed (so a compaction block is an assistant's:
    ``BLOCK_ROLES``, and one in a ``system`` message was refused there)."""
    found = [(i, j) for i, message in enumerate(messages) if message["role"] == "assistant"
             and type(message["content"]) is list for j, block in enumerate(message["content"])
             if block["type"] == "compaction" and block.get("content") is not None]
    if len(found) > 1:
        i, j = found[1]
        raise InvalidHistory("compaction_block_ambiguous", i, AMBIGUOUS, block=j)
    if found and found[0] != (0, 0):
        i, j = found[0]
        raise InvalidHistory("compaction_block_misplaced", i, MISPLACED, block=j)


def paused_after_compaction(message: Message) -> bool:
    """An assistant turn that ends on a compaction block: ``pause_after_compaction`` stopped it there
    (``stop_reason`` ``"compaction"``), and the next request sends it back for the server to continue.

    Unchecked: pass a checked message. The SDK's tool runner resumes such a turn the same way
    (``anthropic.lib.tools._beta_runner``: ``"compaction": "resume"``)."""
    content = message["content"]
    return message["role"] == "assistant" and isinstance(content, list) and content[-1].get("type") == "compaction"


def check_shape(messages: Any) -> None:
    """Raise InvalidHistory unless ``messages`` is a list of well-formed messages (chapter 02).

    Only the shape: a list of messages with known roles and blocks with their
    fields. The pairing rules of ``validate_messages`` are not checked,
    so a history in the middle of a round (ending in a tool_use) passes.
    """
    check_list(messages)
    for i, message in enumerate(messages):
        check_message(message, i)


def check_list(messages: Any) -> None:
    """Raise InvalidHistory unless ``messages`` is a list (for callers that check each message as they read it)."""
    if not isinstance(messages, list):
        raise InvalidHistory("history_is_list", 0, _not_a_list(messages), path="messages")


def _not_a_list(messages: Any) -> str:
    return f"Input should be a valid list (a history is a list of messages, not {type(messages).__name__})"


def check_message(message: Any, i: int) -> None:
    """Raise InvalidHistory unless ``message`` (at index ``i``) is well formed: known fields only, each of
    its type, every value one JSON carries (the module docstring has the rules).

    Every entry point runs it on every message, so the common case is one flat pass over the blocks.
    """
    if not isinstance(message, dict):
        raise InvalidHistory("role", i, "Input should be a valid dictionary", path=f"messages.{i}")
    role = message.get("role")
    if role != "user" and role != "assistant":
        for j, block in enumerate(message["content"] if role == "system" and type(message.get("content")) is list
                                  else ()):
            if isinstance(block, dict) and block.get("type") == "compaction":  # the SDK types this case (chapter 10)
                raise InvalidHistory("compaction_block_misplaced", i, MISPLACED, block=j)
        raise InvalidHistory("role", i, "Input should be 'user' or 'assistant'", path=f"messages.{i}.role")
    if not message.keys() <= MESSAGE_FIELDS:
        extra = next(key for key in message if key not in MESSAGE_FIELDS)
        raise InvalidHistory("extra_inputs", i, EXTRA, path=f"messages.{i}.{extra}")
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            raise InvalidHistory("non_empty_content", i, EMPTY_MESSAGE)
        if content.isspace():
            raise InvalidHistory("non_empty_content", i, BLANK_TEXT, path="messages")
        if not content.isascii() and not _encodable(content):
            raise InvalidHistory("json_value", i, SURROGATE, path=f"messages.{i}.content")
        return
    if not isinstance(content, list):
        raise InvalidHistory("non_empty_content", i, "Field required" if "content" not in message else
                             "Input should be a valid string or a list of content blocks",
                             path=f"messages.{i}.content")
    if not content:
        raise InvalidHistory("non_empty_content", i, EMPTY_MESSAGE)
    for j, block in enumerate(content):
        if type(block) is dict:  # the fast path: a block of the usual shape, plainly sound (else: checked in full)
            kind, size = block.get("type"), len(block)
            if kind == "text" and size == 2:
                value = block.get("text")
                if type(value) is str and value and not value.isspace() and (value.isascii() or _encodable(value)):
                    continue
            elif kind == "tool_result" and size == 3 and role == "user":
                tool_id, value = block.get("tool_use_id"), block.get("content")
                if (type(tool_id) is str and tool_id and tool_id.isascii() and type(value) is str
                        and (value.isascii() or _encodable(value))):
                    continue
            elif kind == "tool_use" and size == 4 and role == "assistant":
                tool_id, name, tool_input = block.get("id"), block.get("name"), block.get("input")
                if (type(tool_id) is str and tool_id and tool_id.isascii() and type(name) is str and name
                        and name.isascii() and type(tool_input) is dict and _flat_ascii(tool_input)):
                    continue
        kind = block.get("type") if isinstance(block, dict) else None
        roles = BLOCK_ROLES.get(kind) if type(kind) is str else None
        if roles is None or role not in roles:
            raise InvalidHistory("block_type", i, f"block type {kind!r} not allowed in a {role} message "
                                 "(our wording: no public API wording found)", block=j)
        try:
            _check_fields(block, kind, 3)
        except _Fault as fault:
            tool_id = block.get("tool_use_id") if kind == "tool_result" else None
            path = fault.fixed_path or ".".join([f"messages.{i}.content.{j}.{kind}", *map(str, fault.path)])
            raise InvalidHistory(fault.rule, i, fault.detail, tool_id if isinstance(tool_id, str) else None, j,
                                 path=path) from None


def _flat_ascii(tool_input: dict[str, Any]) -> bool:
    """A tool input of the usual shape: ASCII string keys and values (sound as it is)."""
    for key, value in tool_input.items():
        if type(key) is not str or type(value) is not str or not key.isascii() or not value.isascii():
            return False
    return True


def check_sendable(value: Any, name: str = "value", where: str | None = None) -> None:
    """Raise InvalidHistory (rule ``json_value``, index 0) unless ``value`` is one JSON carries and reads back
    the same, nested at most ``MAX_DEPTH`` levels: the rule ``check_message`` applies inside a message, for any
    value (a session log's record, chapter 07). ``path`` names the bad value from ``name``; ``where`` says
    what the value is (default: ``messages[0]``)."""
    try:
        _check_json(value, 1)
    except _Fault as fault:
        raise InvalidHistory(fault.rule, 0, fault.detail, path=".".join([name, *map(str, fault.path)]),
                             where=where) from None


def _check_tool_uses(messages: list[Message], i: int, seen_ids: set[str]) -> None:
    uses = [(j, b) for j, b in enumerate(blocks(messages[i])) if b.get("type") == "tool_use"]
    for j, block in uses:
        if block["id"] in seen_ids:
            raise InvalidHistory("unique_tool_use_id", i, DUPLICATE_ID, block["id"], j)
        seen_ids.add(block["id"])
    if not uses:
        return
    following = blocks(messages[i + 1]) if i + 1 < len(messages) else []
    leading_ids = []
    for block in following:
        if block.get("type") != "tool_result":
            break
        leading_ids.append(block.get("tool_use_id"))
    unanswered = [block["id"] for _, block in uses if block["id"] not in leading_ids]
    if not unanswered:
        return
    detail = UNANSWERED.format(ids=", ".join(unanswered))
    later_ids = [b.get("tool_use_id") for b in following if b.get("type") == "tool_result"]
    if unanswered[0] in later_ids:  # answered, but after other blocks: the API reports the tool_use unanswered
        raise InvalidHistory("tool_results_first", i + 1, detail, unanswered[0], path=f"messages.{i}")
    raise InvalidHistory("tool_use_answered", i, detail, unanswered[0])


def _check_tool_results(messages: list[Message], i: int) -> None:
    content = blocks(messages[i])
    previous = messages[i - 1] if i > 0 else None
    asked = {b["id"] for b in blocks(previous) if b.get("type") == "tool_use"} if previous else set()
    answered: set[str] = set()
    for j, block in enumerate(content):
        if block.get("type") != "tool_result":
            continue
        tool_id = block["tool_use_id"]
        if tool_id not in asked:
            raise InvalidHistory("tool_result_answers_previous", i, UNEXPECTED_RESULT.format(id=tool_id), tool_id, j)
        if tool_id in answered:  # after other blocks too: every tool_use was answered first, so this is a second
            raise InvalidHistory("single_tool_result", i, DUPLICATE_RESULT.format(id=tool_id), tool_id, j)
        answered.add(tool_id)


# --- the fields of a block ------------------------------------------------------

FieldCheck = Callable[[Any, int], None]  # (value, its depth) -> None, or _Fault
SURROGATE = "a string holds a lone surrogate, which UTF-8 cannot encode"
CITATION_TYPES = ("char_location", "page_location", "content_block_location", "web_search_result_location",
                  "search_result_location")
CALLER_TYPES = ("direct", "code_execution_20250825", "code_execution_20260120")
TOOL_CHANGE_TYPES = ("tool_addition", "tool_removal")


def _check_fields(block: Block, kind: str, depth: int) -> None:
    """Every field of ``block`` (at ``depth``) is one its kind has, of the declared type; none required is missing."""
    checks = FIELD_CHECKS[kind]
    for key, value in block.items():
        if key == "type":
            continue
        check = checks.get(key)
        if check is None:
            raise _Fault(EXTRA, "extra_inputs", at=[key])
        try:
            check(value, depth + 1)
        except _Fault as fault:
            fault.path.insert(0, key)
            raise
    for key in REQUIRED[kind]:
        if key not in block:
            raise _Fault("Field required", at=[key])


@lru_cache(maxsize=65_536)
def _encodable(value: str) -> bool:
    """Whether UTF-8 can encode ``value`` (no lone surrogate); remembered, as the same texts are checked often."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_json(value: Any, depth: int) -> None:
    """_Fault unless ``value`` (a container at ``depth``) is a JSON value, nested at most MAX_DEPTH levels."""
    kind = type(value)
    if kind is str or isinstance(value, str):
        if not value.isascii() and not _encodable(value):
            raise _Fault(SURROGATE, "json_value")
    elif kind is dict or kind is list or isinstance(value, (dict, list)):
        if depth > MAX_DEPTH:
            raise _Fault(f"nested deeper than {MAX_DEPTH} levels (our limit: see harness.core.messages)",
                         "json_value")
        is_dict = isinstance(value, dict)
        for key, item in value.items() if is_dict else enumerate(value):
            if is_dict and not isinstance(key, str):
                raise _Fault(f"an object's keys are strings, not {type(key).__name__}", "json_value", at=[key])
            if is_dict and not key.isascii() and not _encodable(key):
                raise _Fault(SURROGATE, "json_value", at=[key])
            if type(item) is str:
                if not item.isascii() and not _encodable(item):
                    raise _Fault(SURROGATE, "json_value", at=[key])
                continue
            try:
                _check_json(item, depth + 1)
            except _Fault as fault:
                fault.path.insert(0, key)
                raise
    elif kind is float:
        if not math.isfinite(value):
            raise _Fault(f"{value} is not a JSON number", "json_value")
    elif value is not None and not isinstance(value, int):  # int includes bool
        raise _Fault(f"a {kind.__name__} is not a JSON value", "json_value")


def _string(value: Any, depth: int) -> None:
    if not isinstance(value, str):
        raise _Fault("Input should be a valid string")
    _check_json(value, depth)


def _id(value: Any, depth: int) -> None:
    _string(value, depth)
    if not value:
        raise _Fault("String should have at least 1 character")


def _optional_string(value: Any, depth: int) -> None:
    if value is not None:
        _string(value, depth)


def _boolean(value: Any, depth: int) -> None:
    if not isinstance(value, bool):
        raise _Fault("Input should be a valid boolean")


def _object(value: Any, depth: int) -> None:
    if not isinstance(value, dict):
        raise _Fault("Input should be a valid dictionary")
    _check_json(value, depth)


def _check_text(value: Any, depth: int) -> None:
    _string(value, depth)
    if not value:
        raise _Fault(EMPTY_TEXT, "non_empty_content", path="messages")
    if value.isspace():
        raise _Fault(BLANK_TEXT, "non_empty_content", path="messages")


def _compaction_content(value: Any, depth: int) -> None:
    if value is None:
        return
    _string(value, depth)
    if not value or value.isspace():
        raise _Fault("a compaction block's content is a string that is not blank, or null for a failed "
                     "compaction (our wording: the SDK's type refuses an empty string)")


def _only(value: dict[str, Any], allowed: tuple[str, ...]) -> None:
    for key in value:
        if key not in allowed:
            raise _Fault(EXTRA, "extra_inputs", at=[key])


def _cache_control(value: Any, depth: int) -> None:
    if value is None:
        return
    _object(value, depth)
    _only(value, ("type", "ttl"))
    if value.get("type") != "ephemeral":
        raise _Fault("Input should be 'ephemeral'", at=["type"])
    if "ttl" in value and value["ttl"] not in ("5m", "1h"):
        raise _Fault("Input should be '5m' or '1h'", at=["ttl"])


def _caller(value: Any, depth: int) -> None:
    _object(value, depth)
    kind = value.get("type")
    if kind not in CALLER_TYPES:
        raise _Fault(f"Input should be one of {', '.join(map(repr, CALLER_TYPES))}", at=["type"])
    _only(value, ("type",) if kind == "direct" else ("type", "tool_id"))
    if kind != "direct" and not isinstance(value.get("tool_id"), str):
        raise _Fault("Field required" if "tool_id" not in value else "Input should be a valid string", at=["tool_id"])


def _typed_list(types: tuple[str, ...]) -> FieldCheck:
    """Null or a list of objects whose ``type`` is one of ``types`` (their other fields: JSON values only)."""
    def check(value: Any, depth: int) -> None:
        if value is None:
            return
        if not isinstance(value, list):
            raise _Fault("Input should be a valid list")
        _check_json(value, depth)
        for k, item in enumerate(value):
            if not isinstance(item, dict) or item.get("type") not in types:
                raise _Fault(f"Input should be an object with a type of {', '.join(map(repr, types))}", at=[k])
    return check


def _result_content(value: Any, depth: int) -> None:
    """A tool_result's content: a string, or a list of blocks (a text block checked as one; others: JSON)."""
    if isinstance(value, str):
        _check_json(value, depth)
        return
    if not isinstance(value, list):
        raise _Fault("Input should be a valid string or a list of content blocks")
    for k, inner in enumerate(value):
        if not isinstance(inner, dict):
            raise _Fault("Input should be a valid dictionary", at=[k])
        try:
            if inner.get("type") in ("text", "image"):
                _check_fields(inner, inner["type"], depth + 1)
            else:
                _check_json(inner, depth + 1)
        except _Fault as fault:
            fault.path.insert(0, k)
            fault.fixed_path = None  # inside a tool_result the path is the field's, not the message's
            raise


IMAGE_SOURCES = {"base64": ("media_type", "data"), "url": ("url",), "file": ("file_id",)}  # fields, all required
MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")  # the SDK's Base64ImageSourceParam
OVERSIZED = ("downsize", "error")  # an image transformation's choices (the SDK's ImageTransformationsParam)


def _image_source(value: Any, depth: int) -> None:
    """An image's ``source``: a tagged object, named in a fault's path by its tag as the API does
    (``image.source.base64.media_type``). Whether the data decodes, and to what, is the fake's check."""
    _object(value, depth)
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in IMAGE_SOURCES:
        raise _Fault(f"Input tag {kind!r} found using 'type' does not match any of the expected tags: "
                     + ", ".join(map(repr, IMAGE_SOURCES)))
    try:
        _only(value, ("type", *IMAGE_SOURCES[kind]))
        for key in IMAGE_SOURCES[kind]:
            if key not in value:
                raise _Fault("Field required", at=[key])
            if not isinstance(value[key], str):
                raise _Fault("Input should be a valid string", at=[key])
        if kind == "base64" and value["media_type"] not in MEDIA_TYPES:
            raise _Fault("Input should be " + ", ".join(map(repr, MEDIA_TYPES[:-1])) + f" or {MEDIA_TYPES[-1]!r}",
                         at=["media_type"])
    except _Fault as fault:
        fault.path.insert(0, kind)
        raise


def _transformations(value: Any, depth: int) -> None:
    if value is None:
        return
    _object(value, depth)
    _only(value, ("oversized_image",))
    if "oversized_image" in value and value["oversized_image"] not in OVERSIZED:
        raise _Fault("Input should be 'downsize' or 'error'", at=["oversized_image"])


FIELD_CHECKS: dict[str, dict[str, FieldCheck]] = {
    "text": {"text": _check_text, "cache_control": _cache_control, "citations": _typed_list(CITATION_TYPES)},
    "tool_use": {"id": _id, "name": _id, "input": _object, "cache_control": _cache_control, "caller": _caller,
                 "toolset_name": _optional_string},
    "tool_result": {"tool_use_id": _id, "content": _result_content, "is_error": _boolean,
                    "cache_control": _cache_control, "toolset_name": _optional_string},
    "compaction": {"content": _compaction_content, "encrypted_content": _optional_string,
                   "signature": _optional_string, "cache_control": _cache_control,
                   "tool_changes": _typed_list(TOOL_CHANGE_TYPES)},
    "thinking": {"thinking": _string, "signature": _string},
    "redacted_thinking": {"data": _string},
    "image": {"source": _image_source, "cache_control": _cache_control, "transformations": _transformations},
}
REQUIRED = {"text": ("text",), "tool_use": ("id", "name", "input"), "tool_result": ("tool_use_id",),
            "compaction": (), "thinking": ("thinking", "signature"), "redacted_thinking": ("data",),
            "image": ("source",)}
