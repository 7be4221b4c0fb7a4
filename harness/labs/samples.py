"""Chapter 01's two paragraphs, one text in English and in Chinese (written for the course), on which the
seed's estimate and cl100k are compared. Shared with the chapter's solutions, which check its exercises."""
from __future__ import annotations

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
