"""A value that fits a JSON schema: the input of a tool call the request forces, and a structured output
(chapter 00).

``schema_instance`` builds the smallest value of a schema, filling each string from ``hints`` (a property's value
the agent already has, by name) or else from ``fallback`` (what the agent would have said): required
properties only, plus any property the hints name; the first of an ``enum``, ``anyOf`` or ``oneOf``; a
number's ``minimum`` or 0; ``false``; ``minItems`` items. ``$ref`` is not followed (its value is null), and
nothing nests deeper than ``MAX_NESTING`` levels. The rules are *this fake*'s; a real model fills a schema
from what it means to do.
"""
from __future__ import annotations

from typing import Any

MAX_NESTING = 20


def schema_instance(schema: Any, hints: dict[str, Any] | None = None, fallback: str = "", name: str = "",
             depth: int = 0) -> Any:
    """The smallest value of ``schema`` (the module docstring), ``name`` being the property it fills."""
    hints = hints or {}
    if not isinstance(schema, dict) or depth > MAX_NESTING or "$ref" in schema:
        return None
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return hints[name] if hints.get(name) in schema["enum"] else schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema_instance(schema[key][0], hints, fallback, name, depth + 1)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [key for key in schema.get("required", []) if isinstance(key, str)]
        wanted = required + [key for key in properties if key in hints and key not in required]
        return {key: schema_instance(properties.get(key, {}), hints, fallback, key, depth + 1) for key in wanted}
    if kind == "string":
        hint = hints.get(name)
        return hint if isinstance(hint, str) else fallback
    if kind in ("integer", "number"):
        hint, least = hints.get(name), schema.get("minimum", 0)
        return hint if isinstance(hint, int) and not isinstance(hint, bool) else least
    if kind == "boolean":
        return hints.get(name) if isinstance(hints.get(name), bool) else False
    if kind == "array":
        count = schema.get("minItems", 0) if isinstance(schema.get("minItems", 0), int) else 0
        return [schema_instance(schema.get("items", {}), hints, fallback, name, depth + 1) for _ in range(count)]
    return None
