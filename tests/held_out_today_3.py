"""The third held-out set of phrasings for issue 31 (a model as they are today). It was written during this round's
rule changes, by someone who did not read the rules that read requests, and it was not used to tune them:
tests/test_held_out_today.py runs it through the real SDK and reports how many hold.

The lists have the names and shapes of tests/held_out_today_2.py (the second held-out set) but none of the words
of either earlier set: no phrasing here repeats or lightly edits one of theirs. Each is something a person, a
student or another harness (Claude Code, Codex CLI, Gemini CLI, OpenCode, Aider, LangChain, LlamaIndex, Cursor,
Cline, Goose, Continue, AutoGen, CrewAI, smolagents...) might send; the styles are theirs, the words are ours, and
no string is copied from a real system's prompt. Some are easy and some are hard, but a competent model would
understand every one.

Measured before its misses were read (25 of 60 on the rules of the round before, 33 when set 2 had been
read); this round then read them, so it is training data now."""
from __future__ import annotations

from held_out_today import S01, _tool  # the same file, and tool definitions built the same way

# --- summary requests as other harnesses send them (the conversation comes before, or inside) -----------------
# (system prompt or None, the last user turn); the test puts the long session's first requests before it
SUMMARY_REQUESTS = [
    (None, "We're close to the token limit. Write up where this session stands so a different model can pick it "
           "up cold: what I asked for, what you found, what is still pending, and any constraints I gave you."),
    ("You keep a running summary of a conversation. Each time you are called, merge the new turns into the "
     "existing summary and return only the updated summary.",
     "Existing summary: (empty)\n\nUpdate it with everything said in this conversation so far."),
    (None, "wait, what have we actually gotten done in this chat? give me a summary before I log off"),
    (None, "Before we go any further, summarize this conversation in four numbered parts:\n1. what I wanted\n"
           "2. what you found\n3. which files came up\n4. what is left to do"),
    (None, "/compact Squash the history above into a brief summary we can keep in place of the full log."),
    ("You write conversation summaries for context management. Quote the user's instructions verbatim where "
     "you can.", "Summarise the exchange we've had up to this point."),
    (None, "Résume notre conversation jusqu'ici en quelques points, s'il te plaît."),
    ("You are the Scribe agent of a crew. Your notes are the only memory the crew keeps of a discussion.",
     "Take notes on the discussion above for the crew: the key points, the findings and the open questions."),
    (None, "Draft a short recap of this chat that I could send to a teammate who missed it."),
    ("Condense chat histories. Keep facts, names, file paths and numbers; drop greetings and filler.",
     "Condense the history so far."),
    (None, "Let's take stock. In a few sentences, what has this conversation covered and where did we leave off?"),
    (None, "Reply with a YAML document summarizing this session, with the keys objective, findings, files_seen, "
           "constraints and pending."),
]

# the same requests with the conversation pasted inside the turn, in label styles a harness may use
TRANSCRIPT_STYLES = [
    "You said:\n{user}\n\nChatGPT said:\n{assistant}\n\nsummarize this chat",
    "Summarize this message history:\n[HumanMessage(content='{user}'), AIMessage(content='{assistant}')]",
    "<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n{assistant}<|im_end|>\n\n"
    "Give a brief summary of the conversation above.",
    "<user> {user}\n<assistant> {assistant}\n\nSummarize the log above in two sentences.",
    "What's the gist of this conversation?\n\n| speaker | message |\n|---|---|\n| user | {user} |\n"
    "| assistant | {assistant} |",
    "Can you summarise the exchange below for my notes?\n\n-----\nFrom: User\n{user}\n\nFrom: Assistant\n"
    "{assistant}\n-----",
]

# --- continuation messages: a summary handed over, then "go on" (the test fills in the fake's own summary) -----
CONTINUATIONS = [
    "(Resumed session. Notes carried over from the earlier context are below.)\n\n{summary}\n\nPlease keep "
    "working on the last request without asking me anything further.",
    "## Context from earlier\n{summary}\n\n## Instruction\nContinue the task that was in progress when the context "
    "was cut.",
    "ok i'm back. this is where we were:\n\n{summary}\n\nlet's keep going",
    "<system-reminder>\nThe earlier part of this conversation has been replaced by the recap below.\n"
    "</system-reminder>\n{summary}\n\nNow finish answering the user's last question.",
    "For context, a colleague worked on this with you yesterday and left these notes:\n{summary}\nCould you "
    "complete whatever they didn't get to?",
]

# --- tools by what they do: definitions named and shaped unlike the course's --------------------------------------
READ_TOOLS = [
    _tool("Read", "Returns a file's text with line numbers. Optional offset and limit select a window of lines.",
          **{"file_path": "string", "offset?": "integer", "limit?": "integer"}),
    _tool("fetch_file", "Get the raw content of a file in the current project by its relative path.",
          rel_path="string"),
    _tool("inspect_file", "Inspect a file: returns everything in it, verbatim.", which="string"),
    _tool("retrieveContent", "Retrieves the full textual content of the resource at the specified location.",
          resource="string"),
    _tool("slurp", "Slurp a whole file into a string and return it.", p="string"),
]
EDIT_TOOLS = [  # (editing or writing tool, a read tool to pair it with)
    (_tool("Edit", "Performs an exact string replacement in a file; old_str must occur in it exactly once.",
           **{"file_path": "string", "old_str": "string", "new_str": "string", "replace_all?": "boolean"}),
     READ_TOOLS[0]),
    (_tool("search_replace", "Apply a search/replace block to a file: the search block is found and swapped for "
           "the replace block.", fname="string", search_block="string", replace_block="string"), READ_TOOLS[3]),
    (_tool("write_whole_file", "Create or overwrite a file. Supply the entire new content, not a diff.",
           out_path="string", body="string"), READ_TOOLS[1]),
    (_tool("dump_text", "Dump text into a file, replacing whatever was there before.", into="string",
           payload="string"), READ_TOOLS[2]),
]
LIST_TOOLS = [
    _tool("Glob", "Fast file pattern matching. Returns the paths that match, e.g. lib/**/*.rb.",
          glob_expr="string"),
    _tool("tree", "Show the files and subfolders at a path, one per line.", root="string"),
    _tool("scan_dir", "Scan a directory and return the names it contains.", dirname="string"),
]
RUN_TOOLS = [
    _tool("Bash", "Run one bash command and return its output.", **{"bash_command": "string",
                                                                      "timeout_ms?": "integer"}),
    _tool("run_process", "Launch a program with its arguments (given as one command line), wait for it, and "
          "return the exit code and output.", **{"commandLine": "string", "wait?": "boolean"}),
    _tool("cli", "Invoke a CLI in the project directory; give the full command as you would type it.",
          input="string"),
]

# --- ordinary conversation ---------------------------------------------------------------------------------------
GREETINGS = ["heyy 👋", "Good afternoon!", "sup", "Morning! How are you today?", "hello, is this thing on?",
             "Hola :)"]

# a rule about tools/, in other words; the test then asks "What did I tell you about tools/?" and for an edit there
RULES = [
    "Going forward, tools/ is read-only for you: you can look, but don't change anything in it.",
    "Please make no edits to files in tools/ for the rest of this session.",
    "Constraint: the tools/ folder is frozen. Do not write to it under any circumstances.",
    "Heads up: don't modify tools/, it's generated code and your changes would get overwritten.",
    "Only change files outside tools/; that directory stays exactly as it is.",
    "I don't want you editing anything in tools/, okay?",
]

# answer from what is visible, never with a tool
FROM_MEMORY = [
    f"You already read {S01} a moment ago. Just tell me its VERSION_TAG; skip the tool call.",
    f"Scroll up: what value of VERSION_TAG did you report for {S01}?",
    f"Answer directly, without re-running anything: which VERSION_TAG does {S01} have?",
    f"I don't want another file read for this. What's the VERSION_TAG of {S01}, based on your earlier answer?",
    f"Say again the VERSION_TAG you found in {S01}, straight from your last reply.",
]

# tasks that mention summarising a file or code: still tasks, never summary requests
NOT_SUMMARIES = [
    "Open core/c04_transport.py and write me a short summary of how its retry logic works.",
    "Sum up agents/s05_skill_loading.py in two sentences.",
    "Give me an executive summary of tools/t05_shell.py.",
    "Skim core/c09_prompts.py and recap the main functions it defines.",
    "Produce a digest of plugins/p11_backup.py and plugins/p05_cache.py: one short paragraph each.",
]
