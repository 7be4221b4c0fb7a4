"""The request's options beside its messages and tools: each checked, then served or refused (chapter 00).

``request`` holds the table of every field and says where each is served; this module checks the options a
deterministic offline model can honour only in part, and says what the response reports of them:

- ``temperature``, ``top_p``, ``top_k`` (gone from the SDK's types, still taken by the API: unverified),
  ``metadata``, ``output_config.effort``, ``output_config.task_budget``: checked and ignored: the fake's
  replies do not depend on them (it is deterministic and never runs out of effort);
- ``output_config.format`` (a JSON schema): the reply's text is a value of it (``output``);
- ``service_tier``, ``speed``, ``inference_geo``: checked, and reported back in ``usage`` (``"standard"``, the
  speed asked for, the region asked for) when the request sends them; the fake reports nothing it was not
  asked about, so replies to requests without them keep their bytes (*this fake*). Which models take
  ``speed: "fast"`` (and need a beta header for it) is the model table's business (``core.models``);
- ``diagnostics``: the response carries ``diagnostics.cache_miss_reason``: null when no previous message is
  named, else ``{"type": "unavailable"}`` ("the API can't give a diagnosis": the SDK's
  ``BetaCacheMissUnavailable``), since the fake keeps no record of earlier requests (*this fake*);
- ``container``: the fake runs no code execution container, so it knows no container id: an id is a 404
  ``not_found_error``, and skills (which run in the code execution tool's container) are a 400 (both
  wordings ours); null, or an object with neither, is accepted;
- ``billing_policy``: ``bill_to`` ``"self"`` is accepted; ``"user_profile"`` without the
  ``anthropic-user-profile-id`` header is the SDK's typed ``UserProfileRequiredError`` (its docstring's
  words), and with it is accepted (nothing is billed offline);
- ``fallbacks``: checked (each entry's fields, the ``BetaFallbackParam`` ones) and accepted: the fake's model
  never declines, so no fallback is ever tried;
- ``fallback_credit_token``: the fake never declines, so it never issued a token: one sent is a 400 (the
  strict mode's failing redemption, wording ours), or with ``mode`` ``"best_effort"`` is served at normal
  price with ``usage.fallback_credit`` ``not_applied`` (reason ``not_enabled``); with ``fallbacks`` beside it,
  a 400 (the SDK's docstring: "Two failures stay hard in both modes"); the object form needs the beta header
  ``fallback-credit-2026-07-01``;
- ``mcp_servers``: checked; a server listed is one the fake cannot reach (it is offline): a 400 naming its
  URL (wording ours); an empty list is accepted;
- ``user_profile_id`` and ``workspace_id``: the SDK sends them as headers, which the fake accepts (it has one
  workspace and attributes nothing); in the body they are unknown fields, as ``betas`` is.

Headers reach these checks only where the server passes them (``check_request(..., headers=...)``); without
them, the checks that need one are skipped.
"""
from __future__ import annotations

from typing import Any, Mapping

from anthropic.types.beta import BetaFallbackParam, BetaRequestMCPServerURLDefinitionParam, BetaSkillParams

from ..core.messages import EXTRA
from .rejection import RequestRejected, invalid
from .thinking import thinking_tokens

EFFORTS = ("low", "medium", "high", "xhigh", "max")
SERVICE_TIERS = ("auto", "standard_only")
SPEEDS = ("standard", "fast")
FALLBACK_CREDIT_BETA = "fallback-credit-2026-07-01"
PROFILE_HEADER = "anthropic-user-profile-id"
USER_PROFILE_REQUIRED = ("The request sets `billing_policy.bill_to` to `\"user_profile\"` but names no user "
                         "profile. Name the profile to bill in the `anthropic-user-profile-id` header.")


def check_options(body: dict[str, Any], headers: Mapping[str, str] | None = None) -> None:
    """RequestRejected for the first option (of those present) the API would refuse, or the fake cannot serve
    as the API would (the module docstring)."""
    for field in ("temperature", "top_p"):
        if field in body:
            _number(field, body[field])
    if "top_k" in body:
        check_integer("top_k", body["top_k"], 0)
    stops = body.get("stop_sequences", [])
    if not isinstance(stops, list):
        raise invalid("stop_sequences", "Input should be a valid list")
    for i, stop in enumerate(stops):
        if not isinstance(stop, str):
            raise invalid(f"stop_sequences.{i}", "Input should be a valid string")
    metadata = body.get("metadata", {})
    if not isinstance(metadata, dict):
        raise invalid("metadata", "Input should be a valid dictionary")
    _keys("metadata", metadata, {"user_id"})
    _maybe_string("metadata.user_id", metadata.get("user_id"))
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise invalid("stream", "Input should be a valid boolean")
    _choice("service_tier", body.get("service_tier", "auto"), SERVICE_TIERS)
    if body.get("speed") is not None:
        _choice("speed", body["speed"], SPEEDS)
    _maybe_string("inference_geo", body.get("inference_geo"))
    _check_output_config(body.get("output_config"))
    _check_diagnostics(body.get("diagnostics"))
    _check_container(body.get("container"))
    _check_billing(body.get("billing_policy"), headers)
    _check_fallbacks(body, headers)
    _check_mcp_servers(body.get("mcp_servers", []))


def reported(body: dict[str, Any]) -> dict[str, Any]:
    """What the response says of the request's options, beside its usage."""
    if body.get("diagnostics") is None:
        return {}
    asked = body["diagnostics"].get("previous_message_id")
    return {"diagnostics": {"cache_miss_reason": None if asked is None else {"type": "unavailable"}}}


def reported_usage(body: dict[str, Any], content: list[dict[str, Any]]) -> dict[str, Any]:
    """What ``usage`` says of the request's options and of the reply's thinking (``content``, as counted)."""
    usage: dict[str, Any] = {}
    thought = thinking_tokens(content)
    if thought:
        usage["output_tokens_details"] = {"thinking_tokens": thought}
    if "service_tier" in body:
        usage["service_tier"] = "standard"
    if body.get("speed") is not None:
        usage["speed"] = body["speed"]
    if body.get("inference_geo") is not None:
        usage["inference_geo"] = body["inference_geo"]
    if isinstance(body.get("fallback_credit_token"), dict):  # checked: only a best-effort token gets this far
        usage["fallback_credit"] = {"status": {"type": "not_applied", "reason": "not_enabled"}}
    return usage


# --- one option each ----------------------------------------------------------------------------

def _check_output_config(config: Any) -> None:
    if config is None:
        return
    if not isinstance(config, dict):
        raise invalid("output_config", "Input should be a valid dictionary")
    _keys("output_config", config, {"effort", "format", "task_budget"})
    if config.get("effort") is not None:
        _choice("output_config.effort", config["effort"], EFFORTS)
    form = config.get("format")
    if form is not None:
        if not isinstance(form, dict):
            raise invalid("output_config.format", "Input should be a valid dictionary")
        _keys("output_config.format", form, {"type", "schema"})
        _choice("output_config.format.type", form.get("type"), ("json_schema",))
        if not isinstance(form.get("schema"), dict):
            raise invalid("output_config.format.schema",
                          "Field required" if "schema" not in form else "Input should be a valid dictionary")
    budget = config.get("task_budget")
    if budget is not None:
        if not isinstance(budget, dict):
            raise invalid("output_config.task_budget", "Input should be a valid dictionary")
        _keys("output_config.task_budget", budget, {"type", "total", "remaining"})
        _choice("output_config.task_budget.type", budget.get("type"), ("tokens",))
        check_integer("output_config.task_budget.total", budget.get("total"), 0)
        if budget.get("remaining") is not None:
            check_integer("output_config.task_budget.remaining", budget["remaining"], 0)


def _check_diagnostics(diagnostics: Any) -> None:
    if diagnostics is None:
        return
    if not isinstance(diagnostics, dict):
        raise invalid("diagnostics", "Input should be a valid dictionary")
    _keys("diagnostics", diagnostics, {"previous_message_id"})
    _maybe_string("diagnostics.previous_message_id", diagnostics.get("previous_message_id"))


def _check_container(container: Any) -> None:
    if container is None:
        return
    if isinstance(container, str):
        raise RequestRejected(404, "not_found_error", f"container: {container} (our wording: the offline fake "
                                                      "runs no code execution containers, so it knows no id)")
    if not isinstance(container, dict):
        raise invalid("container", "Input should be a valid string or dictionary")
    _keys("container", container, {"id", "skills"})
    if container.get("id") is not None:
        _check_container(_require_string("container.id", container["id"]))
    skills = container.get("skills")
    if skills is None:
        return
    if not isinstance(skills, list):
        raise invalid("container.skills", "Input should be a valid list")
    for i, skill in enumerate(skills):
        if not isinstance(skill, dict):
            raise invalid(f"container.skills.{i}", "Input should be a valid dictionary")
        _keys(f"container.skills.{i}", skill, set(BetaSkillParams.__annotations__))
        _require_string(f"container.skills.{i}.skill_id", skill.get("skill_id"))
        _choice(f"container.skills.{i}.type", skill.get("type"), ("anthropic", "custom"))
    if skills:
        raise invalid("container.skills", "skills run in the code execution tool's container, and the request "
                                          "offers no code execution tool (our wording)")


def _check_billing(policy: Any, headers: Mapping[str, str] | None) -> None:
    if policy is None:
        return
    if not isinstance(policy, dict):
        raise invalid("billing_policy", "Input should be a valid dictionary")
    _keys("billing_policy", policy, {"type", "bill_to"})
    _choice("billing_policy.type", policy.get("type"), ("billing_policy",))
    _choice("billing_policy.bill_to", policy.get("bill_to", "self"), ("self", "user_profile"))
    if policy.get("bill_to") == "user_profile" and headers is not None and not headers.get(PROFILE_HEADER):
        raise RequestRejected(400, "invalid_request_error", USER_PROFILE_REQUIRED, code="user_profile_required")


def _check_fallbacks(body: dict[str, Any], headers: Mapping[str, str] | None) -> None:
    fallbacks = body.get("fallbacks")
    if fallbacks is not None and fallbacks != "default":
        if not isinstance(fallbacks, list):
            raise invalid("fallbacks", "Input should be 'default' or a valid list")
        for i, entry in enumerate(fallbacks):
            if not isinstance(entry, dict):
                raise invalid(f"fallbacks.{i}", "Input should be a valid dictionary")
            _keys(f"fallbacks.{i}", entry, set(BetaFallbackParam.__annotations__))
            _require_string(f"fallbacks.{i}.model", entry.get("model"))
            if entry.get("max_tokens") is not None:
                check_integer(f"fallbacks.{i}.max_tokens", entry["max_tokens"], 1)
            if entry.get("speed") is not None:
                _choice(f"fallbacks.{i}.speed", entry["speed"], SPEEDS)
            _check_output_config(entry.get("output_config"))
    token = body.get("fallback_credit_token")
    if token is None:
        return
    if isinstance(token, dict):
        _keys("fallback_credit_token", token, {"token", "mode"})
        _require_string("fallback_credit_token.token", token.get("token"))
        _choice("fallback_credit_token.mode", token.get("mode", "strict"), ("strict", "best_effort"))
        betas = {b.strip() for b in (headers or {}).get("anthropic-beta", "").split(",")}
        if headers is not None and FALLBACK_CREDIT_BETA not in betas:
            raise invalid("fallback_credit_token", f"the object form needs the anthropic-beta header "
                                                   f"{FALLBACK_CREDIT_BETA}; without it, send the bare token "
                                                   "(our wording; the SDK's docstring states the rule)")
    elif not isinstance(token, str):
        raise invalid("fallback_credit_token", "Input should be a valid string or dictionary")
    if fallbacks is not None:
        raise invalid("fallback_credit_token", "cannot be combined with `fallbacks` (our wording; the SDK's "
                                               "docstring states the rule)")
    if not (isinstance(token, dict) and token.get("mode") == "best_effort"):
        raise invalid("fallback_credit_token", "this token does not redeem: the offline fake never declines a "
                                               "request, so it issued no token (our wording)")


def _check_mcp_servers(servers: Any) -> None:
    if not isinstance(servers, list):
        raise invalid("mcp_servers", "Input should be a valid list")
    allowed = set(BetaRequestMCPServerURLDefinitionParam.__annotations__)
    for i, server in enumerate(servers):
        if not isinstance(server, dict):
            raise invalid(f"mcp_servers.{i}", "Input should be a valid dictionary")
        _keys(f"mcp_servers.{i}", server, allowed)
        _choice(f"mcp_servers.{i}.type", server.get("type"), ("url",))
        _require_string(f"mcp_servers.{i}.name", server.get("name"))
        _require_string(f"mcp_servers.{i}.url", server.get("url"))
        _maybe_string(f"mcp_servers.{i}.authorization_token", server.get("authorization_token"))
        config = server.get("tool_configuration")
        if config is not None:
            if not isinstance(config, dict):
                raise invalid(f"mcp_servers.{i}.tool_configuration", "Input should be a valid dictionary")
            _keys(f"mcp_servers.{i}.tool_configuration", config, {"allowed_tools", "enabled"})
    if servers:
        raise invalid("mcp_servers.0.url", f"could not connect to the MCP server at {servers[0]['url']} (our "
                                           "wording: the offline fake reaches no network)")


# --- values ----------------------------------------------------------------------------------------

def _keys(where: str, value: dict[str, Any], allowed: set[str]) -> None:
    extra = next((key for key in value if key not in allowed), None)
    if extra is not None:
        raise invalid(f"{where}.{extra}", EXTRA)


def _require_string(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise invalid(where, "Field required" if value is None else "Input should be a valid string")
    return value


def _maybe_string(where: str, value: Any) -> None:
    if value is not None and not isinstance(value, str):
        raise invalid(where, "Input should be a valid string")


def _choice(where: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        words = " or ".join([", ".join(map(repr, allowed[:-1])), repr(allowed[-1])] if len(allowed) > 1
                            else [repr(allowed[0])])
        raise invalid(where, f"Input should be {words}")


def check_integer(where: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid(where, "Input should be a valid integer")
    if value < minimum:
        raise invalid(where, f"Input should be greater than or equal to {minimum}")


def _number(where: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise invalid(where, "Input should be a valid number")
    if not 0 <= value <= 1:
        raise invalid(where, "Input should be between 0 and 1")
