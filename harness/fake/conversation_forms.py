"""The conversation in whatever form a summary request holds it (chapter 03).

A harness sends its history to the summariser as text, and not every harness
writes it as the course does (``json.dumps(messages)`` inside tags). The fake
summariser recovers the messages from each of these forms:

1. **Message dicts**, JSON (``{"role": ...}``) or Python literals
   (``{'role': ...}``: ``str(messages)``), anywhere in the text: every whole
   one, so a dump cut mid-message at its head still yields the rest.
2. **SDK objects turned to text** inside them: a content item that is a
   string such as ``TextBlock(citations=None, text='...', type='text')`` or
   ``ToolUseBlock(id='toolu_1', input={'path': 'a.py'}, name='read_file',
   type='tool_use')`` (what ``json.dumps(messages, default=str)`` writes for
   the SDK's response blocks), or the same call written bare in a Python
   literal. Every such piece is parsed with ``ast`` and read as literals and
   keyword calls only: nothing is evaluated.
3. **LangChain's messages turned to text**, when the text holds no message
   dict: ``HumanMessage(content=...)``, ``AIMessage(content=..., tool_calls=[{"name":
   ..., "args": ..., "id": ...}])``, ``ToolMessage(content=..., tool_call_id=...)`` (what
   ``str(messages)`` writes, as LangChain's summarization prompt holds them;
   ``SystemMessage`` is skipped); the results of one turn's calls become one
   user message. Parsed like form 2, with ``ast``.
4. **XML elements**, when the text holds none of those: ``<message
   role="user">...</message>`` (also ``turn``, ``msg``, ``entry``, with
   ``speaker``, ``from`` or ``author``), each up to its closing tag.
5. **A plain transcript**, when the text holds none of those: turns that
   open a line with a speaker, ``User:``, ``Human:``, ``Assistant:``, ``AI:``,
   ``Claude:``, ``Model:``, ``Bot:``, ``Agent:``, ``Tool call:``, ``Tool result:`` or ``Tool:`` (also ``[user]``,
   ``**User:**``, ``**User**:``, ``> User:``, ``USER >>``; after an index or a time, ``[0] user:``,
   ``[2024-05-14 10:02:11] user:``, ``Turn 1, User:``, YAML's ``- role: user`` with ``content:``, ChatML's
   ``<|im_start|>user`` (its ``<|im_end|>`` dropped), IRC's ``<user>``, a table row ``| user | ... |``, a chat
   export's ``You said:`` / ``ChatGPT said:``; and names that are speakers only as a pair, ``Q:`` with ``A:``,
   ``Question:`` with ``Answer:``, ``me:`` with ``you:``), or a line that holds a speaker's
   name alone, as a heading or in bold (``# USER``, ``## MODEL ✨``, ``**Assistant**``: the
   chat exports of Aider and Gemini CLI); the lines that follow belong to the
   same turn. An assistant turn or a ``Tool call:`` turn that writes a
   file tool call (``read_file({"path": "a.py"})``, ``read_file(path='a.py')``,
   ``read_file {"path": "a.py"}``) holds that call; a ``Tool result:`` turn
   answers the latest call, an error when it starts with "Error".

Every message is brought to the API's block shapes (text, tool_use,
tool_result; other blocks as they are) and kept only when it is well formed
(``check_message``). Limits: a transcript's speaker must open its line (a
``- User:`` line is a summary's line, not a turn); a tool call written in
other words ("I read a.py") is text; a piece that does not parse is skipped,
never guessed.
"""
from __future__ import annotations

import ast
import json
import re
from typing import Any

from ..core.messages import InvalidHistory, Message, check_message

MESSAGE_START = re.compile(r"""\{\s*(["'])role\1\s*:\s*""")
TOKEN = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[{}\[\]()]""")
CALL_TEXT = re.compile(r"^[A-Z]\w*\(.*\)$", re.DOTALL)
CLOSE = {"{": "}", "[": "]", "(": ")"}
NAMED = {"None": None, "True": True, "False": False, "null": None, "true": True, "false": False}
CLASS_TYPES = {"TextBlock": "text", "ToolUseBlock": "tool_use", "ToolResultBlock": "tool_result"}
UNPARSED = (SyntaxError, ValueError, TypeError, RecursionError, MemoryError)  # a piece that does not parse

TURN_PREFIX = (r"(?:\[[\d:T .+/-]{1,32}\][ \t]*|\d{1,2}:\d{2}(?::\d{2})?[ \t]+"  # "[0] ", "[2024-05-14 10:02]"
               r"|<\|im_start\|>[ \t]*|\|[ \t]*"  # ChatML's "<|im_start|>user", a table row's "| user |"
               r"|(?:turn|message|msg|step)[ \t]*#?\d{1,4}[ \t]*[,:.)-]?[ \t]*"  # "Turn 1, "
               r"|(?:-[ \t]*)?(?:role|speaker|from|author)[ \t]*:[ \t]*)?")  # "- role: user", YAML's message list
SPEAKER = re.compile(  # a speaker's name is short (every name in ROLES is), so a long line costs linear time
    r"^[ \t>#*_]*" + TURN_PREFIX
    + r"(?:[\[<]\|?(?P<bracketed>[a-z][a-z _-]{0,23}?)\|?[\]>]"  # "[user]", IRC's "<user>", "<|user|>"
    r"|(?P<named>[a-z][a-z _-]{0,23}?)(?:\*\*|__)?[ \t]*(?::|>>?|\|)"
    r"|(?P<alone>[a-z][a-z _-]{0,23}?)(?:\*\*|__)?(?=[^\w\n]*$))"
    r"(?:\*\*|__)?[ \t]*(?P<said>.*)$", re.IGNORECASE | re.MULTILINE)
ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant", "claude": "assistant",
         "model": "assistant", "bot": "assistant", "chatbot": "assistant", "agent": "assistant",
         "ai assistant": "assistant", "chatgpt": "assistant", "gpt": "assistant", "gemini": "assistant",
         "copilot": "assistant", "llm": "assistant", "you said": "user", "i said": "user",
         "claude said": "assistant", "chatgpt said": "assistant", "gemini said": "assistant",
         "tool call": "call", "tool use": "call", "tool_use": "call", "function call": "call",
         "tool result": "result", "tool_result": "result", "tool output": "result", "function result": "result",
         "tool": "result"}
# names that are a speaker only beside their partner ("Q:" with "A:", "me:" with "you:"): alone, "A:" may be a label
PAIRED_ROLES = {"q": ("a", "user"), "a": ("q", "assistant"), "question": ("answer", "user"),
                "answer": ("question", "assistant"), "me": ("you", "user"), "you": ("me", "assistant")}
PAIRED_LINE = re.compile(rf"^[ \t>#*_]*{TURN_PREFIX}(?P<name>{'|'.join(PAIRED_ROLES)})(?:\*\*|__)?[ \t]*:.*$",
                         re.IGNORECASE | re.MULTILINE)


def paired_speakers(text: str) -> set[str]:
    """The paired names (``PAIRED_ROLES``) that open a line of ``text`` beside a line opened by their partner."""
    names = {m.group("name").lower() for m in PAIRED_LINE.finditer(text)}
    return {name for name in names if PAIRED_ROLES[name][0] in names}


FILE_CALL = re.compile(r"""\b(read_file|edit_file|write_file)\b\s*(?:\(\s*)?(?:(\{)|path\s*=\s*(["']))""")


def whole_messages(dump: str) -> list[Message]:
    """Every whole, well-formed message dict in ``dump`` (forms 1 and 2 of the module docstring)."""
    decoder, found, position, closings = json.JSONDecoder(), [], 0, {}
    while (start := MESSAGE_START.search(dump, position)) is not None:
        parsed, end = _parse_at(dump, start.start(), decoder, closings)
        if parsed is None:
            position = start.start() + 1
            continue
        if (message := _message(parsed)) is not None:
            found.append(message)
        position = end
    return found


def conversation_messages(text: str, instruction: str = "") -> list[Message]:
    """The messages ``text`` holds: its message dicts, else LangChain's message reprs, else its plain
    transcript (whose last turn stops before ``instruction``, the request's own words)."""
    return (whole_messages(text) or langchain_messages(text) or xml_messages(text)
            or transcript_messages(text, instruction))


LANGCHAIN_START = re.compile(r"\b(Human|AI|Tool|System)Message\(")


def langchain_messages(text: str) -> list[Message]:
    """Every whole LangChain message repr in ``text`` (form 3 of the module docstring), as API messages."""
    found: list[Message] = []
    position, closings = 0, {}
    while (start := LANGCHAIN_START.search(text, position)) is not None:
        opening = start.end() - 1
        if opening not in closings:
            closings.update(_closings(text, opening))
        end = closings.get(opening)
        if end is None:
            position = start.end()
            continue
        try:
            fields = _python_literal(text[start.start():end])
        except UNPARSED:
            fields = None
        position = end
        if isinstance(fields, dict) and (message := _langchain_message(start.group(1), fields)) is not None:
            if found and message["role"] == "user" and _results(message) and _results(found[-1]):
                found[-1] = {"role": "user", "content": found[-1]["content"] + message["content"]}
            else:
                found.append(message)
    return found


def _results(message: Message) -> bool:
    content = message["content"]
    return isinstance(content, list) and bool(content) and all(b.get("type") == "tool_result" for b in content)


def _langchain_message(kind: str, fields: dict[str, Any]) -> Message | None:
    """One LangChain message's fields as an API message, or None (a system message, or a malformed one)."""
    content = fields.get("content", "")
    if kind == "Human":
        return _message({"role": "user", "content": content})
    if kind == "Tool":
        result = {"type": "tool_result", "tool_use_id": fields.get("tool_call_id"), "content": content,
                  **({"is_error": True} if fields.get("status") == "error" else {})}
        return _message({"role": "user", "content": [result]})
    if kind != "AI":
        return None
    parts = [content] if isinstance(content, str) and content else content if isinstance(content, list) else []
    known = {p.get("id") for p in parts if isinstance(p, dict)}
    calls = [{"type": "tool_use", "id": c.get("id"), "name": c.get("name"), "input": c.get("args")}
             for c in fields.get("tool_calls") or [] if isinstance(c, dict) and c.get("id") not in known]
    return _message({"role": "assistant", "content": parts + calls})


def _parse_at(text: str, start: int, decoder: json.JSONDecoder,
              closings: dict[int, int | None]) -> tuple[Any, int]:
    """The dict that starts at ``start`` and where it ends; (None, start) when it is cut or malformed.
    ``closings`` keeps every bracket's end found so far (``_closings``); a dict whose brackets do not
    close is not valid JSON either, so it costs no decoding."""
    if start not in closings:
        closings.update(_closings(text, start))
    end = closings.get(start)
    if end is None:
        return None, start
    try:
        return decoder.raw_decode(text, start)
    except (ValueError, RecursionError):  # malformed, too deep, or an integer too long to convert
        pass
    try:
        return _python_literal(text[start:end]), end
    except UNPARSED:
        return None, start


def _closings(text: str, start: int) -> dict[int, int | None]:
    """The end of the bracketed literal that opens at ``start`` (strings skipped; None if it is cut or
    mismatched), and of every bracket opened inside it on the way: one scan serves all the dicts a cut
    dump nests, so a text of many cut dicts costs linear time, not a scan each."""
    expected: list[tuple[str, int]] = []
    ends: dict[int, int | None] = {}
    for token in TOKEN.finditer(text, start):
        mark = token.group()
        if mark in CLOSE:
            expected.append((CLOSE[mark], token.start()))
        elif mark in ")]}":
            if not expected or expected[-1][0] != mark:
                break
            ends[expected.pop()[1]] = token.end()
            if not expected:
                return ends
    ends.update((opened, None) for _, opened in expected)
    ends.setdefault(start, None)
    return ends


def _python_literal(source: str) -> Any:
    """The value of a Python literal written in ``source`` (``_literal``); raises one of ``UNPARSED``."""
    return _literal(ast.parse(source, mode="eval").body)


def _literal(node: ast.AST) -> Any:
    """A literal's value: constants, containers, None/True/False/null/true/false, and keyword calls
    (``Name(key=value, ...)``) as a dict with a ``type`` taken from the class name when missing."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):  # a key that cannot be one (a list) raises TypeError: one of UNPARSED
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Name) and node.id in NAMED:
        return NAMED[node.id]
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
            and isinstance(node.operand.value, (int, float, complex))):
        return -node.operand.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args:
        fields = {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg}
        if "type" not in fields and node.func.id in CLASS_TYPES:
            fields["type"] = CLASS_TYPES[node.func.id]
        return fields
    raise ValueError(f"not a literal: {type(node).__name__}")


def _message(value: Any) -> Message | None:
    """``value`` as a well-formed message in the API's block shapes, or None."""
    if not isinstance(value, dict) or value.get("role") not in ("user", "assistant"):
        return None
    content = value.get("content")
    if isinstance(content, list):
        content = [b for item in content if (b := _block(item)) is not None]
    message = {"role": value["role"], "content": content}
    try:
        check_message(message, 0)
    except InvalidHistory:
        return None
    return message


def _block(item: Any) -> dict[str, Any] | None:
    """One content item as an API block: a dict, an SDK repr string, or a plain string as text."""
    if isinstance(item, str):
        if not CALL_TEXT.match(item.strip()):
            return {"type": "text", "text": item} if item.strip() else None
        try:
            item = _python_literal(item.strip())
        except UNPARSED:
            return {"type": "text", "text": item}
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "text":
        return {"type": "text", "text": item["text"]} if isinstance(item.get("text"), str) else None
    if kind == "tool_use":
        return {"type": "tool_use", "id": item.get("id"), "name": item.get("name"), "input": item.get("input")}
    if kind == "tool_result":
        content = item.get("content", "")
        if isinstance(content, list):
            content = [b for part in content if (b := _block(part)) is not None]
        result = {"type": "tool_result", "tool_use_id": item.get("tool_use_id"), "content": content}
        return {**result, "is_error": True} if item.get("is_error") else result
    return item


DELIMITER = re.compile(r"^[ \t]*(?:</[A-Za-z][\w-]*>|[=*~-]{3,}[^\n]*)[ \t]*$", re.MULTILINE)  # "</chat>", "=== END ==="


def _last_turn(said: str, instruction: str) -> str:
    """The last turn of a pasted transcript, which runs to the end of the text: up to a line that closes the
    transcript ("</chat>", "=== END ===") and without the request's closing paragraph ("Summarize the
    chat above.", the last paragraph of ``instruction``) when the turn ends with it."""
    if (delimiter := DELIMITER.search(said)) is not None:
        said = said[:delimiter.start()]
    asked = instruction.strip().rsplit("\n\n", 1)[-1].strip()
    body = said.rstrip()
    return body[:-len(asked)] if asked and body.endswith(asked) and body[:-len(asked)].endswith("\n\n") else said


TURN_END = re.compile(r"(?:\s*(?:<\|im_end\|>|<\|end\|>|<\|eot_id\|>|</s>|\|))+\s*$")  # a turn's closing token
YAML_CONTENT = re.compile(r"^content[ \t]*:[ \t]*\|?[ \t]*", re.IGNORECASE)  # "- role: user" then "content: ..."
XML_MESSAGE = re.compile(r"""<(message|turn|msg|entry)\s+(?:role|speaker|from|author)\s*=\s*["']([\w ]{1,24})["']\s*>""",
                         re.IGNORECASE)


def xml_messages(text: str) -> list[Message]:
    """The turns written as XML elements, ``<message role="user">...</message>`` (also ``turn``, ``msg``,
    ``entry``; ``speaker``, ``from``, ``author``), each to the first closing tag of its name. Once a closing tag
    is missing, later openings of that name cannot close either, so the text is read in linear time."""
    messages: list[Message] = []
    missing: set[str] = set()
    position, lowered = 0, text.lower()
    while (opening := XML_MESSAGE.search(text, position)) is not None:
        name = opening.group(1).lower()
        close = -1 if name in missing else lowered.find(f"</{name}>", opening.end())
        if close < 0:
            missing.add(name)
            position = opening.end()
            continue
        role, said = ROLES.get(opening.group(2).strip().lower()), text[opening.end():close].strip()
        if role in ("user", "assistant") and said:
            messages.append({"role": role, "content": said if role == "user" else [{"type": "text", "text": said}]})
        position = close
    return messages


def transcript_messages(text: str, instruction: str = "") -> list[Message]:
    """The turns of a plain transcript (form 5 of the module docstring), as messages. The last turn stops
    before a closing line or ``instruction``'s last paragraph (``_last_turn``)."""
    turns: list[tuple[str, str]] = []  # (role, what the turn's first line says)
    ends: list[int] = []
    paired = paired_speakers(text)
    for speaker in SPEAKER.finditer(text):
        name = (speaker.group("bracketed") or speaker.group("named") or speaker.group("alone")).strip().lower()
        role = ROLES.get(name) or (PAIRED_ROLES[name][1] if name in paired and speaker.group("named") else None)
        if role is not None:  # another word before a colon ("Note: ...") is part of the turn
            if ends:
                turns[-1] = (turns[-1][0], turns[-1][1] + text[ends[-1]:speaker.start()])
            turns.append((role, "" if speaker.group("alone") else speaker.group("said")))
            ends.append(speaker.end())
    if ends:
        turns[-1] = (turns[-1][0], _last_turn(turns[-1][1] + text[ends[-1]:], instruction))
    messages: list[Message] = []
    pending: list[str] = []
    for role, said in turns:
        said = TURN_END.sub("", YAML_CONTENT.sub("", said.strip(), count=1))
        if not said:
            continue
        if role == "result":
            error = said.startswith("Error")
            content = {"type": "tool_result", "tool_use_id": pending.pop() if pending else "unanswered",
                       "content": said, **({"is_error": True} if error else {})}
            messages.append({"role": "user", "content": [content]})
            continue
        calls = _file_calls(said, len(messages))
        if role == "user":
            messages.append({"role": "user", "content": said})
            continue
        content = ([] if role == "call" else [{"type": "text", "text": said}]) + calls
        pending = [c["id"] for c in calls] or pending
        if content:
            messages.append({"role": "assistant", "content": content})
    return messages


def _file_calls(said: str, turn: int) -> list[dict[str, Any]]:
    """The file tool calls a transcript turn writes: ``name({...})`` up to the first ``}``, or
    ``name(path='...')``. Once a closing mark is missing, no later call can have it either."""
    calls, missing, position, n = [], set(), 0, 0
    while (match := FILE_CALL.search(said, position)) is not None:
        name, brace, quote = match.groups()
        close = match.end() - (brace is not None) if (brace or quote) not in missing else -1
        end = said.find("}" if brace else quote, close + 1) if close >= 0 else -1
        if end < 0:
            missing.add(brace or quote)
            position = match.end()
            continue
        written = said[match.end() - 1:end + 1] if brace else None
        if (call := _call(name, written, None if brace else said[match.end():end], turn, n)) is not None:
            calls.append(call)
        position, n = end + 1, n + 1
    return calls


def _call(name: str, written: str | None, path: str | None, turn: int, n: int) -> dict[str, Any] | None:
    """A file tool call written in a transcript, with an id made from where it stands."""
    if written is not None:
        try:
            tool_input = _python_literal(written)
        except UNPARSED:
            return None
        if not isinstance(tool_input, dict):
            return None
    else:
        tool_input = {"path": path}
    return {"type": "tool_use", "id": f"transcript_{turn}_{n}", "name": name, "input": tool_input}
