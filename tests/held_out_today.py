"""The first held-out phrasings for issue 31 (a model as they are today), written before the rules that read
them and not used to tune them until measured: tests/test_held_out_today.py runs them through the real SDK and
reports how many hold.

Each list is what a person or another harness might send; the test file says what each should get. None of
these strings is copied from a real system's prompt: the styles are, the words are ours.

Measured on the first round's rules (44 of 61 read as meant); the second round then read the rest, so this set
is training data now (tests/test_held_out_today.py says which sets are still held out)."""
from __future__ import annotations

S01 = "agents/s01_agent_loop.py"

# --- summary requests as other harnesses send them (the conversation comes before, or inside) -----------------
# (system prompt or None, the last user turn); the test puts the long session's first requests before it
SUMMARY_REQUESTS = [
    (None, "Provide a detailed prompt for continuing our conversation above: what we did, what we're doing, "
           "which files we're working on and what comes next, since the new session will not see any of this."),
    (None, "Summarize our conversation above. This summary is the only context left when the conversation "
           "continues, so keep what was done, the work in progress, the files involved and the user's constraints."),
    (None, "<instructions>\nWrite a compact record of the session so far for the agent that takes over.\n"
           "</instructions>"),
    ("Your only job is to condense chat logs into notes another agent can resume from.", "Here you go."),
    (None, "Please write up everything above as a status report I can hand to the next agent."),
    (None, "tl;dr the above pls"),
    (None, "Create a checkpoint of this session: goal, progress, files, constraints and the next step."),
    (None, "Boil all of this down for me."),
    (None, "Recap what's happened in this thread, inside a <recap> block."),
    ("You are a summarization assistant.", "Please proceed."),
    (None, "Condense it for the next model."),
    ("You write hand-off notes. The user will paste a conversation; reply with the notes only.", "Ready?"),
]

# the same requests with the conversation pasted inside the turn, in label styles a harness may use
TRANSCRIPT_STYLES = [
    "=== TRANSCRIPT ===\n### Human\n{user}\n### Assistant\n{assistant}\n=== END ===\n\n"
    "Distill this into the key facts, the files and the open task.",
    "<chat>\nUSER >> {user}\nBOT >> {assistant}\n</chat>\nSummarize the chat above.",
    "Conversation log:\n[0] user: {user}\n[1] assistant: {assistant}\n\nWrite a summary of this log.",
    "Q: {user}\nA: {assistant}\n\nPlease recap this exchange.",
    "me: {user}\nyou: {assistant}\n\nsum that up",
]

# --- continuation messages: a summary handed over, then "go on" (the test fills in the fake's own summary) -----
CONTINUATIONS = [
    "The conversation so far was summarized to save space.\n<summary>\n{summary}\n</summary>\nPick up where you "
    "left off.",
    "Context was reset. Here is what you need to know from before:\n\n{summary}\n\nContinue with the task.",
    "[Earlier turns were compacted]\n{summary}\nGo on with the current request.",
    "Previously:\n{summary}\n\nResume the work, please.",
    "Here is a summary of the work so far, prepared by another instance of you:\n{summary}\nKeep going from the "
    "next step.",
]

# --- tools by what they do: definitions named and shaped unlike the course's --------------------------------------


def _tool(name: str, description: str, **properties: str) -> dict:
    required = [p.rstrip("?") for p in properties if not p.endswith("?")]
    props = {p.rstrip("?"): {"type": kind} for p, kind in properties.items()}
    return {"name": name, "description": description,
            "input_schema": {"type": "object", "properties": props, "required": required}}


READ_TOOLS = [
    _tool("view_file", "Show the contents of a file.", filepath="string"),
    _tool("open", "Open a text file and return what it holds.", target="string"),
    _tool("fs_read", "Filesystem: read.", file="string"),
    _tool("cat", "Print a file.", filename="string"),
    _tool("readFile", "Reads a file from disk.", absolutePath="string"),
    _tool("get_file_contents", "Fetch the text of one file in the repository.", relative_path="string"),
]
EDIT_TOOLS = [  # (editing tool, a read tool to pair it with)
    (_tool("replace_in_file", "Replace one piece of text in a file.", path="string", search="string",
           replace="string"), READ_TOOLS[0]),
    (_tool("apply_edit", "Edit a file: swap the before text for the after text.", file="string", before="string",
           after="string"), READ_TOOLS[2]),
    (_tool("modify", "Change one exact snippet of a file into another.", filename="string", find="string",
           replace_with="string"), READ_TOOLS[3]),
    (_tool("create_file", "Write a file with the given text, replacing it if it exists.", file_path="string",
           file_text="string"), READ_TOOLS[1]),
    (_tool("save", "Save data to a path.", path="string", data="string"), READ_TOOLS[5]),
]
LIST_TOOLS = [
    _tool("ls", "List a directory.", dir="string"),
    _tool("list_directory", "Return the entries of a folder.", directory="string"),
    _tool("find_files", "Find files whose names match a glob.", glob="string"),
]
RUN_TOOLS = [
    _tool("shell", "Run a shell command.", cmd="string"),
    _tool("execute_command", "Execute a CLI command in the workspace.", command="string"),
    _tool("run_terminal_cmd", "Run a command in the terminal.", command="string", is_background="boolean"),
]

# --- ordinary conversation ---------------------------------------------------------------------------------------
GREETINGS = ["hello!", "Hey there", "good morning", "hi claude", "Hiya, how's it going?", "Greetings."]

# a rule about tools/, in other words; the test then asks "What did I tell you about tools/?" and for an edit there
RULES = [
    "Never touch tools/ again.",
    "Leave tools/ alone from here on, it's vendored.",
    "Rule: files under tools/ are read-only.",
    "Please don't edit tools/ any more.",
    "Hands off tools/ — it's vendored.",
    "Do not ever change anything in tools/.",
]

# answer from what is visible, never with a tool
FROM_MEMORY = [
    f"Without looking at the file again, what's VERSION_TAG in {S01}?",
    f"Don't reread it: from what you remember, what is VERSION_TAG in {S01}?",
    f"Off the top of your head, the version tag of {S01}?",
    f"No tools please: what's the VERSION_TAG in {S01}?",
    f"From what you already saw, what is VERSION_TAG in {S01}?",
]

# tasks that mention summarising a file or code: still tasks, never summary requests
NOT_SUMMARIES = [
    "Summarise tools/t01_read.py for me.",
    "Condense the README.",
    "Give me the gist of core/c06_storage.py.",
    "Write a summary of what each module in plugins/ does.",
    "Recap the changes in agents/s03_todo_write.py.",
]
