"""The models, from the SDK (harness/core/models.py): the table holds exactly what ``ModelParam`` names, marks what
``deprecated_models`` retires, and the fake serves it as ``client.models.list()`` / ``.retrieve()`` (and beta) parse
it (harness/fake/models_api.py); a feature a model lacks is a 400 (harness/fake/capabilities.py)."""
from __future__ import annotations

import datetime
import re
import typing

import anthropic
import pytest
from anthropic._data.deprecated_models import DEPRECATED_MODELS
from anthropic.types import ModelParam

from harness import context_window, max_output, user
from harness.core.models import MODELS
from harness.fake import FakeModel, fake_client
from harness.fake.capabilities import ADAPTIVE_REFUSED, ENABLED_REFUSED, check_capabilities
from harness.fake.models_api import ALIASES, LISTED_MODELS
from harness.fake.rejection import RequestRejected

NAMED = typing.get_args(typing.get_args(ModelParam)[0])


def test_the_table_is_the_sdks_model_list_in_its_order():
    assert list(MODELS) == list(NAMED)


def test_the_deprecated_models_carry_the_sdks_retirement_dates():
    retiring = {model: spec.retires for model, spec in MODELS.items() if spec.retires}
    assert set(retiring) == set(DEPRECATED_MODELS)
    for model, day in DEPRECATED_MODELS.items():  # "June 30th, 2026"
        parsed = datetime.datetime.strptime(re.sub(r"(\d)(st|nd|rd|th),", r"\1,", day), "%B %d, %Y").date()
        assert retiring[model] == parsed.isoformat(), model


def test_every_model_has_its_numbers_and_a_source():
    for model, spec in MODELS.items():
        assert 0 < spec.max_output < spec.window and spec.source and spec.thinking <= {
            "adaptive", "enabled", "disabled", "between_tools"}, model
        assert ("between_tools" in spec.thinking) == ("disabled" in spec.thinking)  # this fake's rule
        assert (context_window(model), max_output(model)) == (spec.window, spec.max_output)
    assert [m for m, spec in MODELS.items() if not spec.compaction] == [
        "claude-haiku-4-5", "claude-haiku-4-5-20251001", "claude-opus-4-5", "claude-opus-4-5-20251101"]


# --- GET /v1/models ---------------------------------------------------------------------------------------

def test_the_list_pages_through_every_model_newest_first():
    client = fake_client()
    everything = list(client.models.list(limit=4))  # the SDK follows last_id from page to page
    assert [m.id for m in everything] == LISTED_MODELS and len(LISTED_MODELS) == len(NAMED) - len(ALIASES)
    page = client.models.list(limit=4)
    assert (page.has_more, page.first_id, page.last_id) == (True, LISTED_MODELS[0], LISTED_MODELS[3])
    last = client.models.list(limit=4, after_id=LISTED_MODELS[-3])
    assert [m.id for m in last.data] == LISTED_MODELS[-2:] and last.has_more is False
    before = client.models.list(limit=2, before_id=LISTED_MODELS[5])
    assert [m.id for m in before.data] == LISTED_MODELS[3:5] and before.has_more is True


def test_the_lifecycle_filter_and_the_deprecated_models():
    client = fake_client()
    deprecated = [m for m in client.models.list(lifecycle=["deprecated"], limit=100)]
    assert [m.id for m in deprecated] == ["claude-mythos-preview", "claude-opus-4-5-20251101"]
    assert deprecated[0].retires_at == datetime.datetime(2026, 6, 30, tzinfo=datetime.timezone.utc)
    assert all(m.lifecycle == "deprecated" for m in deprecated)
    assert list(client.models.list(lifecycle=["retired"])) == []  # no clock: none has retired
    assert {m.lifecycle for m in client.models.list(lifecycle=["active"], limit=100)} == {"active"}


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-fable-5-2", "claude-sonnet-4-6", "claude-opus-5"])
def test_retrieve_serves_the_tables_numbers_and_capabilities(model):
    info = fake_client().models.retrieve(model)
    spec = MODELS[model]
    assert info.id == ALIASES.get(model, model)  # an alias resolves to its dated id
    assert (info.max_input_tokens, info.max_tokens, info.display_name) == (spec.window, spec.max_output, spec.name)
    types = info.capabilities.thinking.types
    assert {k for k in ("adaptive", "enabled", "disabled", "between_tools") if getattr(types, k).supported} \
        == set(spec.thinking)
    assert info.capabilities.context_management.compact_20260112.supported == spec.compaction
    assert info.capabilities.context_management.clear_tool_uses_20250919.supported
    assert info.capabilities.effort.supported == ("adaptive" in spec.thinking)
    assert info.created_at.year in (1970, 2026)  # the release date where a page gives it, else the epoch


def test_the_beta_route_adds_the_compaction_capability_with_its_beta():
    client = fake_client()
    plain = client.beta.models.retrieve("claude-sonnet-4-6")
    assert plain.capabilities.compaction is None and plain.allowed_fallback_models == []
    with_beta = client.beta.models.retrieve("claude-sonnet-4-6", betas=["compact-2026-09-04"])
    assert with_beta.capabilities.compaction.supported and with_beta.capabilities.compaction.summarize.supported
    haiku = client.beta.models.list(betas=["compact-2026-09-04"], limit=100)
    assert {m.id: m.capabilities.compaction.supported for m in haiku}["claude-haiku-4-5-20251001"] is False


def test_bad_model_requests_are_the_sdks_errors():
    client = fake_client()
    with pytest.raises(anthropic.NotFoundError) as info:
        client.models.retrieve("claude-opus-4-1")  # gone from the SDK, gone from the fake
    assert info.value.body["error"] == {"type": "not_found_error", "message": "model: claude-opus-4-1"}
    for bad in ({"limit": 0}, {"limit": 1001}, {"after_id": "claude-nope"}, {"lifecycle": ["gone"]},
                {"after_id": LISTED_MODELS[0], "before_id": LISTED_MODELS[2]}):
        with pytest.raises(anthropic.BadRequestError):
            client.models.list(**bad)


def test_a_route_the_fake_does_not_serve_is_a_404():
    with pytest.raises(anthropic.NotFoundError, match="serves no such route"):
        fake_client().beta.files.list()


# --- what a model lacks -------------------------------------------------------------------------------

def request(model: str, **fields) -> dict:
    return {"model": model, "max_tokens": 100, "messages": [user("hi")], **fields}


@pytest.mark.parametrize("model, thinking, words", [
    ("claude-fable-5", "enabled", ENABLED_REFUSED),
    ("claude-opus-5", "enabled", ENABLED_REFUSED),
    ("claude-haiku-4-5", "adaptive", ADAPTIVE_REFUSED),
    ("claude-opus-4-5-20251101", "adaptive", ADAPTIVE_REFUSED),
    ("claude-fable-5-1", "disabled", '"thinking.type.disabled" is not supported for this model.'),
    ("claude-opus-4-7", "disabled", '"thinking.type.disabled" is not supported for this model.'),
])
def test_a_thinking_type_the_model_lacks_is_a_400_in_the_apis_words(model, thinking, words):
    with pytest.raises(RequestRejected) as info:
        check_capabilities(request(model, thinking={"type": thinking, "budget_tokens": 1024}))
    assert (info.value.status, info.value.kind, str(info.value)) == (400, "invalid_request_error", words)


@pytest.mark.parametrize("model, thinking", [("claude-opus-4-6", "enabled"), ("claude-opus-4-6", "adaptive"),
                                             ("claude-haiku-4-5", "enabled"), ("claude-opus-5", "disabled"),
                                             ("claude-fable-5-2", "adaptive")])
def test_a_thinking_type_the_model_has_passes(model, thinking):
    check_capabilities(request(model, thinking={"type": thinking}))


COMPACT = {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}]}


def test_server_compaction_on_a_model_without_it_is_refused_naming_the_field():
    client = FakeModel().client()
    with pytest.raises(anthropic.BadRequestError) as info:
        client.beta.messages.create(**request("claude-haiku-4-5", context_management=COMPACT),
                                    betas=["compact-2026-01-12"])
    assert info.value.body["error"]["message"] == ("context_management.edits.0.type: 'compact_20260112' is not "
                                                   "supported on claude-haiku-4-5")
    served = client.beta.messages.create(**request("claude-opus-4-8", context_management=COMPACT),
                                         betas=["compact-2026-01-12"])
    assert served.stop_reason == "end_turn"
    with pytest.raises(RequestRejected, match="compaction: on-demand compaction is not supported on claude-opus-4-5"):
        check_capabilities(request("claude-opus-4-5", compaction={"type": "summarize"}))
    check_capabilities(request("claude-sonnet-5", compaction={"type": "summarize"}))
