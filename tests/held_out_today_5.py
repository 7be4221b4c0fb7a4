"""The fifth held-out set of phrasings for issue 31 (a model as they are today). It was written by someone who did
not read the rules that read requests (nor their tests, their misses or their history), and it was never used
to tune them: tests/test_held_out_today.py can run it through the real SDK to measure the held-out rate, and to
see whether the fake flags the phrasings it misreads.

The lists have the names and shapes of tests/held_out_today_4.py (the fourth held-out set) but none of the words
of any earlier set: no phrasing here repeats or lightly edits one of theirs. Each is something a person, a
student or another harness (Claude Code, Codex CLI, Gemini CLI, OpenCode, Aider, LangChain, LlamaIndex, Cursor,
Cline, Goose, Continue, AutoGen, CrewAI, smolagents, Semantic Kernel, Haystack, a homework notebook...) might
send; the styles are theirs, the words are ours, and no string is copied from a real system's prompt. More of
the summary requests than before are the plain words a first-year student writes in their own compaction
prompt. Some are easy and some are hard, but a competent model would understand every one."""
from __future__ import annotations

from held_out_today import S01, _tool  # the same file, and tool definitions built the same way

# --- summary requests as other harnesses send them (the conversation comes before, or inside) -----------------
# (system prompt or None, the last user turn); the test puts the long session's first requests before it
SUMMARY_REQUESTS = [
    (None, "ok can you summarise everything we talked about so far"),
    ("You are a helpful assistant that summarises conversations.",
     "Summarise the messages above in one paragraph."),
    (None, "Make a summary of our chat. Keep it short, but don't leave out any file names."),
    (None, "Write a summary of the conversation so far. The summary will replace the old messages, so include "
           "everything important."),
    (None, "Your context is about to be trimmed. Before that happens, summarise the work in this conversation: "
           "the user's explicit requests, the files you read and what was in them, any errors, and the step you "
           "were on."),
    ("You maintain the memory of a chatbot. You are given the current summary and asked to fold the latest "
     "conversation into it, returning the new summary only.",
     "Current summary: nothing yet.\nFold in the conversation above and give me the new summary."),
    ("You summarise pair-programming chats between a programmer and an AI. Write the summary as a list of what "
     "the programmer asked and what the AI answered, oldest first.",
     "Now do it for our chat."),
    (None, "for exercise 3 I have to hand in a summary of our conversation. can you make one for me, in bullet "
           "points?"),
    (None, "Fass bitte unser bisheriges Gespräch kurz zusammen."),
    ("Read the conversation and write a short summary of it. Keep the facts, drop the chit-chat.",
     "summary please"),
    (None, "Provide a summary of our session to date. Be specific about which files were opened and which "
           "questions were answered, and note what the user wants done next."),
    (None, "Can you make a short summary of everything above?"),
]

# the same requests with the conversation pasted inside the turn, in label styles a harness may use
TRANSCRIPT_STYLES = [
    "User says: {user}\nAssistant says: {assistant}\n\nsummarise the conversation above please",
    'Summarize these chat messages:\nChatMessage(role=MessageRole.USER, content="{user}")\n'
    'ChatMessage(role=MessageRole.ASSISTANT, content="{assistant}")',
    "Could you write a short summary of this Slack thread?\n\n@dev: {user}\n@assistant-bot: {assistant}",
    "Here is the message list from my agent run:\n{{'name': 'user_proxy', 'content': '{user}'}}\n"
    "{{'name': 'assistant', 'content': '{assistant}'}}\n\nPlease summarize the conversation between the two "
    "agents.",
    "Conversation:\nUser: {user}\nAssistant: {assistant}\n\nSummary:",
    "> **Me:** {user}\n>\n> **AI:** {assistant}\n\nsummarize our conversation (the quoted part) in 3 bullet "
    "points",
]

# --- continuation messages: a summary handed over, then "go on" (the test fills in the fake's own summary) -----
CONTINUATIONS = [
    "Here's the summary of our earlier chat:\n{summary}\nNow let's go on with it. Do the next thing that was "
    "still open.",
    "[SYSTEM NOTE] Older messages were removed to save tokens and replaced with this summary:\n{summary}\n"
    "[END NOTE]\nContinue helping the user with their current request.",
    "memory.md\n```\n{summary}\n```\nThat's the memory file from your last run. Resume the task it describes.",
    "{summary}\n\nAbove is everything you need from the previous session. Please answer the question that was "
    "still unanswered.",
    "Sorry, I had to restart the notebook. The summary of our chat is:\n{summary}\nCan you continue with what "
    "you were doing?",
]

# --- tools by what they do: definitions named and shaped unlike the course's --------------------------------------
READ_TOOLS = [
    _tool("read_file_content", "Read and return the full text of a file, given its path relative to the "
          "workspace root.", file_relpath="string"),
    _tool("getFileText", "Gets the text of a file. Returns an error if the file does not exist.",
          filePath="string"),
    _tool("show", "Show a file's text, optionally only its first N lines.",
          **{"name_of_file": "string", "head?": "integer"}),
    _tool("read_source", "Returns the source text of a file in the repo so you can answer questions about it.",
          src_path="string"),
    _tool("load", "Load a text file from disk and return its contents. The encoding defaults to utf-8.",
          **{"fs_path": "string", "encoding?": "string"}),
]
EDIT_TOOLS = [  # (editing or writing tool, a read tool to pair it with)
    (_tool("edit_text", "In the given file, replace the first occurrence of `find_text` with `new_text`.",
           path_of_file="string", find_text="string", new_text="string"), READ_TOOLS[0]),
    (_tool("applyChange", "Applies a change to a file: the snippet `from` is replaced by the snippet `to`. "
           "`from` must appear in the file exactly once.", **{"fileUri": "string", "from": "string",
                                                              "to": "string"}), READ_TOOLS[1]),
    (_tool("write_to_disk", "Write text to a file on disk. Creates the file if needed and overwrites it "
           "otherwise.", target_path="string", file_content="string"), READ_TOOLS[3]),
    (_tool("store_document", "Store a full document at the given path, replacing the old version if any.",
           doc_location="string", document="string"), READ_TOOLS[4]),
]
LIST_TOOLS = [
    _tool("ls_folder", "List the names of the entries inside a folder (not recursive).", folder="string"),
    _tool("match_paths", "Return all repository paths matching a wildcard pattern, e.g. src/*.py or "
          "docs/**/*.md.", pattern="string"),
    _tool("directory_listing", "Get a listing of a directory: its files and subdirectories, one per line.",
          **{"dir_path": "string", "show_hidden?": "boolean"}),
]
RUN_TOOLS = [
    _tool("run_shell_command", "Run a command with bash in the workspace and return stdout, stderr and the exit "
          "status.", **{"command_text": "string", "timeout_sec?": "integer"}),
    _tool("terminal_run", "Send one command to the terminal, wait for it to finish and return the output.",
          invocation="string"),
    _tool("exec", "Execute the given shell command line. Output longer than 10,000 characters is truncated.",
          **{"shell_line": "string", "background?": "boolean"}),
]

# --- ordinary conversation ---------------------------------------------------------------------------------------
GREETINGS = ["Hello hello!", "hey, good to see you", "Hi there! Hope your day is going well.", "Evening!", "heya",
             "Hey! 😊"]

# a rule about tools/, in other words; the test then asks "What did I tell you about tools/?" and for an edit there
RULES = [
    "Please keep away from tools/ when you make changes: no edits in that folder at all.",
    "Policy: tools/** is protected. Edits to paths under it are not allowed.",
    "My instructor gave us the tools/ directory as-is and we're not allowed to modify it, so don't.",
    "Do not make changes to tools/. Not even small ones.",
    "Remember this for the whole chat: the files under tools/ must not be edited.",
    "You can read tools/ if you need to, but writing to it is forbidden.",
]

# answer from what is visible, never with a tool
FROM_MEMORY = [
    f"You've seen {S01} already in this chat. Without another read, tell me its VERSION_TAG.",
    f"What VERSION_TAG was in {S01}? Please just use what you found before instead of opening it again.",
    f"From your memory of this conversation only: {S01}, VERSION_TAG?",
    f"Don't use any tools for this one. The VERSION_TAG in {S01}, as you saw it earlier, is what?",
    f"Can you repeat the VERSION_TAG of {S01} that came up before? No need to go back to the file.",
]

# tasks that mention summarising a file or code: still tasks, never summary requests
NOT_SUMMARIES = [
    "Summarise agents/s03_todo_write.py in plain English for a beginner.",
    "Please give me a summary of the functions in core/c04_transport.py, one line per function.",
    "Write a short summary of plugins/p05_cache.py that I can paste into the README.",
    "Can you summarize how tools/t01_read.py and tools/t02_write.py differ?",
    "I haven't read agents/s04_subagent.py yet. Could you give me a brief summary of it first?",
]
