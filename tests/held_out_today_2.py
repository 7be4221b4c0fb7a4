"""The second held-out set of phrasings for issue 31 (a model as they are today). It was written before this
round's rule changes, by someone who did not read the rules that read requests, and it was not used to tune
them: tests/test_held_out_today.py runs it through the real SDK and reports how many hold.

The lists have the names and shapes of tests/held_out_today.py (the first held-out set) but none of its words:
no phrasing here repeats or lightly edits one of the first set's. Each is something a person, a student or
another harness (Claude Code, Codex CLI, Gemini CLI, OpenCode, Aider, LangChain, LlamaIndex, Cursor, Cline,
AutoGen...) might send; the styles are theirs, the words are ours, and no string is copied from a real system's
prompt. Some are easy and some are hard, but a competent model would understand every one.

Measured before its misses were read (36 of 60 on the rules it was written against); this round then read
them, so it is training data now (tests/test_held_out_today.py says which sets are still held out)."""
from __future__ import annotations

from held_out_today import S01, _tool  # the same file, and tool definitions built the same way

# --- summary requests as other harnesses send them (the conversation comes before, or inside) -----------------
# (system prompt or None, the last user turn); the test puts the long session's first requests before it
SUMMARY_REQUESTS = [
    (None, "Our context window is almost full. Before it is cleared, write a summary of this conversation that "
           "covers the task, the decisions made, the files touched and anything still outstanding."),
    ("You compress long agent sessions into short briefs that a fresh agent can work from.",
     "Go ahead and write the brief for everything above."),
    (None, "<task>\nSummarize the preceding dialogue between the user and the assistant.\n</task>\n"
           "<format>\nBullet points, at most ten.\n</format>"),
    (None, "Can you give me a quick rundown of what we've talked about so far?"),
    (None, "I'm going to start a fresh chat. Write me a handoff note about everything we discussed here so I can "
           "paste it in there."),
    ("When the user asks for it, write a summary of the conversation history using exactly these headings:\n"
     "## Goal\n## Done so far\n## Next steps", "Please do that now."),
    (None, "Give me the short version of this whole back-and-forth."),
    (None, "Compact our conversation: keep my requests, the answers you found and any rules I set, and drop "
           "everything else."),
    ("You are the memory component of a coding agent. When a session grows too long, you replace it with a "
     "condensed history that keeps everything needed to continue.",
     "The session has grown too long. Write the condensed history now."),
    (None, 'Summarize everything we have done so far as JSON with the keys "goal", "done", "files" and "next".'),
    (None, "Write a short summary of the chat so far, in the first person as if you were me, with more detail "
           "on the recent messages than on the early ones."),
    (None, "Produce a <state_snapshot> of our session so far, with <overall_goal>, <key_knowledge>, "
           "<file_system_state> and <next_steps> sections."),
]

# the same requests with the conversation pasted inside the turn, in label styles a harness may use
TRANSCRIPT_STYLES = [
    "**User:** {user}\n\n**Assistant:** {assistant}\n\nCan you summarize this conversation?",
    "Summarise the following session log.\n\n[2024-05-14 10:02:11] user: {user}\n"
    "[2024-05-14 10:02:19] assistant: {assistant}",
    "messages:\n- role: user\n  content: {user}\n- role: assistant\n  content: {assistant}\n\n"
    "Summarize these messages.",
    '<conversation>\n<message role="user">{user}</message>\n<message role="assistant">{assistant}</message>\n'
    "</conversation>\n\nPlease write a summary of the conversation above.",
    "Human: {user}\n\nAssistant: {assistant}\n\nSummarize the dialogue above in a few bullet points.",
    "Here is a chat I had with an AI assistant; give me a summary of it.\n\n"
    "Turn 1, User:\n{user}\n\nTurn 1, Assistant:\n{assistant}",
]

# --- continuation messages: a summary handed over, then "go on" (the test fills in the fake's own summary) -----
CONTINUATIONS = [
    "We ran out of room in the last chat, so here are the notes from it:\n\n{summary}\n\nCarry on from there.",
    "<handoff>\n{summary}\n</handoff>\n\nYou are taking over this task from another agent. Continue with "
    "whatever was in progress.",
    "Summary of prior work (auto-generated):\n---\n{summary}\n---\nProceed with the next step.",
    "{summary}\n\nThat is where things stood. Please finish what was left open.",
    "Hi again! To refresh your memory, this is what we did last time:\n{summary}\nLet's continue where we stopped.",
]

# --- tools by what they do: definitions named and shaped unlike the course's --------------------------------------
READ_TOOLS = [
    _tool("read_text", "Return the UTF-8 text stored at the given path.", location="string"),
    _tool("load_document", "Load a document from the workspace and give back its full text.", doc_path="string"),
    _tool("peek", "Look inside a file and return its lines.", uri="string"),
    _tool("ReadFileTool", "Use this to see what a source file contains before answering questions about it.",
          source="string"),
    _tool("show-source", "Display the source code of a module file.", module_file="string"),
]
EDIT_TOOLS = [  # (editing or writing tool, a read tool to pair it with)
    (_tool("str_replace", "Swap an exact, unique string in a file for a new string.", target_file="string",
           old_string="string", new_string="string"), READ_TOOLS[0]),
    (_tool("patch_file", "Patch a file by substituting the original snippet with the updated one.",
           file_location="string", original="string", updated="string"), READ_TOOLS[2]),
    (_tool("overwrite", "Overwrite a file with completely new contents.", dest="string", contents="string"),
     READ_TOOLS[1]),
    (_tool("put_file", "Store text as the complete new body of a file, creating it if it does not exist.",
           destination="string", text="string"), READ_TOOLS[4]),
]
LIST_TOOLS = [
    _tool("dir_entries", "Show what is inside a directory.", folder_path="string"),
    _tool("browse", "Browse the workspace: returns the children of the given folder.",
          relative_workspace_path="string"),
    _tool("glob_search", "Return every file path matching a shell-style pattern such as src/**/*.ts.",
          glob_pattern="string"),
]
RUN_TOOLS = [
    _tool("exec_shell", "Execute a shell command and return its stdout and stderr.", command_line="string",
          timeout_seconds="integer"),
    _tool("Terminal", "Runs the given command line in a terminal at the project root and returns what it printed.",
          cmdline="string"),
    _tool("sandbox_exec", "Spawn a process with /bin/sh -c in the sandbox and capture its output.", script="string",
          capture_stderr="boolean"),
]

# --- ordinary conversation ---------------------------------------------------------------------------------------
GREETINGS = ["yo!", "Hey, you around?", "Good evening :)", "Howdy", "Hello there, nice to meet you.",
             "hi, hope you're doing well"]

# a rule about tools/, in other words; the test then asks "What did I tell you about tools/?" and for an edit there
RULES = [
    "Nothing in the tools/ directory may be modified.",
    "From this point on, do not write to any file inside tools/.",
    "Treat tools/ as off-limits for edits.",
    "You must never alter files in tools/, even if I ask you to later.",
    "Keep your changes out of tools/; that folder belongs to another team.",
    "IMPORTANT: NEVER modify anything under tools/.",
]

# answer from what is visible, never with a tool
FROM_MEMORY = [
    f"You told me earlier what VERSION_TAG is in {S01}; what was it again? Don't open the file.",
    f"Quick check from the conversation above, no file access needed: VERSION_TAG of {S01}?",
    f"What did you say VERSION_TAG was in {S01}? Answer from the earlier output and don't call any tool.",
    f"Using only what's in our chat so far, what is the VERSION_TAG in {S01}?",
    f"Remind me what VERSION_TAG is set to in {S01}; there's no need to check the file again.",
]

# tasks that mention summarising a file or code: still tasks, never summary requests
NOT_SUMMARIES = [
    "Give me a one-paragraph overview of what plugins/p01_lint.py does.",
    "Can you summarize the code in core/c03_tokens.py?",
    "TL;DR of agents/s02_tool_use.py please.",
    "Read tools/t02_write.py and condense its logic into three bullet points.",
    "Briefly describe each file under tools/, one line apiece, like a summary table.",
]
