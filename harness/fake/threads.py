"""Message threads, served offline: the server keeps a conversation between turns (chapter 10).

A request with ``thread: {"type": "create"}`` is served as usual and its conversation, reply
included, is kept under the response's ``id``; one with ``{"type": "continue",
"previous_message_id": ...}`` sends only the new messages, without ``system`` and ``tools``, and is
served as the whole conversation rebuilt: the kept request's fields, its messages, its reply, then
the new messages (https://platform.claude.com/docs/en/build-with-claude/message-threads; the SDK's
``BetaMessageThreadParam``). The response is the usual message.

Why served rather than refused: the SDK's thread helper, ``client.beta.messages.thread(...)``, is
made with ``unsupported_request_behavior="error"`` by default, so a server that answered every thread
with ``thread_unsupported_request`` would make it raise on its first ``send()``; only the tool runner
(``"continue_unthreaded"``) falls back by itself (``anthropic/lib/threads/_beta_threads.py`` and
``_thread_state.py``, ``recovers_from``). Served, both run unmodified, and the fallback still has a
case: a thread with ``context_management`` (below).

The errors, each with the ``error_code`` the SDK types, so that it raises its class and the helper
recovers where it can:

- ``previous_message_id`` unknown: 404 ``thread_not_found`` (the helper replays the whole history
  under a new thread); already continued: 400 ``thread_already_continued`` (the docs: each response
  can be continued once);
- ``model`` not the one the thread was created with: 400 ``thread_fingerprint_mismatch`` naming it
  (which fields are fingerprinted is not public: *this fake* checks ``model``);
- ``system`` or ``tools`` on a continue: 400 naming the field (the SDK: the server "rejects if the
  request repeats them"; no ``error_code`` is typed for it);
- ``context_management`` with a thread: 400 ``thread_unsupported_request``, ``unsupported:
  ["context_management"]``. The SDK's ``ThreadUnsupportedFeatureName`` names it among the fields a
  thread may refuse; whether the API always does is not public. *This fake* does, so that no kept
  history is one the server edited or compacted;
- no ``anthropic-beta: message-threads-2026-08-12``: 400 naming ``thread``.

Not modelled: the 5-minute expiry and the 1-hour deletion (no clock), ``cache_control``'s limit of
four breakpoints on a thread. The wordings of these 400s and 404s are *this fake*'s.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.messages import EXTRA
from .rejection import RequestRejected, invalid

THREADS_BETA = "message-threads-2026-08-12"
CREATE_ONLY = ("system", "tools")               # the SDK's CREATE_ONLY_FIELDS (lib/threads/_thread_state.py)
UNTHREADED_FIELDS = ("context_management",)     # refused with a thread (this fake's choice, above)


@dataclass
class Kept:
    """One served turn of a thread: the whole request the model answered, and its reply's content."""
    body: dict[str, Any]
    reply: list[dict[str, Any]]
    continued: bool = False


@dataclass
class ThreadStore:
    """The threads of one fake server, by response id."""
    kept: dict[str, Kept] = field(default_factory=dict)

    def open(self, body: dict[str, Any], betas: str) -> tuple[dict[str, Any], str | None]:
        """(the whole request to serve, the id it continues or "" for a create, None unthreaded). ``body``
        without its ``thread``; RequestRejected for a thread the API would refuse."""
        if "thread" not in body:
            return body, None
        thread, body = body["thread"], {key: value for key, value in body.items() if key != "thread"}
        if thread is None:
            return body, None
        if THREADS_BETA not in {beta.strip() for beta in betas.split(",")}:
            raise invalid("thread", f"requires the anthropic-beta header {THREADS_BETA}")
        kind = thread.get("type") if isinstance(thread, dict) else None
        if kind not in ("create", "continue"):
            raise invalid("thread", "Input should be an object with a type of 'create' or 'continue'")
        if extra := sorted(set(thread) - {"type"} - ({"previous_message_id"} if kind == "continue" else set())):
            raise invalid(f"thread.{extra[0]}", EXTRA)
        if unsupported := [name for name in UNTHREADED_FIELDS if name in body]:
            raise RequestRejected(400, "invalid_request_error", "thread: a thread cannot be used with "
                                  + ", ".join(unsupported), code="thread_unsupported_request", unsupported=unsupported)
        if kind == "create":
            return body, ""
        previous = thread.get("previous_message_id")
        if not isinstance(previous, str):
            raise invalid("thread.previous_message_id", "Field required" if previous is None
                          else "Input should be a valid string")
        return self.rebuilt(body, previous), previous

    def rebuilt(self, body: dict[str, Any], previous: str) -> dict[str, Any]:
        """The whole conversation a continue stands for: the kept turn, its reply, then ``body``'s messages."""
        kept = self.kept.get(previous)
        if kept is None:
            raise RequestRejected(404, "not_found_error", f"thread: no thread holds the response {previous}",
                                  code="thread_not_found")
        if kept.continued:
            raise RequestRejected(400, "invalid_request_error", f"thread: the response {previous} was already "
                                  "continued; continue from the thread's latest response",
                                  code="thread_already_continued")
        for name in CREATE_ONLY:
            if name in body:
                raise invalid(name, "the thread keeps the one its create request sent; leave it out of a continue")
        if "model" in body and body["model"] != kept.body["model"]:
            raise RequestRejected(400, "invalid_request_error", f"thread: model differs from the thread's "
                                  f"({kept.body['model']})", code="thread_fingerprint_mismatch")
        messages = body.get("messages")
        if not isinstance(messages, list):
            return body  # the request's own checks name the fault
        reply = [{"role": "assistant", "content": kept.reply}] if kept.reply else []
        whole = {**body, "messages": [*kept.body["messages"], *reply, *messages]}
        whole.update({name: kept.body[name] for name in CREATE_ONLY if name in kept.body})
        return whole

    def keep(self, body: dict[str, Any], continues: str, response: dict[str, Any]) -> None:
        """Keep a served thread turn under its response id; mark the turn it continued (if any) continued."""
        if continues:  # it can be continued only once: what it kept is no longer needed
            self.kept[continues] = Kept({}, [], continued=True)
        self.kept[response["id"]] = Kept(body, response["content"])
