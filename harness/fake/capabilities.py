"""What a model lacks is a 400: each request is checked against its model's entry (chapter 00).

``core.models.MODELS`` says, per model, which ``thinking.type`` values it accepts and whether it
runs compaction. A request asking a model for more gets a 400 ``invalid_request_error``:

- ``thinking.type`` ``"enabled"`` on a model that accepts only adaptive thinking: the API's words,
  ``"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and
  "output_config.effort" to control thinking behavior.`` (quoted in handochan/aelix-ai#258 and
  Sylinko/Everywhere#410); ``"adaptive"`` on a model without it: ``adaptive thinking is not supported
  on this model`` (askalf/dario#273, anthropics/claude-code#89633). ``"disabled"`` on a model whose
  thinking is always on, and any other type the model lacks: *this fake*'s words, in the first form;
- the ``compact_20260112`` edit, or the top-level ``compaction`` parameter (on-demand compaction), on a
  model that does not run compaction: *this fake*'s words, naming the field and the model (the
  compaction page lists the models; the 400's wording is not public).

Only the request's values are read here; their shapes are ``request``'s to check, first.
"""
from __future__ import annotations

from typing import Any

from ..core.models import model_spec
from .rejection import RequestRejected, invalid

ENABLED_REFUSED = ('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
                   '"output_config.effort" to control thinking behavior.')
ADAPTIVE_REFUSED = "adaptive thinking is not supported on this model"


def check_capabilities(body: dict[str, Any]) -> None:
    """RequestRejected if ``body`` (a checked request of a known model) asks its model for what it lacks."""
    spec = model_spec(body["model"])
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if isinstance(kind, str) and kind not in spec.thinking:
        raise RequestRejected(400, "invalid_request_error", ENABLED_REFUSED if kind == "enabled"
                              and "adaptive" in spec.thinking else ADAPTIVE_REFUSED if kind == "adaptive"
                              else f'"thinking.type.{kind}" is not supported for this model.')
    if spec.compaction:
        return
    managed = body.get("context_management")
    edits = managed.get("edits") if isinstance(managed, dict) else None
    for n, edit in enumerate(edits if isinstance(edits, list) else []):
        if isinstance(edit, dict) and edit.get("type") == "compact_20260112":
            raise invalid(f"context_management.edits.{n}.type",
                          f"'compact_20260112' is not supported on {body['model']}")
    if body.get("compaction") is not None:
        raise invalid("compaction", f"on-demand compaction is not supported on {body['model']}")
