"""How the fake model reads a request: what its instructions ask (chapter 00).

A model acts on what it is told, by meaning, not on one exact sentence. The
fake reads a request the same way, with the rules below; each is a set of
regular expressions, compiled once, and each has limits written next to it.
Every rule reads a text in time linear in its length: no pattern nests
quantifiers or looks ahead over ``.*``; a request kind is a set of separate
searches (``RequestKind``), a path or a folder is found from one scan of its
run of characters, and the summary rule reads each clause once.

**The instructions.** The latest instruction is the text of the last user
message (its text blocks, not its tool results) without the material it
quotes: a block delimited by a tag pair such as
``<conversation>...</conversation>`` (but a tag whose name holds an
``INSTRUCTION_TAG`` word, ``<instructions>``, ``<role>``, ``<primary_objective>``,
wraps instructions: its text is read, as LangChain's summarization prompt
writes them), and every line that is a conversation in
another form (a line holding a message dump, ``"role":`` or ``'role':``, an
SDK repr such as ``TextBlock(``, or LangChain's ``HumanMessage(``; a transcript line that opens with a speaker,
``User:``, ``Human:``, ``Assistant:``, ``Tool result:``, ``[user]``,
``**User:**``, ``User >``, ``[0] user:``, or holds a speaker's name alone, ``## USER``, with the lines under it
up to a blank line; ``Q:`` beside ``A:``, ``me:`` beside ``you:``; a line of a
summary the fake wrote, ``- User: ...``, ``- Finished: ...``, ``- Found: ...``, ``Note: a.py — ...``; so an
instruction written on the same line as a dump is lost with it). The system prompt is read the same way. A sentence that
describes a capability ("You can compact your context with the compact
tool.": it says "you can/may" or names a "tool") is a description, not an
instruction, in either place.

**A summary request** is one whose instruction asks to summarise the
conversation. A *summary word* (summarise/summarize/summary, sum up, recap,
condense, compress, compact, digest, distil, synopsis, rundown, overview,
gist, TL;DR, catch me up, brief me, hand off/handoff, hand over/handover,
boil down, squash, shorten, abridge, shrink, take stock; as nouns also "the short version", "the key/main points", "the
highlights", "the takeaways"; a role, "summarization assistant" or "summarizer", in a clause
that says who "you are" or what to act "as"; not a past form: "[Conversation compressed]" states, it does not ask; a
third-person form, "summarizes", only in a clause that says what someone is
for: "an assistant that summarizes conversations") counts when it is *asked
for*, not *mentioned*: a verb is asked for; a noun (summary, synopsis,
rundown, overview, gist, handoff, handover; recap, digest or compact after a
modifier) is asked for when a request verb comes before it in its clause
("write a summary", "give me the gist") or it opens its clause without a
definite determiner ("TL;DR of this session"), and mentioned when it labels
what follows ("Summary:"), is the subject of a statement ("The summary below
covers the earlier part", as a continuation message says) or the object of
another verb ("Here is a summary", "another model produced a handoff
summary"): a message that hands a summary over and asks to go on is a
request to continue, not to summarise again. A summary word asked for is
read with what follows it in its clause, after fillers such as "me", "up",
"a", "of", "note", "summary" ("a handoff note for ...", "a recap of ..."),
or with the words inside a split verb ("hand this session off", "sum it all
up", "boil all of this down": "sum"/"hand"/"boil", one to four words, then "up", "off", "over" or "down"):

1. a conversation noun (conversation, transcript, chat, dialogue, discussion,
   session, exchange, history, messages, thread, context, log, back-and-forth,
   interaction, with a determiner
   and adjectives such as "whole", "above"), followed by the end of the
   clause, a function word ("so far", "in five lines", "for the next model",
   "about a.py": a conversation about a file is a conversation) or another
   such noun, but not by "of", a content word or the rest of a name ("the
   history of a.py", "the conversation feature", "conversation.py", "the
   chat.py module", "chat-log.md", "history/"): a summary;
2. else a file or code within ``OBJECT_REACH`` characters ("a.py", "agents/",
   "each file", "the module", "the code", "the README", "the repo", "the
   project"): a task (one named further on is part of the form asked for:
   "everything we have done so far as JSON with the keys goal, files, next");
3. else the work done ("what we did", "what's been done", "what happened",
   "where we are", "everything above", "so far", "our progress", "the
   work"): a summary;
4. else a pronoun ("summarise it"): a summary when the instruction also
   speaks of the conversation or the work done ("What have we done so far?
   Summarise it."), or when the word opens the instruction (at most four
   words before it), the instruction names no file or code, and the request
   holds a conversation for the pronoun to mean (earlier messages, or a
   conversation quoted in the system prompt or the message: "Summarize it
   for continuity.");
5. else nothing ("Summarise.", "TL;DR?", "a handover for whoever picks this
   up", "in five lines", "so that another model can go on", "before I log
   off"): a summary;
6. else ("the project's plan", "what each does"): not a summary.

A pronoun that is the whole object ("Distill this into the key facts, the
files and the open task": what follows it says into what) is read by rule 4
before rule 2, so the files named after it are part of the form, not the object.

A note asked for in plainer words, after a request verb (``NOTE_WORD``: a record, notes, a report, a
checkpoint, a snapshot, a brief, a write-up, a memo, a prompt, an update; or
"write up", "jot down"; a tag's name counts as its words, "a <state_snapshot>
of our session"), asked for as a summary noun is, is a summary request
when the conversation or the work done follows it ("a compact record of the
session so far", "write up everything above") or the instruction names a
hand-over ("a prompt for continuing our conversation", "for resuming"), and never when a file or code is its object
("a report on a.py"); alone ("Write a report.") it is a task. A participle
(condensed, compressed, summarized, abridged, ...) counts the same way, but
only before the conversation: "Write the condensed history now."

A clause that asks to extract (distil, capture, keep, preserve, pull out) what
matters *from the conversation* asks for a summary too ("extract the most
relevant context from the conversation history below", LangChain's words in
gist), the conversation noun within ``EXTRACT_REACH`` characters of the verb.

The request is a summary request when one summary word of the latest
instruction reads as a summary, or when the latest instruction is not one of
the agent's requests (below), the last user message has text (not only tool
results: mid-task, the model goes on working), and the system prompt's
instruction reads as one ("You are an assistant that summarizes conversations." with user "Go."; Gemini
CLI's compression prompt, in ``system``, with "Write a new <state_snapshot>").
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
("Take stock of where we are"), a note asked for without the conversation or a
hand-over ("Create a checkpoint."), or a pronoun far from the start of an
instruction whose antecedent is in an earlier message; a clause ends at ``.`` followed by a space, ``!``, ``?``, ``;`` or a
line end.

**The agent's requests** (``REQUEST_KINDS``; the fake agent's handlers take
the named arguments). Case does not matter; a path is ``[\\w./-]+\\.py``; a
folder is written ``name/`` (not ``name/file.py``) or ``the name folder`` or
ends the clause after "in", "under", "inside", "within", "across", "of",
"for" or "from" ("in agents"; for ``RECALL_RULE`` only the first two forms), and is never a word such as "detail",
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
  reading / looking at / checking" a file, "from memory", "don't read / open /
  look / check (it)", "recall", "off the top of your
  head", "no tools" ("without (using) any tool", "don't use a tool"),
  "only what's in ...", "from the conversation / earlier
  output / your last reply", "without
  re-running anything", "skip the tool call", "scroll up", "another file
  read", "what did you report / say", or "from what you (have) (already) saw
  / seen / read / know" (``NO_LOOKING``).
- ``ASK_TAG`` (path): the VERSION_TAG and a path with "what", "tell", "show",
  "give", "which", "report", "print", "know", "check" or a question mark; the
  agent answers for every path the request names (``paths_in``).
- ``COUNT`` (folder): count / how many / number of / total ... lines, not TODOs.
- ``SEARCH`` (folder): search / find / grep / look / list / show / scan /
  count / any / where / how many ... TODO(s); here the folder may also be
  the word after "search", "grep", "scan" or "check" and before "for".
- ``FIRST_CHANGE``: which / what ... file ... first ... change / edit / modify
  / update.
- ``RECALL_RULE`` (folder): what / remind / which ... tell / told / say /
  said / instruct / rule / ask ... a folder (``name/`` or "the name folder").
- ``INSTRUCTION`` (rule): a standing rule in any words: a time opener
  anywhere ("from now on", "going forward", "from here on (out)", "henceforth",
  "in (the) future", "for the rest of this session", "until I say otherwise",
  "from this point on"; "Please never modify files under tools/ from now on"),
  or a prohibition about a folder (``protected_folders``: "never", "do not",
  "must not", ... "edit", "change", "modify", "touch", "alter", "update",
  "write to" ... ``name/`` or "the name folder": "Never edit tools/."; or
  "leave tools/ alone", "hands off / keep out of / stay away from tools/",
  "keep your changes out of tools/", "treat tools/ as read-only", "no changes
  to tools/", "don't make any edits in tools/", "files under tools/ are
  read-only / off-limits / frozen", "tools/ must not be changed", "nothing in
  the tools/ directory may be modified", "only change files outside tools/",
  "I don't want you editing anything in tools/"); the rule is the text without the opener (and
  a leading "please", or a label such as "Rule:"). ``is_rule`` says whether a
  text is one; the agent refuses an edit under every protected folder.
- ``SAVE``: save / store / write / record / put ... to / in / into memory, on one
  line, at most 200 characters apart.
- ``GREETING``: an instruction that opens with hi, hello, hey, heya, hiya,
  howdy, yo, sup, what's up, greetings, (good) morning / afternoon / evening
  or good day (letters drawn out too: "heyy", "hiii"), or hola, bonjour, ciao,
  hallo, salut, namaste. Every other rule reads English only.

They are tried in that order and the first that matches is the request.
Limits: one request per message (the first kind that matches wins); a
folder name has no dots; an unquoted value must hold a digit, ``-`` or
``_``; a standing rule with neither an opener nor a prohibition of those forms
is not understood as a rule ("tools/ is vendored, so be careful"), nor
is an edit said through a pronoun ("change it to v2"). Anything else gets the agent's honest "I do not know how to do
that in this workspace."

Which tools the agent may use, and what each does, is ``tool_roles``'s reading.
A summary is written from what the request
holds: the system prompt, the history before the last message (as JSON) and
the last message's text, transcript included.
"""
from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from ..core.messages import blocks
from .conversation_forms import PAIRED_LINE, ROLES, TURN_PREFIX, paired_speakers

TAG_MARK = re.compile(r"<(/?)([A-Za-z][\w-]*)>")  # an opening or a closing tag (``without_tagged_blocks``)
INSTRUCTION_TAG = {"role", "instruction", "instructions", "objective", "task", "goal", "rule", "rules", "guideline",
                   "guidelines", "requirement", "requirements", "format", "constraint", "constraints", "directive",
                   "directives", "prompt", "request", "policy"}  # a word of a tag that holds instructions
_NAMES = sorted({re.sub("[ _]", "[ _]", name) for name in ROLES}, key=len, reverse=True)  # the longest first
_SPEAKER = r"(?:[\[<]\|?)?(?:" + "|".join(_NAMES) + r")(?:\|?[\]>])?"
MATERIAL_LINE = re.compile(  # a line of a conversation in another form: a dump, a repr, a speaker's turn
    r"""^.*(?:["']role["']\s*:|\b(?:Text|ToolUse|ToolResult)Block\(|\b(?:Human|AI|Tool|System)Message\().*$"""
    rf"|^[ \t>#*_]*{TURN_PREFIX}{_SPEAKER}(?:\*\*|__)?(?:[ \t]*[:\]>|][ \t]*\S.*$|[^\w\n]*$(?:\n[ \t]*\S.*)*)"
    r"|^- (?:User|Rule|In progress|Finished|Found|Decision|Error|read|edited|used): .*$"
    r"|^Note: \S+ — .*$|^Plan for \S+/: .*$",
    re.IGNORECASE | re.MULTILINE)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
CAPABILITY = re.compile(r"\byou\s+(?:can|could|may|might|are\s+able\s+to)\b|\btools?\b", re.IGNORECASE)

# --- the summary rule ------------------------------------------------------------------

_FLAGS = re.IGNORECASE
SUMMARY_WORD = re.compile(
    r"\b(?:summari[sz](?:e|es|ing)|summary|summaries|(?:sum|hand)\s+(?P<inner>(?:[\w'’]+\s+){1,4}?)(?:up|off|over)\b"
    r"|sums?\s+up|boil\s+(?P<inner2>(?:[\w'’]+\s+){1,4}?)down\b|boils?\s+down|summari[sz](?:ation|er)s?"
    r"|short\s+version|key\s+points|main\s+points|highlights|takeaways"
    r"|squash(?:es)?|shorten|abridge|shrink|take\s+stock"
    r"|recap(?:itulate)?s?|condenses?|compress(?:es)?|compacts?|digest|distil+s?|synopsis|run-?down|overview|gist"
    r"|tl;?\s?dr|catch\s+(?:me|us)\s+up|brief\s+(?:me|us)|hand(?:ing)?[\s-]?off|hand(?:ing)?[\s-]?over)\b",
    _FLAGS)
CLAUSE_END = re.compile(r"[!?;\n]|\.(?=\s|$)")
_FILLER = (r"me|us|up|please|briefly|quickly|concisely|again|now|note|notes|summary|summaries|doc|document"
           r"|message|report|of|on|about|a|an|short|brief|quick|detailed|full|complete|concise|little|small")
FILLERS = re.compile(rf"(?:[\s,:—–-]|(?:{_FILLER})(?![\w./-]))*", _FLAGS)
_DETERMINER = r"(?:(?:the|this|that|these|those|our|your|my|its|their|all(?:\s+of)?(?:\s+the)?|whole)\s+)?"
_ADJECTIVE = (r"(?:(?:whole|entire|full|complete|above|below|preceding|previous|following|current|recent|"
              r"last|earlier|long|chat|conversation|internal|prior|past|old|older|ongoing|existing|raw|agent|working"
              r"|active)\s+){0,3}")
_CONVERSATION_NOUN = (r"(?:conversation|transcript|chat|dialogue|dialog|discussion|session|exchange|history"
                      r"|messages?|thread|context|log|back-and-forth|back\s+and\s+forth|interaction)s?")
_FOLLOWER = (r"(?=\s*(?:$|[^\w\s]|(?:so|above|below|in|into|for|to|up|until|till|we|i|you|that|which|with|as"
             r"|and|from|here|now|since|thus|is|was|has|have|had|between|like|while|before|after|without|but"
             r"|or|please|then|including|there|at|this|about|regarding|concerning|on"
             rf"|{_CONVERSATION_NOUN})\b))")
_NOT_A_FILE = r"(?![./\\-]\w|/)"  # "conversation.py", "chat-log.md", "history/": the name of a file or a folder
CONVERSATION = re.compile(rf"{_DETERMINER}{_ADJECTIVE}{_CONVERSATION_NOUN}\b{_NOT_A_FILE}{_FOLLOWER}", _FLAGS)
FILE_OR_CODE = re.compile(  # "a.py" (a dot between a name and a word), "agents/" (a word, dashes, a slash), a noun
    r"[\w-]\.\w|\w-*/|\b(?:files?|modules?|code|codebase|functions?|class(?:es)?|readme|repo"
    r"|repository|project|folders?|director(?:y|ies)|packages?|scripts?|docstrings?)\b", _FLAGS)
WORK_DONE = re.compile(
    r"(?:what(?:'s|’s|\s+has|\s+have|\s+had)?\s+(?:(?:we|you|i)(?:'|’|\b)|been\b|happened\b|was\s+(?:done|said|"
    r"decided)\b|got\s+done\b|is\s+done\b)|where\s+(?:we|you|i|things)\b|how\s+far\b|everything\b|"
    r"(?:the\s+)?(?:above|below)\b|so\s+far\b|up\s+(?:to|till|until)\s+now\b|(?:till|until)\s+now\b|to\s+date\b"
    r"|(?:(?:the|our|your|my)\s+)?(?:work|progress|steps\s+taken|changes\s+made)\b)", _FLAGS)
PRONOUN = re.compile(r"(?:all\s+(?:of\s+)?)?(?:it|this|that|them|these|those|things)\b", _FLAGS)
# a pronoun that is the whole object: what follows says into what or how ("distill this into the key facts")
PRONOUN_OBJECT = re.compile(PRONOUN.pattern + r"(?=\s*(?:$|[^\w\s]|(?:into|as|in|for|so|please|to|with|down|up"
                            r"|briefly|now|again|and|then|but|while|using|under|within)\b))", _FLAGS)
NEGATED = re.compile(  # a negation right before a summary word (at most NEGATION_REACH characters back)
    r"\b(?:not|never|no|don['’]?t|doesn['’]?t|didn['’]?t|won['’]?t|can['’]?t|cannot|shouldn['’]?t|mustn['’]?t)"
    r"\s+(?:(?:yet|ever|again|even|to|please)\s+)?$", _FLAGS)
NEGATION_REACH = 40
NOTHING = re.compile(r"(?:$|for\b|in\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a)\b"
                     r"|so\b|and\b|then\b|as\b|with(?:out)?\b|before\b|after\b|once\b|when\b|while\b|since\b"
                     r"|because\b|if\b|until\b|by\b|[^\w\s])", _FLAGS)
# a summary asked for as the context worth keeping, taken from the conversation (LangChain's prompt asks so)
EXTRACT = re.compile(r"\b(?:extract|distil+|capture|pull\s+out|preserve|keep)\b", _FLAGS)
FROM_CONVERSATION = re.compile(rf"\bfrom\s+{_DETERMINER}{_ADJECTIVE}{_CONVERSATION_NOUN}\b{_NOT_A_FILE}", _FLAGS)
EXTRACT_REACH = 160
# a summary noun, not a verb: the words that make it one, and when it is asked for (``_requested``)
NOUNS = {"summary", "summaries", "synopsis", "rundown", "run-down", "overview", "gist", "handoff", "hand-off",
         "handover", "hand-over", "short version", "key points", "main points", "highlights", "takeaways"}
AMBIGUOUS_NOUNS = {"recap", "recaps", "digest", "compact", "compacts"}  # a noun after a modifier, else a verb
DEFINITE = {"the", "this", "that", "these", "those", "its", "their", "his", "her"}
MODIFIERS = DEFINITE | {"a", "an", "your", "my", "our", "one", "short", "brief", "quick", "detailed", "full", "concise",
                        "new", "updated", "final", "improved", "complete", "structured", "handoff", "handover",
                        "hand-off", "hand-over", "compact", "proper", "clean", "thorough", "running", "fresh",
                        "little", "written", "high-level", "executive", "tl;dr"}
DETERMINERS = {"a", "an", "the", "this", "that", "these", "those", "your", "my", "our", "its", "their", "his", "her",
               "one"}
NOUN_PHRASE = 4  # how far back the determiner of a summary noun may stand ("a short written handoff summary")
PARTICLES = {"me", "us", "up", "out", "down", "please", "just", "quickly"}
REQUEST_VERBS = {"write", "give", "provide", "create", "make", "prepare", "generate", "draft", "produce", "compose",
                 "send", "output", "return", "need", "want", "like", "get", "have", "do", "add", "include",
                 "update", "refresh", "rewrite", "revise", "redo", "improve", "correct", "fix", "finish", "start",
                 "begin", "with", "type", "jot", "spit", "deliver", "post", "share", "print", "show", "keep",
                 "maintain", "take"}
THIRD_PERSON = {"summarizes", "summarises", "condenses", "compresses", "compacts", "recaps", "distils", "distills",
                "sums", "squashes"}  # a role's job only in a relative clause: "an assistant that summarizes ..."
OPENERS = {"please", "ok", "okay", "now", "so", "and", "then", "just", "quick", "also", "hey", "finally"}
ROLE_WORD = re.compile(r"summari[sz](?:ation|er)s?", _FLAGS)  # "a summarization assistant", "a summarizer"
ROLE_NOUN = re.compile(r"\s*(?:assistant|agent|model|bot|service|specialist|expert|engine|helper|worker)s?\b", _FLAGS)
# a summary asked in plainer words: a note-like noun ("a record of the session", "a checkpoint of this session",
# "a prompt for continuing our conversation") or "write up" / "jot down", read only with the conversation, the
# work done or a hand-over purpose (``HANDOVER``), never alone: "Write a report." is a task
NOTE_NOUNS = {"record", "records", "note", "notes", "report", "checkpoint", "snapshot", "brief", "briefing",
              "write-up", "writeup", "memo", "prompt", "update", "log"}
PARTICIPLES = {"condensed", "compressed", "compacted", "summarized", "summarised", "shortened", "abridged",
               "distilled", "trimmed"}  # "the condensed history": read only with the conversation after it
NOTE_WORD = re.compile(r"(?<![^\W_])(?:" + "|".join(sorted(NOTE_NOUNS | PARTICIPLES, key=len, reverse=True))
                       + r"|(?:write|jot|type)\s+(?:up|down))\b", _FLAGS)
OBJECT_REACH = 40  # how far after a note word its object may name a file ("a short report on the module a.py")
HANDOVER = re.compile(
    r"\bfor\s+(?:continuing|resuming|carrying\s+on|picking\s+up|taking\s+over)\b"
    r"|\bpicks?\s+(?:this|it|things|the\s+work)\s+up\b", _FLAGS)
WORD = re.compile(r"[\w'’;-]+")


def _as_summary(text: str, start: int, end: int, first_file: Callable[[int], int | None],
                speaks: Callable[[], bool], opens: bool) -> tuple[bool, str]:
    """Rules 1-6 of the module docstring, for what follows one summary word: ``text[start:end]``: whether it
    makes a summary, and what the word was read as being about (``Reading``'s evidence). ``opens``: the word
    opens the instruction and the request holds a conversation (a pronoun then means it)."""
    if CONVERSATION.match(text, start, end):
        return True, "the conversation"
    if PRONOUN_OBJECT.match(text, start, end):  # what follows the pronoun is the form, not the object
        return (True, "a pronoun for the conversation") if opens or speaks() else (False, PRONOUN_ALONE)
    if (file := first_file(start)) is not None and file < start + OBJECT_REACH:  # "... as JSON with "files"": form
        return False, FILE_OBJECT
    if WORK_DONE.match(text, start, end):
        return True, "the work done"
    if PRONOUN.match(text, start, end):
        return (True, "a pronoun for the conversation") if opens or speaks() else (False, PRONOUN_ALONE)
    if NOTHING.match(text, start, end):
        return True, "nothing after it (the conversation, then)"
    return False, OTHER_OBJECT


FILE_OBJECT = "a file or code"  # a summary word about a file: a task, not a near miss
PRONOUN_ALONE = "a pronoun with no conversation named for it to mean"
OTHER_OBJECT = "something other than the conversation"
MENTIONED = "mentioned, not asked for"


@dataclass(frozen=True)
class SummaryVerdict:
    """How one instruction reads as a summary request: ``asked``, what showed it (``evidence``: the word and
    what it was about), and the summary words that did not count for a reason a model might not share
    (``near_misses``: mentioned, a pronoun with nothing to mean, another object; not a negation, not a file)."""
    asked: bool
    evidence: str | None = None
    near_misses: tuple[str, ...] = ()


def _requested(said: str, word: re.Match[str], clause_start: int) -> bool:
    """Whether a summary word is asked for rather than mentioned. A verb is asked for; a noun (``NOUNS``, or
    an ``AMBIGUOUS_NOUNS`` word after a modifier) is asked for when a request verb comes before it in its clause
    ("write a summary", "give me the gist", "what's the gist", "write the corrected summary": the word before its
    determiner,
    within ``NOUN_PHRASE`` words), or when it opens its clause without a definite determiner ("TL;DR of this
    session", "A recap, please"); it is mentioned when it labels what follows ("Summary:"), is the subject of a
    statement ("The summary below covers ...") or the object of another verb ("Here is a summary", "another
    model produced a handoff summary", "check the draft summary"). Reads at most the eight words before it:
    linear."""
    found = word.group().lower()
    before = WORD.findall(said[max(clause_start, word.start() - 80):word.start()].lower())[-8:]
    if found.split()[0] in THIRD_PERSON:
        return bool(before) and before[-1] in ("that", "who", "which")
    if ROLE_WORD.fullmatch(found):  # a role: "you are a summarization assistant", "act as a summarizer"
        return "you" in before and bool({"are", "re", "as"} & set(before)) or "as" in before[-3:]
    noun = (found in NOUNS or found in NOTE_NOUNS or found in PARTICIPLES
            or found in AMBIGUOUS_NOUNS and bool(before) and before[-1] in MODIFIERS)
    if not noun:
        return True
    if said.startswith(":", word.end()):
        return False
    phrase = next((n for n in range(1, min(len(before), NOUN_PHRASE) + 1) if before[-n] in DETERMINERS), 0)
    if phrase:  # "write the corrected summary": the word before the determiner says what is done with it
        definite, before = before[-phrase] in DEFINITE, before[:-phrase]
    else:
        definite = False
        while before and before[-1] in MODIFIERS:
            before.pop()
    while before and before[-1] in PARTICLES:
        before.pop()
    plain = found in NOTE_NOUNS or found in PARTICIPLES  # "[Compressed history; ...]", "Notes from ...": labels
    if not before:
        return not definite and not plain
    what = before[-1] in ("what's", "what’s", "whats") or before[-2:] == ["what", "is"]  # "what's the gist of ..."
    return before[-1] in REQUEST_VERBS or what or not plain and all(w in OPENERS for w in before)


def _first_from(pattern: re.Pattern[str], text: str, end: int) -> Callable[[int], int | None]:
    """Where ``pattern`` first matches in ``text[start:end]``, for starts asked in increasing order: one
    search serves every start up to the match it found, so a clause is searched once, not once a word."""
    found: list[tuple[int, int | None]] = []  # (searched from, first match there or None)

    def first(start: int) -> int | None:
        if found and found[0][0] <= start and (found[0][1] is None or found[0][1] >= start):
            return found[0][1]
        match = pattern.search(text, start, end)
        found[:] = [(start, match.start() if match else None)]
        return found[0][1]
    return first


def asks_for_summary(instruction: str, has_conversation: bool = False) -> bool:
    """Whether an instruction's text (already without quoted material) asks for a summary of the
    conversation: the module's rule (``summary_reading``)."""
    return summary_reading(instruction, has_conversation).asked


@lru_cache(maxsize=2_048)
def summary_reading(instruction: str, has_conversation: bool = False) -> SummaryVerdict:
    """How an instruction's text (already without quoted material) reads as a request for a summary of the
    conversation: the module's rule, over its sentences that are not capability descriptions, with what showed
    it. ``has_conversation``: the request holds a conversation for a pronoun to mean. Linear in the text:
    clause ends are found once, each clause's first file mention once, and a run of fillers shared by
    several summary words ("summary summary ... x") is read once."""
    said = " ".join(s for s in SENTENCE.split(TAG_AS_WORDS.sub(_tag_words, instruction))
                    if s and not CAPABILITY.search(s))
    ends = [m.start() for m in CLAUSE_END.finditer(said)]
    clauses: dict[int, Callable[[int], int | None]] = {}
    fillers = (-1, -1, -1)  # the latest run of fillers read: (from, to, clause end)
    spoken: list[bool] = []
    names_code = has_conversation and FILE_OR_CODE.search(said) is None
    misses: list[str] = []

    def speaks() -> bool:
        if not spoken:
            spoken.append(bool(CONVERSATION.search(said) or WORK_DONE.search(said)))
        return spoken[0]

    def verdict(word: re.Match[str], asked: bool, about: str) -> SummaryVerdict | None:
        if asked:
            return SummaryVerdict(True, f"{_quoted(word.group())} asked for, about {about}", tuple(misses))
        if about != FILE_OBJECT and len(misses) < NEAR_MISSES:
            misses.append(f"{_quoted(word.group())}: about {about}")
        return None
    for word in SUMMARY_WORD.finditer(said):
        if NEGATED.search(said, max(0, word.start() - NEGATION_REACH), word.start()):
            continue
        at = bisect_left(ends, word.start())
        clause_start = ends[at - 1] + 1 if at else 0
        if not _requested(said, word, clause_start):
            if len(misses) < NEAR_MISSES:
                misses.append(f"{_quoted(word.group())}: {MENTIONED}")
            continue
        opens = names_code and at == 0 and word.start() <= 60 and len(WORD.findall(said, 0, word.start())) <= 4
        if (inner := word.group("inner") or word.group("inner2")):
            head = FILLERS.match(inner).end()
            if (found := verdict(word, *_as_summary(inner, head, len(inner),
                                                    _first_from(FILE_OR_CODE, inner, len(inner)), speaks, opens))):
                return found
            continue
        start = word.end()
        end = ends[at] if (at := bisect_left(ends, start)) < len(ends) else len(said)
        if ROLE_WORD.fullmatch(word.group()) and (role := ROLE_NOUN.match(said, start, end)):
            start = role.end()
        if not (fillers[0] <= start <= fillers[1] and fillers[2] == end):
            fillers = (start, FILLERS.match(said, start, end).end(), end)
        first_file = clauses.setdefault(end, _first_from(FILE_OR_CODE, said, end))
        if (found := verdict(word, *_as_summary(said, fillers[1], end, first_file, speaks, opens))):
            return found
    if (extract := _extracts(said, ends)):
        return SummaryVerdict(True, f"{_quoted(extract)} asked for, from the conversation", tuple(misses))
    if (note := _asks_for_notes(said, ends)):
        return SummaryVerdict(True, f"{_quoted(note)} asked for, of the conversation or for a hand-over",
                              tuple(misses))
    return SummaryVerdict(False, None, tuple(misses))


NEAR_MISSES = 3  # at most this many near misses are kept as evidence


def _quoted(word: str) -> str:
    """A word as evidence: in double quotes, its spaces made single."""
    return '"' + " ".join(word.split()) + '"'


TAG_AS_WORDS = re.compile(r"</?([A-Za-z][\w-]*)>")  # "Produce a <state_snapshot> of ...": its name is read as words


def _tag_words(tag: re.Match[str]) -> str:
    return re.sub(r"[_-]", " ", tag.group(1))


def _asks_for_notes(said: str, ends: list[int]) -> str | None:
    """Whether a clause asks for notes on the conversation in plainer words (``NOTE_WORD``): asked for as
    a summary noun is, then followed by the conversation or the work done ("a record of the session so far",
    "write up everything above"), or in an instruction that names a hand-over (``HANDOVER``: "a prompt for
    continuing", "for resuming"); never when a file or code is its object (named within
    ``OBJECT_REACH`` characters after it). The note word that asks, or None. Each look is bounded and the
    hand-over is searched once: linear."""
    handover: list[bool] = []
    fillers = (-1, -1, -1)  # the latest run of fillers read, as in ``asks_for_summary``
    for word in NOTE_WORD.finditer(said):
        if NEGATED.search(said, max(0, word.start() - NEGATION_REACH), word.start()):
            continue
        at = bisect_left(ends, word.start())
        if not _requested(said, word, ends[at - 1] + 1 if at else 0):
            continue
        end = ends[at] if at < len(ends) else len(said)
        if not (fillers[0] <= word.end() <= fillers[1] and fillers[2] == end):
            fillers = (word.end(), FILLERS.match(said, word.end(), end).end(), end)
        start = fillers[1]
        if CONVERSATION.match(said, start, end) or WORK_DONE.match(said, start, end):
            return word.group()
        if word.group().lower() in PARTICIPLES:
            continue
        if FILE_OR_CODE.search(said, start, min(end, start + OBJECT_REACH)):  # "a report on a.py": a task
            continue
        if not handover:
            handover.append(bool(HANDOVER.search(said)))
        if handover[0]:
            return word.group()
    return None


def _extracts(said: str, ends: list[int]) -> str | None:
    """Whether a clause asks to extract (distil, capture, keep) what matters from the conversation (a summary
    asked in other words): the verb that asks, or None. Each look is bounded (``EXTRACT_REACH``), so the text
    is read in linear time."""
    for verb in EXTRACT.finditer(said):
        if NEGATED.search(said, max(0, verb.start() - NEGATION_REACH), verb.start()):
            continue
        at = bisect_left(ends, verb.end())
        end = min(ends[at] if at < len(ends) else len(said), verb.end() + EXTRACT_REACH)
        if FROM_CONVERSATION.search(said, verb.end(), end):
            return verb.group()
    return None


def without_tagged_blocks(said: str) -> str:
    """``said`` without the material its tags quote: each block from an opening tag to the last closing tag of
    its name, left to right, found with one scan of the tags. A tag whose name holds an ``INSTRUCTION_TAG``
    word (``<instructions>``, ``<primary_objective>``, ``<role>``) wraps instructions: its text is kept, its
    tags go."""
    tags = list(TAG_MARK.finditer(said))
    last_close = {tag.group(2): tag.start() for tag in tags if tag.group(1)}
    kept, cursor = [], 0
    for tag in tags:
        if tag.start() < cursor:
            continue
        if _instruction_tag(tag.group(2)) and tag.group(2) in last_close:
            kept.append(said[cursor:tag.start()])
            cursor = tag.end()
            continue
        close = last_close.get(tag.group(2), -1)
        if not tag.group(1) and close >= tag.end():
            kept.append(said[cursor:tag.start()])
            cursor = close + len(tag.group(2)) + 3
    return "".join(kept) + said[cursor:]


@lru_cache(maxsize=512)
def _instruction_tag(name: str) -> bool:
    return bool(set(re.split(r"[_-]", name.lower())) & INSTRUCTION_TAG)


def instruction_text(said: str) -> str:
    """What an instruction says, without the tagged blocks and the conversation lines it quotes (a line of
    a paired speaker, "Q:" beside "A:", only when its partner speaks too)."""
    kept = MATERIAL_LINE.sub("", without_tagged_blocks(said))
    if (paired := paired_speakers(kept)):
        kept = PAIRED_LINE.sub(lambda line: "" if line.group("name").lower() in paired else line.group(), kept)
    return kept.strip()


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


def summary_material(body: dict[str, Any]) -> str:
    """What a summary is written from: the system prompt, the earlier messages as JSON, then the
    last message's text."""
    *earlier, last = body["messages"]
    said = "\n".join(b["text"] for b in blocks(last) if b.get("type") == "text")
    parts = [system_text(body), json.dumps(earlier, ensure_ascii=False) if earlier else "", said]
    return "\n\n".join(part for part in parts if part)


# --- the agent's request kinds ---------------------------------------------------------------
# A named group ``folder2`` fills the handler's argument ``folder``: alternatives cannot share a name.

_PATH = (r"(?<![\w.-])(?<![\w.-]/)"  # only where a run of path characters starts (or after "//"): linear
         r"(?P<path>[\w.-](?:[\w.-]|/(?=[\w.-]))*(?<!/)\.py)\b")
_TAG = r"[`'\"]?\b(?:version[\s_-]?tag)\b[`'\"]?"
_NOT_FOLDER = (r"(?!(?:detail|total|order|full|short|brief|general|it|them|this|that|there|here|each|every|all"
               r"|the|a|an|memory|mind|one|lines?|files?|python|code)\b)")
_FLAGS_ALL = re.IGNORECASE | re.DOTALL


class Found:
    """What a request kind found: its named arguments, read like a match's (``found["path"]``,
    ``found.group("path")``, ``found.groupdict()``), and where the part that decided it starts."""

    def __init__(self, groups: dict[str, str | None], start: int = 0) -> None:
        self.groups, self.at = groups, start

    def __getitem__(self, name: str) -> str | None:
        return self.groups[name]

    def group(self, name: str) -> str | None:
        return self.groups[name]

    def groupdict(self) -> dict[str, str | None]:
        return dict(self.groups)

    def start(self) -> int:
        return self.at


class _Names:
    """``name/`` not followed by a file name: each chain of names (``a/b-c/d``) is found once, then its
    slashes are tried from the last, as the greedy pattern would, so a long run costs linear time."""
    CHAIN = re.compile(r"\b\w(?:[\w-]|/(?=\w))*")
    FILE_NAME = re.compile(r"[\w.-]*\.\w")

    def search(self, text: str) -> Found | None:
        for chain in self.CHAIN.finditer(text):
            slashes = [m.start() for m in re.finditer("/", text[chain.start():chain.end() + 1])]
            for slash in reversed(slashes):
                if not self.FILE_NAME.match(text, chain.start() + slash + 1):
                    return Found({"folder1": text[chain.start():chain.start() + slash]}, chain.start())
        return None


class _Earliest:
    """The leftmost of several parts' matches, the first part on a tie: an alternation, part by part."""

    def __init__(self, *parts: Any) -> None:
        self.parts = parts

    def search(self, text: str) -> Found | None:
        found = [(m.start(), n, m) for n, part in enumerate(self.parts) if (m := part.search(text)) is not None]
        return Found(min(found)[2].groupdict(), min(found)[0]) if found else None


def _folder(prepositions: str | None = r"in|under|inside|within|across|of|for|from") -> _Earliest:
    """A folder: ``name/`` (not ``name/file.ext``), ``the name folder``, or ``<preposition> name`` ending
    the clause (not read when ``prepositions`` is None)."""
    forms: list[Any] = [
        _Names(), re.compile(r"(?<![\w-])-*(?=\w)(?P<folder2>\w[\w-]*)\s+(?:folder|directory|dir)\b", re.IGNORECASE)]
    if prepositions is not None:
        forms.append(re.compile(rf"\b(?:{prepositions})\s+(?:the\s+)?{_NOT_FOLDER}[`'\"]?(?P<folder3>\w[\w-]*)[`'\"]?"
                                r"(?=\s*(?:[.,;:!?]|$|(?:and|then|to|for|please|now)\b))", re.IGNORECASE))
    return _Earliest(*forms)


class RequestKind:
    """One of the agent's requests: every part found somewhere in the text, each by its own search
    (none over ``.*``), and none of ``absent``. Its arguments are the parts' named groups, in order."""

    def __init__(self, name: str, *parts: Any, absent: re.Pattern[str] | None = None) -> None:
        self.name, self.parts, self.absent = name, parts, absent

    def __repr__(self) -> str:
        return f"RequestKind({self.name})"

    def search(self, text: str) -> Found | None:
        if self.absent is not None and self.absent.search(text):
            return None
        groups: dict[str, str | None] = {}
        for part in self.parts:
            if (match := part.search(text)) is None:
                return None
            groups.update(match.groupdict())
        return Found(groups)


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _FLAGS_ALL)


_VALUE = (r"""(?:"(?P<value1>[^"]+)"|'(?P<value2>[^']+)'|`(?P<value3>[^`]+)`"""
          r"|(?P<value4>(?=[\w.-]*[\d_-])[\w.-]*\w))")
READ_ALL = RequestKind(
    "READ_ALL", _words(r"\b(?:read|summari[sz]e|describe|explain|go\s+through|look\s+(?:at|through)|tell\s+me"
                       r"|what\s+does|summary)\b"),
    _words(r"\b(?:every|each|all)\b"), _words(r"\bfiles?\b|\bmodules?\b|\.py\b"), _folder())
EDIT = RequestKind(  # each gap bounded and on one line, so a long text costs linear time
    "EDIT", _words(_PATH), _words(rf"\b(?:change|set|update|bump|make|switch|modify)\b[^\n]{{0,120}}?{_TAG}"
                                  rf"[^\n]{{0,120}}?(?:\bto\b|=)\s*{_VALUE}"))
NO_LOOKING = _words(  # "answer without a tool": from memory, from what was seen, no tools
    r"\bwithout\s+(?:re-?)?(?:opening|reading|looking\s+at|checking)\b|\bfrom\s+memory\b"
    r"|\b(?:don['’]?t|do\s+not|no\s+need\s+to)\s+(?:re-?)?(?:open|read|look|check)\w*"
    r"|\boff\s+the\s+top\s+of\s+(?:your|my)\s+head\b|\brecall\b"
    r"|\b(?:no|without(?:\s+using)?(?:\s+any|\s+a)?|(?:don['’]?t|do\s+not)\s+use(?:\s+any|\s+a|\s+the)?)\s+tools?\b"
    r"|\bfrom\s+what\s+(?:you|we)(?:['’]ve|\s+have)?\s+(?:already\s+|just\s+)?(?:saw|seen|read|know|remember|recall)\b"
    r"|\bonly\s+what(?:['’]s|\s+is|\s+you)\b"
    r"|\bfrom\s+(?:the|our|your)\s+(?:earlier\s+|previous\s+|last\s+)?(?:conversation|chat|context|history|output"
    r"|messages?|replies|reply|answers?)\b"
    r"|\bwithout\s+(?:re-?)?(?:running|calling|executing|fetching|using|opening|reading)\s+(?:anything|any|a|the|it)\b"
    r"|\bskip\s+(?:the\s+|any\s+)?(?:tool|file)\b|\bscroll\s+up\b|\b(?:another|more|a\s+new)\s+(?:file\s+)?reads?\b"
    r"|\bdid\s+you\s+(?:report|say|mention|find|give|quote)\b|\byou\s+(?:said|reported|mentioned)\b")
RECALL_TAG = RequestKind("RECALL_TAG", _words(_PATH), _words(_TAG), NO_LOOKING)
ASK_TAG = RequestKind("ASK_TAG", _words(_PATH), _words(_TAG),
                      _words(r"\b(?:what|tell|show|give|which|report|print|know|check)\b|\?"))
COUNT = RequestKind("COUNT", _words(r"\b(?:count|how\s+many|number\s+of|total|tally)\b"), _words(r"\blines?\b"),
                    _folder(), absent=_words(r"\btodos?\b"))
SEARCH = RequestKind(
    "SEARCH", _words(r"\btodos?\b"), _words(r"\b(?:search|find|grep|look|list|show|scan|count|any|where|how\s+many)\b"),
    _Earliest(_folder(), _words(r"\b(?:search|grep|scan|check)\s+(?:the\s+)?(?P<folder4>\w[\w-]*)\s+for\b")))
FIRST_CHANGE = RequestKind("FIRST_CHANGE", _words(r"\b(?:which|what)\b"), _words(r"\bfiles?\b"), _words(r"\bfirst\b"),
                           _words(r"\b(?:change|edit|modify|update)\b"))
RECALL_RULE = RequestKind(
    "RECALL_RULE", _words(r"\b(?:what|remind|which)\b"), _words(r"\b(?:tell|told|say|said|instruct\w*|rules?|ask(?:ed)?)\b"),
    _folder(None))
TIME_OPENER = re.compile(  # words that make an instruction standing
    r"\b(?:from\s+now\s+on|going\s+forward|from\s+here\s+on(?:\s+out)?|henceforth|in\s+(?:the\s+)?future"
    r"|for\s+the\s+rest\s+of\s+(?:this|the)\s+(?:session|conversation|chat)|until\s+I\s+say\s+otherwise"
    r"|from\s+this\s+point\s+(?:on|forward))\b", re.IGNORECASE)
_FOLDER = (r"(?:the\s+)?(?<![\w/-])(\w(?:[\w-]|/(?=\w))*)"  # a folder's name starts a run of its characters: linear
           r"(?:/(?:\s+(?:folder|directory)\b)?|\s+(?:folder|directory)\b)")
_CONTENTS = (r"(?:(?:everything|anything|all|the\s+files?|any\s+files?|files?|the\s+code|code)"
             r"\s+(?:in|under|inside|within)\s+)?")
PROTECTIONS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (  # the ways to forbid editing a folder
    # "never edit anything under tools/", "don't modify tools/"
    r"\b(?:never|do\s+not|don't|don’t|must\s+not|mustn't|should\s+not|shouldn't|may\s+not)\s+(?:ever\s+)?"
    r"(?:edit|change|modify|touch|alter|update|write\s+to)\s+"  # each optional word takes its own space after it
    r"(?:(?:anything|any\s+files?|files?|the\s+files?)\s+)?(?:(?:under|in|inside|within)\s+)?(?:the\s+)?"
    r"(\w(?:[\w-]|/(?=\w))*)(?:/|\s+(?:folder|directory)\b)",
    rf"\bleave\s+{_CONTENTS}{_FOLDER}\s+(?:alone|untouched|as\s+it\s+is|as\s+is)\b",
    rf"\b(?:hands\s+off|keep\s+(?:your\s+(?:hands|changes|edits|modifications)\s+|(?:changes|edits)\s+)?"
    rf"(?:off|out\s+of|away\s+from)|stay\s+(?:out\s+of|away\s+from))\s+{_CONTENTS}{_FOLDER}",
    rf"\b(?:only|just)\s+(?:change|edit|modify|touch|write)\s+(?:files?|things|code)\s+outside\s+(?:of\s+)?{_FOLDER}",
    rf"\b(?:don['’]?t|do\s+not|never)\s+want\s+you\s+(?:to\s+)?(?:edit|change|modify|touch|alter|write)\w*\s+(?:to\s+)?"
    rf"{_CONTENTS}{_FOLDER}",
    rf"\b(?:nothing|no\s+files?|none\s+of\s+the\s+files)\s+(?:in|under|inside|within)\s+{_FOLDER}\s+(?:may|can|should"
    rf"|must|is\s+to|are\s+to)\s+be\s+(?:edited|changed|modified|touched|altered|updated|written)\b",
    rf"\btreat\s+{_CONTENTS}{_FOLDER}\s+as\s+(?:read[\s-]?only|frozen|off[\s-]limits)\b",
    rf"\bno\s+(?:more\s+)?(?:edits|changes|modifications|writes|writing|editing)\s+(?:to|in|under|inside|within)\s+"
    rf"{_CONTENTS}{_FOLDER}",
    rf"\b(?:never|do\s+not|don't|don’t)\s+make\s+(?:any\s+)?(?:edits|changes|modifications)\s+(?:to|in|under|inside)\s+"
    rf"{_CONTENTS}{_FOLDER}",
    rf"{_CONTENTS}{_FOLDER}\s+(?:is|are|stays?|remains?)\s+(?:strictly\s+)?(?:read[\s-]?only|off[\s-]limits|frozen"
    rf"|untouchable|not\s+to\s+be\s+(?:edited|changed|modified|touched))\b",
    rf"{_CONTENTS}{_FOLDER}\s+(?:must|should|may|can)\s*(?:not|n't|never)\s+be\s+(?:edited|changed|modified|touched"
    rf"|altered|updated|written)\b"))


def _protections(text: str) -> tuple[str, ...]:
    return tuple(folder for pattern in PROTECTIONS for folder in pattern.findall(text))


@lru_cache(maxsize=4_096)
def protected_folders(text: str) -> tuple[str, ...]:
    """The folders a user's text forbids editing, by any of ``PROTECTIONS`` ("never edit tools/", "leave tools/
    alone", "hands off tools/", "files under tools/ are read-only"). Cached by
    the text: the agent asks it of every user message on every edit (the rule reading, timed by the reading
    benchmark, reads ``_protections`` afresh)."""
    return _protections(text)


PLEASE = re.compile(r"please\s+", re.IGNORECASE)
RULE_LABEL = re.compile(r"(?:rule|note|constraint|important|reminder)\s*:\s*", re.IGNORECASE)
EDGE = " \t\n,:;—–-"


class _Rule:
    """A standing rule, in whatever words: a time opener anywhere ("Going forward, ...", "... from now on")
    or a prohibition about a folder ("Never edit tools/.", "Hands off tools/", ``protected_folders``). Its
    ``rule`` is the text without the opener, a leading label ("Rule:") or "please"."""

    def search(self, text: str) -> Found | None:
        opener = TIME_OPENER.search(text)
        if opener is None and not _protections(text):
            return None
        if opener is None:
            body = text.strip(EDGE)
        else:
            before, after = text[:opener.start()].rstrip(EDGE), text[opener.end():].lstrip(EDGE)
            body = before + after if not before or not after or after[0] in ".!?" else f"{before} {after}"
        for prefix in (RULE_LABEL, PLEASE):
            if (found := prefix.match(body)):
                body = body[found.end():]
        if not body.strip(".!? "):
            return None
        return Found({"rule": body[0].lower() + body[1:] if body[1:2].islower() else body}, 0)


INSTRUCTION = _Rule()


def is_rule(text: str) -> bool:
    """Whether a user's message states a standing rule (``INSTRUCTION``'s reading)."""
    return INSTRUCTION.search(text) is not None


GREETING = re.compile(r"^\W*(?:hi+|hell+o+|hey+a?|hiya|howdy|yo+|sup|what['’]?s\s+up|greetings|hola|bonjour|ciao"
                      r"|hallo|salut|namaste"
                      r"|(?:good\s+)?(?:morning|afternoon|evening)|good\s+day)\b",
                      re.IGNORECASE)
SAVE = re.compile(r"\b(?:save|store|write|record|put)\b[^\n]{0,200}?\b(?:to|in|into)\s+(?:your\s+|the\s+)?memory\b",
                  re.IGNORECASE)
REQUEST_KINDS = (READ_ALL, EDIT, RECALL_TAG, ASK_TAG, COUNT, SEARCH, FIRST_CHANGE, RECALL_RULE, INSTRUCTION, SAVE,
                 GREETING)
PATH_MENTION = re.compile(_PATH)


def paths_in(said: str) -> list[str]:
    """Every path a request names, in order, each once."""
    return list(dict.fromkeys(m.group("path") for m in PATH_MENTION.finditer(said)))


def request_arguments(match: re.Match[str] | Found) -> dict[str, str]:
    """A match's named arguments: ``folder1``..``folderN`` fill ``folder``, the first that matched."""
    found: dict[str, str] = {}
    for name, value in match.groupdict().items():
        if value is not None:
            found.setdefault(name.rstrip("0123456789"), value)
    return found


@lru_cache(maxsize=4_096)
def request_kind(said: str) -> tuple[Any, dict[str, str]] | None:
    """The first of ``REQUEST_KINDS`` a request's text matches, with its arguments; None for none."""
    for pattern in REQUEST_KINDS:
        if (match := pattern.search(said)):
            return pattern, request_arguments(match)
    return None
