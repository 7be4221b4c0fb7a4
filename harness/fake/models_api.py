"""``GET /v1/models`` and ``GET /v1/models/{id}``: the model table as the Models API serves it (chapter 00).

The SDK's ``client.models.list()`` / ``.retrieve()`` parse ``ModelInfo``, ``client.beta.models``
``BetaModelInfo`` (``anthropic/types/model_info.py``, ``beta/beta_model_info.py``); both send the same
request, the beta one with its ``betas`` as the ``anthropic-beta`` header. Every field the two declare is
sent, from ``core.models.MODELS``:

- the list holds the models newest first (the API: "More recently released models are listed
  first"), in the order of the SDK's ``ModelParam``, which is newest first; an alias with a dated
  twin (``claude-haiku-4-5`` and ``claude-haiku-4-5-20251001``) is listed once, as the dated id, and
  ``retrieve`` resolves the alias to it ("resolve a model alias to a model ID", the SDK's docstring);
- pages as the SDK's ``SyncPage`` reads them: ``limit`` (default 20, 1 to 1,000), ``after_id`` /
  ``before_id``, ``has_more``, ``first_id``, ``last_id``; ``lifecycle`` filters (``active`` and
  ``deprecated`` by default). A model is ``deprecated`` when the SDK's ``deprecated_models`` gives
  it a retirement date (``retires_at``), else ``active``: with no clock, none is ``retired``;
- ``created_at`` is the release date where a page gives it, else the epoch, as the type allows
  ("May be set to an epoch value if the release date is unknown"); ``deprecated_at`` is null: the
  SDK gives the retirement, not the deprecation, date (unverified);
- ``capabilities``: thinking (its types from the table, ``between_tools`` by *this fake*'s rule there),
  ``context_management`` (both clearing edits on every model, ``compact_20260112`` where the table
  says), and ``compaction`` (``summarize``, the same models) when the request sends the beta header
  ``compact-2026-09-04`` ("call the Models API with the beta header and read capabilities.compaction",
  https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand). The rest is *this
  fake*'s rule, unverified model by model: batch, citations, image and PDF input, structured outputs,
  code execution and the server tools true for every model (the models overview: every current
  model takes text and images and uses tools); effort (low, medium, high, max; ``xhigh`` false) where
  thinking is adaptive. ``allowed_fallback_models`` (``BetaModelInfo``) is empty: the fake serves no
  ``fallbacks`` (sent whatever the headers; unverified).

Errors: an unknown id is a 404 ``not_found_error`` (``model: <id>``, as a Messages request naming it
gets); a ``limit`` out of range, a cursor naming no listed model, both cursors, or an unknown lifecycle
is a 400 whose wording is *this fake*'s.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from ..core.models import DATED, MODELS, Model
from .rejection import RequestRejected, invalid

EPOCH = "1970-01-01T00:00:00Z"
SUMMARIZE_BETA = "compact-2026-09-04"  # on-demand compaction's beta: capabilities.compaction is sent with it
LIFECYCLES = ("active", "deprecated", "retired")
ALIASES = {DATED.sub("", model): model for model in MODELS  # alias -> its dated id
           if DATED.search(model) and DATED.sub("", model) in MODELS}
LISTED_MODELS = [model for model in MODELS if model not in ALIASES]


def serve_models(path: str, query: bytes, betas: str = "") -> dict[str, Any]:
    """The JSON body for ``path`` (``/v1/models`` or ``/v1/models/<id>``), its query string and its
    ``anthropic-beta`` header; or RequestRejected."""
    params: dict[str, list[str]] = {}
    for key, value in parse_qsl(query.decode("utf-8", "replace"), keep_blank_values=True):
        params.setdefault(key.removesuffix("[]"), []).append(value)
    beta = SUMMARIZE_BETA in {name.strip() for name in betas.split(",")}
    if path.rstrip("/") == "/v1/models":
        return model_page(params, beta)
    model = path.removeprefix("/v1/models/")
    model = ALIASES.get(model, model)
    if model not in MODELS:
        raise RequestRejected(404, "not_found_error", f"model: {model}")
    return model_info(model, beta)


def model_page(params: dict[str, list[str]], beta: bool) -> dict[str, Any]:
    """One page of the list, as ``SyncPage`` reads it."""
    limit = params.get("limit", ["20"])[-1]
    if not limit.isdigit() or not 1 <= int(limit) <= 1000:
        raise invalid("limit", "Input should be an integer from 1 to 1000")
    wanted = params.get("lifecycle") or ["active", "deprecated"]
    if unknown := sorted(set(wanted) - set(LIFECYCLES)):
        raise invalid("lifecycle", f"{unknown[0]!r} is not one of {list(LIFECYCLES)}")
    models = [model for model in LISTED_MODELS if lifecycle(MODELS[model]) in wanted]
    after, before = params.get("after_id", [None])[-1], params.get("before_id", [None])[-1]
    if after and before:
        raise invalid("after_id", "give after_id or before_id, not both")
    size = int(limit)
    if before:
        end = _cursor_index(models, before, "before_id")
        page, more = models[max(0, end - size):end], end > size
    else:
        start = _cursor_index(models, after, "after_id") + 1 if after else 0
        page, more = models[start:start + size], start + size < len(models)
    return {"data": [model_info(model, beta) for model in page], "has_more": more,
            "first_id": page[0] if page else None, "last_id": page[-1] if page else None}


def _cursor_index(models: list[str], cursor: str, field: str) -> int:
    if cursor not in models:
        raise invalid(field, f"no listed model has the id {cursor!r}")
    return models.index(cursor)


def lifecycle(spec: Model) -> str:
    return "deprecated" if spec.retires else "active"


def model_info(model: str, beta: bool = False) -> dict[str, Any]:
    """``BetaModelInfo`` (a ``ModelInfo`` and more) for a model of the table; ``beta``: with
    ``capabilities.compaction``."""
    spec = MODELS[model]
    return {
        "type": "model", "id": model, "display_name": spec.name, "line": spec.line,
        "created_at": f"{spec.released}T00:00:00Z" if spec.released else EPOCH,
        "lifecycle": lifecycle(spec), "deprecated_at": None,
        "retires_at": f"{spec.retires}T00:00:00Z" if spec.retires else None,
        "max_input_tokens": spec.window, "max_tokens": spec.max_output,
        "capabilities": capabilities(spec, beta), "allowed_fallback_models": [],
    }


def capabilities(spec: Model, beta: bool) -> dict[str, Any]:
    """Every capability the SDK's ``ModelCapabilities`` declares; ``beta``: and ``compaction``
    (``BetaModelCapabilities``)."""
    yes, no = {"supported": True}, {"supported": False}
    effort = "adaptive" in spec.thinking
    found: dict[str, Any] = {
        "batch": yes, "citations": yes, "code_execution": yes, "image_input": yes, "pdf_input": yes,
        "structured_outputs": yes,
        "server_tools": {"supported": True, "code_execution": yes, "web_search": yes},
        "context_management": {"supported": True, "clear_tool_uses_20250919": yes, "clear_thinking_20251015": yes,
                               "compact_20260112": yes if spec.compaction else no},
        "effort": {"supported": effort, **{level: {"supported": effort} for level in ("low", "medium", "high", "max")},
                   "xhigh": no},
        "thinking": {"supported": True, "types": {kind: {"supported": kind in spec.thinking}
                                                  for kind in ("adaptive", "enabled", "disabled", "between_tools")}},
    }
    if beta:
        found["compaction"] = {"supported": spec.compaction, "summarize": {"supported": spec.compaction}}
    return found
