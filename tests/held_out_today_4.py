"""The fourth held-out set of phrasings for issue 31 (a model as they are today). It was written during this round's
rule changes, by someone who did not read the rules that read requests, and it was never used to tune them:
tests/test_held_out_today.py runs it through the real SDK and reports how many hold.

The lists have the names and shapes of tests/held_out_today_3.py (the third held-out set) but none of the words
of any earlier set: no phrasing here repeats or lightly edits one of theirs. Each is something a person, a
student or another harness (Claude Code, Codex CLI, Gemini CLI, OpenCode, Aider, LangChain, LlamaIndex, Cursor,
Cline, Goose, Continue, AutoGen, CrewAI, smolagents, Semantic Kernel, Haystack...) might send; the styles are
theirs, the words are ours, and no string is copied from a real system's prompt. Some are easy and some are hard,
but a competent model would understand every one."""
from __future__ import annotations

from held_out_today import S01, _tool  # the same file, and tool definitions built the same way

# --- summary requests as other harnesses send them (the conversation comes before, or inside) -----------------
# (system prompt or None, the last user turn); the test puts the long session's first requests before it
SUMMARY_REQUESTS = [
    (None, "i have to switch laptops. can you jot down a summary of this chat so far so i can paste it on the "
           "other one?"),
    ("You are a history reducer. When asked, rewrite the chat history as a shorter summary that preserves the "
     "user's intents, the results of any tool calls, and whatever is still unresolved.",
     "Reduce the chat history now."),
    (None, "Please summarize the conversation we've been having. Focus on my requests and the results you got, "
           "and leave out the small talk."),
    ("You take part in a group chat of agents. When the chat manager asks you to reflect, you report the "
     "takeaways of the whole discussion.",
     "Chat manager: reflect on the group chat so far and give the next speaker a summary of it."),
    (None, "[auto-compact] Context usage has reached 92%. Produce a summary of the conversation to replace the "
           "message history, then stop."),
    (None, "hey, quick favor: what did we cover in this session? a short summary is fine"),
    ("You are a helpful assistant.",
     "Could you provide a concise summary of our conversation thus far, capturing the main requests and their "
     "outcomes?"),
    (None, "my teacher wants a summary of my chat with the AI for the assignment. can you summarize our "
           "conversation up to now?"),
    (None, "Write the summary of this session that you would want to read if you woke up with no memory of it "
           "and had to carry on the work."),
    ("Summaries you write must name every file and function that came up, and must not end with a conclusion, "
     "because the conversation goes on after them.", "Summarize the conversation so far."),
    (None, "Summarize our conversation as a markdown table with one row per thing I asked: the request, what "
           "you found, and whether it is done."),
    ("You are the memory manager of a code agent. Your summaries replace the agent's step history, so nothing "
     "it needs in order to continue may be lost.",
     "The step log is too long. Replace it with a summary of everything that has happened in this conversation."),
]

# the same requests with the conversation pasted inside the turn, in label styles a harness may use
TRANSCRIPT_STYLES = [
    '[{{"role": "user", "content": "{user}"}}, {{"role": "assistant", "content": "{assistant}"}}]\n\n'
    "Summarize the conversation in this messages array.",
    "<s>[INST] {user} [/INST] {assistant}</s>\n\nThe text above is a chat transcript. Write a summary of it.",
    "Please summarize this Gemini chat:\n\nuser: {user}\nmodel: {assistant}",
    "Student: {user}\nTutor: {assistant}\n\nWrite a short summary of this tutoring exchange.",
    "[09:14] You: {user}\n[09:14] Claude: {assistant}\n\nCould you give me a summary of that conversation?",
    'This CSV is an export of a conversation. Summarize the conversation.\n\nrole,text\nuser,"{user}"\n'
    'assistant,"{assistant}"',
]

# --- continuation messages: a summary handed over, then "go on" (the test fills in the fake's own summary) -----
CONTINUATIONS = [
    "This thread was started by a different assistant, whose progress notes follow.\n\n{summary}\n\nBuild on "
    "what it already did rather than starting over, and deal with the request that is still open.",
    "We are continuing a conversation that got too long for the context window. Its summary:\n{summary}\n"
    "Go on with the last task; there's no need to check with me first.",
    "{summary}\n\nk, continue",
    "<previous_session_summary>\n{summary}\n</previous_session_summary>\n<current_instruction>Resume and "
    "complete the outstanding request.</current_instruction>",
    "My laptop crashed and I lost the chat, but I saved this summary:\n\n{summary}\n\nCan we pick it back up "
    "from there?",
]

# --- tools by what they do: definitions named and shaped unlike the course's --------------------------------------
READ_TOOLS = [
    _tool("view", "View a file's contents. For a large file, pass start_line and end_line (1-based) to see only "
          "part of it.", **{"path_in_repo": "string", "start_line?": "integer", "end_line?": "integer"}),
    _tool("FileReadTool", "Reads the content of a file and returns it as a string.", path_to_file="string"),
    _tool("get_text", "Return the text of a workspace file. Set numbered to true to prefix each line "
          "with its number.", **{"which_file": "string", "numbered?": "boolean"}),
    _tool("read_document", "Load one document from local storage and return its text unchanged.",
          input_file="string"),
    _tool("contents_of", "What a file contains, as plain text.", file_ref="string"),
]
EDIT_TOOLS = [  # (editing or writing tool, a read tool to pair it with)
    (_tool("file_edit", "Modify a file by replacing the text in `existing` with `replacement`. The existing text "
           "must match character for character, whitespace included.", pathname="string", existing="string",
           replacement="string"), READ_TOOLS[0]),
    (_tool("substitute", "Substitute one literal occurrence of a string in a file with another string (no "
           "regular expressions).", **{"in_file": "string", "literal": "string", "substitution": "string",
                                      "count?": "integer"}), READ_TOOLS[2]),
    (_tool("save_file_as", "Write the given text to a file, replacing its previous contents entirely.",
           file_name="string", new_contents="string"), READ_TOOLS[1]),
    (_tool("put", "Put a complete document at a location in the workspace, overwriting anything already there.",
           where="string", what="string"), READ_TOOLS[4]),
]
LIST_TOOLS = [
    _tool("folder_contents", "Returns the names of the files and folders directly inside the given folder.",
          in_folder="string"),
    _tool("find_by_glob", "Expand a glob such as **/*.py relative to the repository root and return the matching "
          "paths.", glob_string="string"),
    _tool("enumerate", "Enumerate the files in a directory of the codebase.", directory_path="string"),
]
RUN_TOOLS = [
    _tool("shell_exec", "Executes a command in a POSIX shell and returns its combined output.",
          **{"cmd_string": "string", "timeout?": "number"}),
    _tool("ExecuteCommand", "Runs a command line in the user's terminal. Use it for builds, tests, git and file "
          "utilities.", **{"the_command": "string", "requires_approval?": "boolean"}),
    _tool("sh", "Run one line with /bin/sh from the project root and return what it printed.", line="string"),
]

# --- ordinary conversation ---------------------------------------------------------------------------------------
GREETINGS = ["Hi!", "hey hey", "What's up?", "Hello, friend.", "hi hi, how have you been?", "Hi, I'm new here 🙂"]

# a rule about tools/, in other words; the test then asks "What did I tell you about tools/?" and for an edit there
RULES = [
    "New rule for this project: anything inside tools/ must stay untouched.",
    "Please treat every file in tools/ as locked; no changes there.",
    "tools/ is owned by the infra team, so don't make any modifications in it.",
    "Just so you know, I never want you to change the files under tools/.",
    "my professor said we can't change the tools/ folder, so please don't edit anything in there",
    "Whatever happens, leave the contents of tools/ unmodified.",
]

# answer from what is visible, never with a tool
FROM_MEMORY = [
    f"No need to open {S01} a second time; what VERSION_TAG did it have?",
    f"Earlier in this chat you looked up VERSION_TAG in {S01}. What was the value? Just answer from that.",
    f"Recall only, no tool use: VERSION_TAG for {S01}.",
    f"Per your previous answer, what is {S01}'s VERSION_TAG? Don't check again.",
    f"I forgot what you told me. What VERSION_TAG does {S01} declare? You don't need to look it up again.",
]

# tasks that mention summarising a file or code: still tasks, never summary requests
NOT_SUMMARIES = [
    "Summarize this file: plugins/p09_release.py",
    "Could you condense core/c08_sandbox.py into a few bullet points?",
    "Write a brief synopsis of agents/s04_subagent.py that I can put in the docs.",
    "Look through core/c11_scheduler.py and explain its scheduling policy in a short summary.",
    "I need a quick rundown of tools/t07_diff.py and tools/t08_tests.py: what does each one do?",
]
