"""How the fake model reads a request: what its instructions ask, and which tools it may use (chapter 00).

A model acts on what it is told, by meaning, not on one exact sentence. The
fake reads a request the same way, with the rules below; each is a set of
regular expressions, compiled once, and each has limits written next to it.

**The instructions.** The latest instruction is the text of the last user
message (its text blocks, not its tool results) without the material it
quotes: a block delimited by a tag pair such as
``<conversation>...</conversation>``, and every line that is a conversation in
another form (a line holding a message dump, ``"role":`` or ``'role':``, or an
SDK repr such as ``TextBlock(``; a transcript line that opens with a speaker,
``User:``, ``Human:``, ``Assistant:``, ``Tool result:``, ``[user]``,
``**User:**``; a line of a summary the fake wrote, ``- User: ...``,
``- Finished: ...``; so an instruction written on the same line as a dump
is lost with it). The system prompt is read the same way. A sentence that
describes a capability ("You can compact your context with the compact
tool.": it says "you can/may" or names a "tool") is a description, not an
instruction, in either place.

**A summary request** is one whose instruction asks to summarise the
conversation. A *summary word* (summarise/summarize/summary, sum up, recap,
condense, compress, compact, digest, distil, synopsis, rundown, overview,
gist, TL;DR, catch me up, brief me, hand off/handoff, hand over/handover;
not a past form: "[Conversation compressed]" states, it does not ask) is
read with what follows it in its clause, after fillers such as "me", "up",
"a", "of", "note", "summary" ("a handoff note for ...", "a recap of ..."),
or with the words inside a split verb ("hand this session off", "sum it all
up": "sum"/"hand", one to four words, then "up", "off" or "over"):

1. a conversation noun (conversation, transcript, chat, dialogue, discussion,
   session, exchange, history, messages, thread, context, with a determiner
   and adjectives such as "whole", "above"), followed by the end of the
   clause, a function word ("so far", "in five lines", "for the next model",
   "about a.py": a conversation about a file is a conversation) or another
   such noun, but not by "of", a content word or the rest of a name ("the
   history of a.py", "the conversation feature", "conversation.py", "the
   chat.py module", "chat-log.md", "history/"): a summary;
2. else a file or code ("a.py", "agents/", "each file", "the module", "the
   code", "the README", "the repo", "the project"): a task;
3. else the work done ("what we did", "what's been done", "what happened",
   "where we are", "everything above", "so far", "our progress", "the
   work"): a summary;
4. else a pronoun ("summarise it"): a summary only when the instruction also
   speaks of the conversation or the work done ("What have we done so far?
   Summarise it.");
5. else nothing ("Summarise.", "TL;DR?", "a handover for whoever picks this
   up", "in five lines"): a summary;
6. else ("the project's plan", "what each does"): not a summary.

The request is a summary request when one summary word of the latest
instruction reads as a summary, or when the latest instruction is not one of
the agent's requests (below), the last user message has text (not only tool
results: mid-task, the model goes on working), and the system prompt's
instruction reads as one ("You summarise conversations." with user "Go.").
Tools offered or not, it makes no difference. Each instruction's reading is
cached by its text, since the fake reads every request.
**A negation** right before a summary word, "not", "never", "no", "don't",
"doesn't", "didn't", "won't", "can't", "cannot", "shouldn't" or "mustn't"
(then at most one of "yet", "ever", "again", "even", "to", "please"), makes
that word ask for nothing: "Do not summarise yet.", "Don't summarise the
conversation." and "No recap." are not summary requests. That is all
a negation does: one anywhere else is not read ("Don't stop: summarise the
conversation." is a summary request), nor is a refusal in other words
("Skip the summary." is one too).
Limits: it does not understand a summary asked without one of those words
("Write notes so someone else can continue"), or a pronoun whose antecedent
is in an earlier message; a clause ends at ``.`` followed by a space, ``!``, ``?``, ``;`` or a
line end.

**The agent's requests** (``REQUEST_KINDS``; the fake agent's handlers take
the named arguments). Case does not matter; a path is ``[\\w./-]+\\.py``; a
folder is written ``name/`` (not ``name/file.py``) or ``the name folder`` or
ends the clause after "in", "under", "inside", "within", "across", "of",
"for" or "from" ("in agents"; for ``RECALL_RULE`` after "about", "for",
"regarding", "on" or "concerning"), and is never a word such as "detail",
"total", "it" or "memory"; a value
is quoted with ``"``, ``'`` or backticks, or bare when it holds a digit, ``-``
or ``_`` ("to v2"):

- ``READ_ALL`` (folder): read / summarise / describe / explain / go through /
  tell me ... every, each or all ... file(s), module(s) or .py ... in a folder.
- ``EDIT`` (path, value): change / set / update / bump / make / switch ... the
  VERSION_TAG (also "version tag", "version-tag") ... to / = a value, on one
  line and each gap at most 120 characters (so a long text is read in linear
  time), with a path anywhere in the request.
- ``RECALL_TAG`` (path): a VERSION_TAG question about a path "without opening /
  reading / looking at / checking" a file.
- ``ASK_TAG`` (path): the VERSION_TAG and a path with "what", "tell", "show",
  "give", "which", "report", "print", "know", "check" or a question mark.
- ``COUNT`` (folder): count / how many / number of / total ... lines, not TODOs.
- ``SEARCH`` (folder): search / find / grep / look / list / show / scan /
  count / any / where / how many ... TODO(s); here the folder may also be
  the word after "search", "grep", "scan" or "check" and before "for".
- ``FIRST_CHANGE``: which / what ... file ... first ... change / edit / modify
  / update.
- ``RECALL_RULE`` (folder): what / remind / which ... tell / told / say /
  said / instruct / rule / ask ... about / for / regarding / on a folder.
- ``INSTRUCTION`` (rule): "from now on", "going forward", "from here on",
  "henceforth", "in (the) future", then the rule.
- ``SAVE``: save / store / write / record / put ... to / in / into memory, on one
  line, at most 200 characters apart.

They are tried in that order and the first that matches is the request.
Limits: one request per message (the first kind that matches wins); a
folder name has no dots; an unquoted value must hold a digit, ``-`` or
``_``; a standing rule without one of those openers ("Never edit tools/.")
is not understood as a rule, nor is an edit said through a pronoun ("change
it to v2"). Anything else gets the agent's honest "I do not know how to do
that in this workspace."

The tools a request offers are the names in ``tools``; ``tool_choice``
``{"type": "none"}`` offers none. A summary is written from what the request
holds: the system prompt, the history before the last message (as JSON) and
the last message's text, transcript included.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from ..core.messages import blocks

QUOTED = re.compile(r"<([A-Za-z][\w-]*)>.*</\1>", re.DOTALL)  # a tagged block, to its last closing tag
MATERIAL_LINE = re.compile(  # a line of a conversation in another form: a dump, a repr, a speaker's turn
    r"""^.*(?:["']role["']\s*:|\b(?:Text|ToolUse|ToolResult)Block\().*$"""
    r"|^[ \t>#*_]*\[?(?:user|human|assistant|ai|claude|model|tool(?:[ _](?:result|call|use))?)\]?"
    r"(?:\*\*|__)?\s*[:\]](?:\*\*|__)?.*$"
    r"|^- (?:User|In progress|Finished|Decision|Error|read|edited): .*$",
    re.IGNORECASE | re.MULTILINE)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
CAPABILITY = re.compile(r"\byou\s+(?:can|could|may|might|are\s+able\s+to)\b|\btools?\b", re.IGNORECASE)

# --- the summary rule ------------------------------------------------------------------

_FLAGS = re.IGNORECASE
SUMMARY_WORD = re.compile(
    r"\b(?:summari[sz](?:e|ing)|summary|summaries|(?:sum|hand)\s+(?P<inner>(?:[\w'’]+\s+){1,4}?)(?:up|off|over)\b"
    r"|sum\s+up"
    r"|recap(?:itulate)?|condense|compress|compact|digest|distil+|synopsis|run-?down|overview|gist"
    r"|tl;?\s?dr|catch\s+(?:me|us)\s+up|brief\s+(?:me|us)|hand(?:ing)?[\s-]?off|hand(?:ing)?[\s-]?over)\b",
    _FLAGS)
CLAUSE_END = re.compile(r"[!?;\n]|\.(?=\s|$)")
_FILLER = (r"me|us|up|please|briefly|quickly|concisely|again|now|note|notes|summary|summaries|doc|document"
           r"|message|report|of|on|about|a|an|short|brief|quick|detailed|full|complete|concise|little|small")
FILLERS = re.compile(rf"^(?:[\s,:—–-]|(?:{_FILLER})(?![\w./-]))*", _FLAGS)
_DETERMINER = r"(?:(?:the|this|that|these|those|our|your|my|all(?:\s+of)?(?:\s+the)?|whole)\s+)?"
_ADJECTIVE = (r"(?:(?:whole|entire|full|complete|above|below|preceding|previous|following|current|recent|"
              r"last|earlier|long|chat|conversation)\s+){0,3}")
_CONVERSATION_NOUN = (r"(?:conversation|transcript|chat|dialogue|dialog|discussion|session|exchange|history"
                      r"|messages?|thread|context|log)s?")
_FOLLOWER = (r"(?=\s*(?:$|[^\w\s]|(?:so|above|below|in|into|for|to|up|until|till|we|i|you|that|which|with|as"
             r"|and|from|here|now|since|thus|is|was|has|have|had|between|like|while|before|after|without|but"
             r"|or|please|then|including|there|at|this|about|regarding|concerning|on"
             rf"|{_CONVERSATION_NOUN})\b))")
_NOT_A_FILE = r"(?![./\\-]\w|/)"  # "conversation.py", "chat-log.md", "history/": the name of a file or a folder
CONVERSATION = re.compile(rf"{_DETERMINER}{_ADJECTIVE}{_CONVERSATION_NOUN}\b{_NOT_A_FILE}{_FOLLOWER}", _FLAGS)
FILE_OR_CODE = re.compile(
    r"[\w-]+\.\w+\b|\b\w[\w-]*/|\b(?:files?|modules?|code|codebase|functions?|class(?:es)?|readme|repo"
    r"|repository|project|folders?|director(?:y|ies)|packages?|scripts?|docstrings?)\b", _FLAGS)
WORK_DONE = re.compile(
    r"(?:what(?:'s|’s|\s+has|\s+have|\s+had)?\s+(?:(?:we|you|i)(?:'|’|\b)|been\b|happened\b|was\s+(?:done|said|"
    r"decided)\b|got\s+done\b|is\s+done\b)|where\s+(?:we|you|i|things)\b|how\s+far\b|everything\b|"
    r"(?:the\s+)?(?:above|below)\b|so\s+far\b|up\s+(?:to|till|until)\s+now\b|(?:till|until)\s+now\b|to\s+date\b"
    r"|(?:(?:the|our|your|my)\s+)?(?:work|progress|steps\s+taken|changes\s+made)\b)", _FLAGS)
PRONOUN = re.compile(r"(?:it|this|that|them|these|those|things)\b", _FLAGS)
NEGATED = re.compile(  # a negation right before a summary word (at most NEGATION_REACH characters back)
    r"\b(?:not|never|no|don['’]?t|doesn['’]?t|didn['’]?t|won['’]?t|can['’]?t|cannot|shouldn['’]?t|mustn['’]?t)"
    r"\s+(?:(?:yet|ever|again|even|to|please)\s+)?$", _FLAGS)
NEGATION_REACH = 40
NOTHING = re.compile(r"(?:$|for\b|in\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a)\b"
                     r"|so\s+that\b|and\b|then\b|as\b|with(?:out)?\b|[^\w\s])", _FLAGS)


def _as_summary(head: str, whole: str) -> bool:
    """Rules 1-6 of the module docstring, for what follows one summary word."""
    head = head[FILLERS.match(head).end():]
    if CONVERSATION.match(head):
        return True
    if FILE_OR_CODE.search(head):
        return False
    if WORK_DONE.match(head):
        return True
    if PRONOUN.match(head):
        return bool(CONVERSATION.search(whole) or WORK_DONE.search(whole))
    return bool(NOTHING.match(head))


@lru_cache(maxsize=2_048)
def asks_for_summary(instruction: str) -> bool:
    """Whether an instruction's text (already without quoted material) asks for a summary of the
    conversation: the module's rule, over its sentences that are not capability descriptions."""
    said = " ".join(s for s in SENTENCE.split(instruction) if s and not CAPABILITY.search(s))
    for word in SUMMARY_WORD.finditer(said):
        if NEGATED.search(said, max(0, word.start() - NEGATION_REACH), word.start()):
            continue
        rest = said[word.end():]
        end = CLAUSE_END.search(rest)
        if _as_summary(word.group("inner") or (rest[:end.start()] if end else rest), said):
            return True
    return False


def instruction_text(said: str) -> str:
    """What an instruction says, without the tagged blocks and the conversation lines it quotes."""
    return MATERIAL_LINE.sub("", QUOTED.sub("", said)).strip()


def latest_instruction(body: dict[str, Any]) -> str:
    """The text of the last user message, without what it quotes. Checked request only."""
    last = body["messages"][-1]
    if last["role"] != "user":
        return ""
    return instruction_text("\n".join(b["text"] for b in blocks(last) if b.get("type") == "text"))


def system_text(body: dict[str, Any]) -> str:
    """The system prompt's text (a string, or its text blocks joined). Checked request only."""
    system = body.get("system") or ""
    return system if isinstance(system, str) else "\n".join(b["text"] for b in system)


def is_summary_request(body: dict[str, Any]) -> bool:
    """Whether the request asks for a summary of the conversation (the module's rule)."""
    latest = latest_instruction(body)
    if asks_for_summary(latest):
        return True
    last, system = body["messages"][-1], system_text(body)
    says = last["role"] == "user" and any(b.get("type") == "text" for b in blocks(last))
    return says and bool(system) and request_kind(latest) is None and asks_for_summary(instruction_text(system))


def summary_material(body: dict[str, Any]) -> str:
    """What a summary is written from: the system prompt, the earlier messages as JSON, then the
    last message's text."""
    *earlier, last = body["messages"]
    said = "\n".join(b["text"] for b in blocks(last) if b.get("type") == "text")
    parts = [system_text(body), json.dumps(earlier, ensure_ascii=False) if earlier else "", said]
    return "\n\n".join(part for part in parts if part)


def offered_tools(body: dict[str, Any]) -> frozenset[str]:
    """The names of the tools the model may call in this request."""
    if (body.get("tool_choice") or {}).get("type") == "none":
        return frozenset()
    return frozenset(tool["name"] for tool in body.get("tools", []))


# --- the agent's request kinds ---------------------------------------------------------------
# A named group ``folder2`` fills the handler's argument ``folder``: alternatives cannot share a name.

_PATH = r"(?P<path>[\w.-]+(?:/[\w.-]+)*\.py)\b"
_TAG = r"[`'\"]?\b(?:version[\s_-]?tag)\b[`'\"]?"
_NOT_FOLDER = (r"(?!(?:detail|total|order|full|short|brief|general|it|them|this|that|there|here|each|every|all"
               r"|the|a|an|memory|mind|one|lines?|files?|python|code)\b)")


def _folder(prepositions: str = r"in|under|inside|within|across|of|for|from") -> str:
    """A folder: ``name/`` (not ``name/file.ext``), ``the name folder``, or ``<preposition> name`` ending
    the clause."""
    return (r"(?:[`'\"]?\b(?P<folder1>\w[\w-]*(?:/\w[\w-]*)*)/(?![\w.-]*\.\w)"
            r"|\b(?P<folder2>\w[\w-]*)\s+(?:folder|directory|dir)\b"
            rf"|\b(?:{prepositions})\s+(?:the\s+)?{_NOT_FOLDER}[`'\"]?(?P<folder3>\w[\w-]*)[`'\"]?"
            r"(?=\s*(?:[.,;:!?]|$|(?:and|then|to|for|please|now)\b)))")


_VALUE = (r"""(?:"(?P<value1>[^"]+)"|'(?P<value2>[^']+)'|`(?P<value3>[^`]+)`"""
          r"|(?P<value4>(?=[\w.-]*[\d_-])[\w.-]*\w))")
READ_ALL = re.compile(
    rf"^(?=.*?\b(?:read|summari[sz]e|describe|explain|go\s+through|look\s+(?:at|through)|tell\s+me|what\s+does"
    rf"|summary)\b)(?=.*?\b(?:every|each|all)\b)(?=.*?(?:\bfiles?\b|\bmodules?\b|\.py\b))(?=.*?{_folder()})",
    re.IGNORECASE | re.DOTALL)
EDIT = re.compile(  # each gap bounded and on one line, so a long text costs linear time, not cubic
    rf"^(?=.*?{_PATH})(?=.*?\b(?:change|set|update|bump|make|switch|modify)\b[^\n]{{0,120}}?{_TAG}"
    rf"[^\n]{{0,120}}?(?:\bto\b|=)\s*{_VALUE})",
    re.IGNORECASE | re.DOTALL)
RECALL_TAG = re.compile(
    rf"^(?=.*?{_PATH})(?=.*?{_TAG})(?=.*?\bwithout\s+(?:opening|reading|looking\s+at|checking)\b)",
    re.IGNORECASE | re.DOTALL)
ASK_TAG = re.compile(
    rf"^(?=.*?{_PATH})(?=.*?{_TAG})"
    r"(?=.*?(?:\b(?:what|tell|show|give|which|report|print|know|check)\b|\?))",
    re.IGNORECASE | re.DOTALL)
COUNT = re.compile(
    rf"^(?!.*\btodos?\b)(?=.*?\b(?:count|how\s+many|number\s+of|total|tally)\b)(?=.*?\blines?\b)(?=.*?{_folder()})",
    re.IGNORECASE | re.DOTALL)
SEARCH = re.compile(
    rf"^(?=.*?\btodos?\b)(?=.*?\b(?:search|find|grep|look|list|show|scan|count|any|where|how\s+many)\b)"
    rf"(?=.*?(?:{_folder()}|\b(?:search|grep|scan|check)\s+(?:the\s+)?(?P<folder4>\w[\w-]*)\s+for\b))",
    re.IGNORECASE | re.DOTALL)
FIRST_CHANGE = re.compile(
    r"^(?=.*?\b(?:which|what)\b)(?=.*?\bfiles?\b)(?=.*?\bfirst\b)(?=.*?\b(?:change|edit|modify|update)\b)",
    re.IGNORECASE | re.DOTALL)
RECALL_RULE = re.compile(
    rf"^(?=.*?\b(?:what|remind|which)\b)(?=.*?\b(?:tell|told|say|said|instruct\w*|rules?|ask(?:ed)?)\b)"
    rf"(?=.*?{_folder('about|for|regarding|on|concerning')})", re.IGNORECASE | re.DOTALL)
INSTRUCTION = re.compile(
    r"\b(?:from\s+now\s+on|going\s+forward|from\s+here\s+on(?:\s+out)?|henceforth|in\s+(?:the\s+)?future)"
    r"\s*[,:]?\s*(?P<rule>.+)", re.IGNORECASE)
NEVER_EDIT = re.compile(
    r"\b(?:never|do\s+not|don't|don’t)\s+(?:ever\s+)?(?:edit|change|modify|touch|write\s+to)\s+"
    r"(?:anything|any\s+files?|files?)?\s*(?:under|in|inside|within)?\s*(?:the\s+)?"
    r"(\w[\w-]*(?:/\w[\w-]*)*)(?:/|\s+(?:folder|directory)\b)", re.IGNORECASE)
SAVE = re.compile(r"\b(?:save|store|write|record|put)\b[^\n]{0,200}?\b(?:to|in|into)\s+(?:your\s+|the\s+)?memory\b",
                  re.IGNORECASE)
REQUEST_KINDS = (READ_ALL, EDIT, RECALL_TAG, ASK_TAG, COUNT, SEARCH, FIRST_CHANGE, RECALL_RULE, INSTRUCTION, SAVE)


def request_arguments(match: re.Match[str]) -> dict[str, str]:
    """A match's named arguments: ``folder1``..``folderN`` fill ``folder``, the first that matched."""
    found: dict[str, str] = {}
    for name, value in match.groupdict().items():
        if value is not None:
            found.setdefault(name.rstrip("0123456789"), value)
    return found


@lru_cache(maxsize=4_096)
def request_kind(said: str) -> tuple[re.Pattern[str], dict[str, str]] | None:
    """The first of ``REQUEST_KINDS`` a request's text matches, with its arguments; None for none."""
    for pattern in REQUEST_KINDS:
        if (match := pattern.search(said)):
            return pattern, request_arguments(match)
    return None
