"""Layer 1, micro-compaction: old tool results become short placeholders (chapter 02).

Four steps, as in the reference agent: find every tool_result block, learn
which tool produced each one, choose the ones to clear (all but the newest
``keep_recent``; string content longer than ``min_chars``; not from a
preserved tool), and overwrite their content in place. The tool_use blocks
stay, so the agent still knows what it did.

One guard the reference lacks: a result the model has not read yet (one after
the last assistant message: the results the next call will show it for the
first time) is never cleared, whatever ``keep_recent`` says. The reference
counts results, not turns, and runs before the call that reads the newest
ones, so a turn of six parallel calls with ``keep_recent=3`` would clear three
results no model has seen, and ``keep_recent=0`` would clear every result
before it is read. Older results keep the reference's meaning: all but the
newest ``keep_recent`` (counted over the whole history, the unread included)
may be cleared. Chapter 02 shows the failure and builds the guard.

The pass costs what the pass costs: it counts no tokens. A caller that
wants to know what it saved measures the history before and after, or asks
the report how many characters of ``str(messages)`` went away.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .config import check_count
from .messages import Block, Message, _encodable, _flat_ascii, check_list, check_message, check_shape


class Cleared(NamedTuple):
    """One tool result micro-compaction replaced: where it was, what it held, what holds it now."""
    message_index: int
    block_index: int
    tool_use_id: str
    tool_name: str
    old_content: str
    new_content: str

    @property
    def chars_before(self) -> int:
        return len(self.old_content)

    @property
    def repr_chars_saved(self) -> int:
        """How much shorter ``str(messages)`` became: what ``estimate_tokens`` sees, times four."""
        return len(repr(self.old_content)) - len(repr(self.new_content))


@dataclass
class MicroReport:
    cleared: list[Cleared] = field(default_factory=list)

    @property
    def fired(self) -> bool:
        return bool(self.cleared)

    @property
    def repr_chars_saved(self) -> int:
        """Characters of ``str(messages)`` this pass removed (exact; estimate_tokens is that // 4)."""
        return sum(c.repr_chars_saved for c in self.cleared)


def placeholder(tool_name: str) -> str:
    """What a cleared result says instead of its output."""
    return f"[Previous: used {tool_name}]"


PLACEHOLDER = placeholder("{tool_name}")  # the template, for printing


def is_placeholder(content: object) -> bool:
    """Whether a tool_result's content is a placeholder this layer (or chapter 09's variant) wrote."""
    return isinstance(content, str) and content.startswith("[Previous: used ") and content.endswith("]")


def first_kept(messages: list[Message], keep_recent: int) -> tuple[int, int] | None:
    """(message index, block index) of the oldest of the newest ``keep_recent`` tool results:
    only results before it may be cleared. None if there are fewer results than that.
    InvalidHistory if ``messages`` is malformed."""
    check_shape(messages)
    return _first_kept(messages, keep_recent)


def unread_from(messages: list[Message]) -> int:
    """The index of the first message after the last assistant message: the results from there on have not
    been read by the model yet (0 for a history with no assistant message). Checks the messages it reads."""
    i = len(messages) - 1
    while i >= 0:
        check_message(messages[i], i)
        if messages[i]["role"] == "assistant":
            break
        i -= 1
    return i + 1


def _first_kept(messages: list[Message], keep_recent: int) -> tuple[int, int] | None:
    """``first_kept`` on a list, checking (``check_message``) each message it reads, newest first."""
    if keep_recent == 0:
        return len(messages), 0
    seen = 0
    for i in range(len(messages) - 1, -1, -1):
        check_message(messages[i], i)
        content = messages[i]["content"]
        if messages[i]["role"] == "user" and isinstance(content, list):
            for j in range(len(content) - 1, -1, -1):
                if content[j]["type"] == "tool_result":
                    seen += 1
                    if seen == keep_recent:
                        return i, j
    return None


def micro_compact(
    messages: list[Message],
    keep_recent: int = 3,
    preserve_tools: frozenset[str] = frozenset({"read_file"}),
    min_chars: int = 100,
    *,
    spare_unread: bool = True,
) -> MicroReport:
    """Replace old, long, non-preserved tool_result contents by placeholders, in place.

    ``spare_unread=False`` drops the guard and counts results only, as the s06 agent does (chapter 02's
    failure, chapter 09's control): the newest ``keep_recent`` results are kept whether read or not.

    The four steps of chapter 02 in one pass, oldest first, over what comes before the newest
    ``keep_recent`` results and before the results the model has not read yet (``unread_from``): a
    tool_use names its tool (step 2) before its result comes up
    (step 1), which is then chosen (step 3) and replaced (step 4). The pass also checks every message it
    reads, as it reads it, so a malformed history raises InvalidHistory; the results it had replaced by then
    are put back first, so the history is left exactly as it was.

    The check costs as much as the compaction, so the pass does not read a block twice: a block of
    the usual shape (the fast path of ``check_message``: a plain text, a tool_use with a flat ASCII
    input, a tool_result with string content) is recognised where it is read, and a message with
    anything else goes to ``check_message``, which raises or finds it sound.
    ``tests/test_micro.py`` checks on generated hostile histories that the pass refuses exactly what
    ``check_message`` refuses.
    """
    check_count("keep_recent", keep_recent)
    check_count("min_chars", min_chars)
    check_list(messages)
    report = MicroReport()
    stop = _first_kept(messages, keep_recent)  # checks the messages from the end down to stop
    if stop is None:
        return report
    stop_message, stop_block = stop
    unread = unread_from(messages) if spare_unread else len(messages) + 1  # checks what follows the last reply
    if unread <= stop_message:  # the unread results come first: the pass ends before their message
        stop_message, stop_block = unread, 0
    names: dict[str, str] = {}
    placeholders: dict[str, str] = {}
    cleared = report.cleared
    # This loop is benchmarked against the reference (benchmarks/micro_scaling.py): builtins are read as
    # locals, fields by subscript inside try (a KeyError means an unusual shape, checked in full), the two usual
    # messages (a note and one call; one result) are read without an inner loop, a result is replaced as soon as
    # it is chosen (and put back if the pass then finds the history malformed), and a Cleared record is built as
    # the tuple it is, without NamedTuple's Python-level __new__.
    dict_, list_, str_, type_, len_, new_cleared = dict, list, str, type, len, tuple.__new__
    try:
        for i, message in enumerate(messages[: stop_message + 1]):
            try:
                if type_(message) is not dict_ or len_(message) != 2:
                    raise KeyError
                content, role = message["content"], message["role"]
            except KeyError:
                check_message(message, i)  # raises, or a dict of another type that is sound
                content, role = message["content"], message["role"]
            if type_(content) is not list_ or not content:
                check_message(message, i)  # raises, or a string content: nothing to clear in it
                continue
            if role == "assistant":                                        # step 2
                if len_(content) == 2:  # a note and one call: the usual shape, without the loop
                    note, call = content
                    try:
                        if (type_(note) is dict_ and len_(note) == 2 and type_(call) is dict_ and len_(call) == 4
                                and note["type"] == "text" and call["type"] == "tool_use"):
                            value, tool_id, name, tool_input = note["text"], call["id"], call["name"], call["input"]
                            if (type_(value) is str_ and value and not value.isspace()
                                    and (value.isascii() or _encodable(value)) and type_(tool_id) is str_ and tool_id
                                    and tool_id.isascii() and type_(name) is str_ and name and name.isascii()
                                    and type_(tool_input) is dict_):
                                for key, value in tool_input.items():
                                    if (type_(key) is not str_ or type_(value) is not str_ or not key.isascii()
                                            or not value.isascii()):
                                        break
                                else:
                                    names[tool_id] = name
                                    continue
                    except KeyError:
                        pass
                for block in content:  # the usual shapes, read as check_message's fast path reads them
                    if type_(block) is not dict_:
                        break
                    size = len_(block)
                    if size == 4:
                        try:
                            kind, tool_id, name, tool_input = block["type"], block["id"], block["name"], block["input"]
                        except KeyError:
                            break
                        if (kind != "tool_use" or type_(tool_id) is not str_ or not tool_id or not tool_id.isascii()
                                or type_(name) is not str_ or not name or not name.isascii()
                                or type_(tool_input) is not dict_):
                            break
                        for key, value in tool_input.items():
                            if type_(key) is not str_ or type_(value) is not str_ or not key.isascii() or not value.isascii():
                                break
                        else:
                            names[tool_id] = name
                            continue
                        break
                    if size != 2:
                        break
                    try:
                        kind, value = block["type"], block["text"]
                    except KeyError:
                        break
                    if (kind != "text" or type_(value) is not str_ or not value or value.isspace()
                            or not (value.isascii() or _encodable(value))):
                        break
                else:
                    continue
                check_message(message, i)  # raises, or the message is sound in a less usual shape
                names.update((b["id"], b["name"]) for b in content if b["type"] == "tool_use")
                continue
            if role != "user":
                check_message(message, i)  # raises
            if len_(content) == 1:  # one result: the usual shape, without the loop
                block = content[0]
                try:
                    if type_(block) is not dict_ or len_(block) != 3 or block["type"] != "tool_result":
                        raise KeyError
                    tool_id, old = block["tool_use_id"], block["content"]
                    if not (type_(tool_id) is str_ and tool_id and tool_id.isascii() and type_(old) is str_
                            and (old.isascii() or _encodable(old))):
                        raise KeyError
                except KeyError:
                    pass
                else:
                    if len_(old) <= min_chars or i == stop_message:  # step 3, and the stop
                        continue
                    name = names.get(tool_id, "unknown")
                    if name in preserve_tools:
                        continue
                    new = placeholders.get(name) or placeholders.setdefault(name, placeholder(name))
                    if old == new:  # cleared already
                        continue
                    block["content"] = new                                 # step 4, undone if the pass fails
                    cleared.append(new_cleared(Cleared, (i, 0, tool_id, name, old, new)))
                    continue
            j = -1
            for block in content:
                j += 1
                try:
                    if type_(block) is not dict_ or len_(block) != 3 or block["type"] != "tool_result":
                        raise KeyError
                    tool_id, old = block["tool_use_id"], block["content"]
                    if not (type_(tool_id) is str_ and tool_id and tool_id.isascii() and type_(old) is str_
                            and (old.isascii() or _encodable(old))):
                        raise KeyError
                except KeyError:
                    check_message(message, i)
                    if block["type"] != "tool_result":                     # step 1
                        continue
                    tool_id, old = block["tool_use_id"], block.get("content", "")
                    if type_(old) is not str_:  # list content is never cleared
                        continue
                if len_(old) <= min_chars:                                 # step 3
                    continue
                if i == stop_message and j >= stop_block:                  # stop: the newest keep_recent
                    break
                name = names.get(tool_id, "unknown")
                if name in preserve_tools:
                    continue
                new = placeholders.get(name) or placeholders.setdefault(name, placeholder(name))
                if old == new:  # cleared already
                    continue
                block["content"] = new                                     # step 4, undone if the pass fails
                cleared.append(new_cleared(Cleared, (i, j, tool_id, name, old, new)))
    except BaseException:  # a malformed history (or an interrupt): the history exactly as it was
        for one in cleared:
            messages[one[0]]["content"][one[1]]["content"] = one[4]
        raise
    return report


def s06_micro_compact(messages: list[Message], keep_recent: int = 3,
                      preserve_tools: frozenset[str] = frozenset({"read_file"}), min_chars: int = 100) -> MicroReport:
    """``micro_compact`` without the guard: the newest ``keep_recent`` results are kept whether the model has read
    them or not, as the s06 agent counts (chapter 02's failure, chapter 09's control)."""
    return micro_compact(messages, keep_recent, preserve_tools, min_chars, spare_unread=False)
