"""Errors as the API sends them: every ``error_code`` the fake can send is one the installed SDK types for that
status (``anthropic/_error_classes.py``), so the SDK raises its class; the request's encoding and charset are
read as the API reads them (harness/fake/server.py)."""
from __future__ import annotations

import ast
import gzip
import json
import typing
from pathlib import Path

import anthropic
import httpx2
import pytest
from anthropic._error_classes import ERROR_CLASSES
from anthropic.types import BetaUnsupportedCharsetError
from anthropic.types.shared import RequestBodyEncodingInvalidError, RequestBodyEncodingUnsupportedError

from harness import user
from harness.fake import FakeModel

FAKE = Path(__file__).resolve().parent.parent / "harness" / "fake"
BODY = {"model": "claude-haiku-4-5", "max_tokens": 50, "messages": [user("héllo")]}


def codes_the_fake_sends() -> set[tuple[int, str]]:
    """(status, error_code) of every ``RequestRejected(status, ..., code="...")`` in the fake's source whose code
    is written out (a code computed from ``ERROR_CLASSES``, as for a history rule, is typed by construction)."""
    found = set()
    for path in sorted(FAKE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "RequestRejected":
                code = next((k.value for k in node.keywords if k.arg == "code"), None)
                if isinstance(code, ast.Constant) and code.value is not None:
                    assert isinstance(node.args[0], ast.Constant), path
                    found.add((node.args[0].value, code.value))
    return found


def test_every_error_code_the_fake_sends_is_typed_by_the_sdk_for_its_status():
    sent = codes_the_fake_sends()
    assert len(sent) >= 7  # the four of threads, the two of encodings and the charset's, at least
    for status, code in sorted(sent):
        assert (status, code) in ERROR_CLASSES, f"the SDK types no {code!r} for HTTP {status}"


def send(headers: dict[str, str], content: bytes) -> httpx2.Response:
    return FakeModel().handle(httpx2.Request("POST", "https://api.anthropic.com/v1/messages", headers=headers,
                                             content=content))


def test_a_gzip_body_is_read_and_a_charset_is_honoured():
    raw = json.dumps(BODY, ensure_ascii=False).encode()
    plain = send({}, raw)
    assert plain.status_code == 200
    assert send({"content-encoding": "gzip"}, gzip.compress(raw)).json() == plain.json()
    latin = send({"content-type": "application/json; charset=ISO-8859-1"}, raw.decode().encode("latin-1"))
    assert latin.json()["content"] == plain.json()["content"]


@pytest.mark.parametrize("headers, kind", [
    ({"Content-Encoding": "gzip"}, RequestBodyEncodingInvalidError),       # says gzip, is not
    ({"Content-Encoding": "br"}, RequestBodyEncodingUnsupportedError),
    ({"Content-Type": "application/json; charset=utf-16"}, BetaUnsupportedCharsetError),
])
def test_an_encoding_or_charset_the_fake_does_not_read_is_the_sdks_error(headers, kind):
    with pytest.raises(kind) as info:
        FakeModel().client().messages.create(**BODY, extra_headers=headers)
    assert type(info.value) is kind and info.value.status_code == 400
    assert info.value.error_code == typing.get_args(kind.__annotations__["error_code"])[0]


def test_an_error_without_a_code_has_no_details():
    with pytest.raises(anthropic.BadRequestError) as info:
        FakeModel().client().messages.create(**{**BODY, "max_tokens": -1})
    assert type(info.value) is anthropic.BadRequestError
    assert (info.value.error_code, info.value.details, info.value.type) == (None, None, "invalid_request_error")
    assert info.value.body == {"type": "error", "error": {
        "type": "invalid_request_error", "message": "max_tokens: Input should be greater than or equal to 0"}}
