"""Image blocks: read, counted by the API's formula, checked as the API checks them, and seen by the model as
images it cannot read (harness/core/images.py, harness/fake/images.py; chapter 00)."""
from __future__ import annotations

import base64
import math
import struct
from typing import Any

import anthropic
import pytest
from anthropic.types import ImageDimensionsTooLargeError

from harness import count_tokens, text, tool_result, tool_use, user
from harness.core.images import MAX_IMAGE_TOKENS, image_info, image_tokens, scaled, size_tokens
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel

MODEL = "claude-haiku-4-5"
ASK = "What is VERSION_TAG in agents/s01_agent_loop.py?"


def png(width: int, height: int) -> bytes:
    """The first bytes of a PNG of this size: enough for its header to be read."""
    header = struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", width, height) + b"\x08\x02\0\0\0"
    return b"\x89PNG\r\n\x1a\n" + header


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\0\0\0"


def jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0" + b"\x01\x01\0\0\x01\0\x01\0\0"
    return b"\xff\xd8" + app0 + b"\xff\xc0" + struct.pack(">HBHH", 17, 8, height, width) + b"\x03" + b"\0" * 9


def webp(width: int, height: int) -> bytes:
    chunk = b"VP8X" + struct.pack("<I", 10) + b"\0\0\0\0" + (width - 1).to_bytes(3, "little") \
        + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def image(raw: bytes, media_type: str = "image/png", **fields: Any) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                        "data": base64.b64encode(raw).decode()}, **fields}


def send(*blocks: dict[str, Any], model: str = MODEL) -> Any:
    try:
        return FakeModel().client().messages.create(model=model, max_tokens=500, tools=FILE_TOOLS,
                                                    messages=[user([*blocks, text(ASK)])])
    except anthropic.APIStatusError as error:
        return error


@pytest.mark.parametrize("make, media_type", [(png, "image/png"), (gif, "image/gif"), (jpeg, "image/jpeg"),
                                              (webp, "image/webp")])
def test_each_format_is_read_from_its_header(make, media_type):
    assert image_info(base64.b64encode(make(640, 480)).decode()) == (media_type, 640, 480)


def test_an_image_costs_width_times_height_over_750_after_scaling():
    assert size_tokens(200, 150) == 40 and size_tokens(1000, 1000) == 1334  # the vision docs' own 1000x1000 row
    assert scaled(3000, 2000)[0] <= 1568 and size_tokens(3000, 2000) <= MAX_IMAGE_TOKENS
    assert scaled(100, 3000)[1] == 1568 and scaled(100, 3000)[0] == math.floor(100 * 1568 / 3000)
    assert image_tokens({"type": "image", "source": {"type": "url", "url": "https://x/a.png"}}) == MAX_IMAGE_TOKENS


def test_an_image_is_counted_as_input_where_it_is():
    block = image(png(200, 150))
    plain = count_tokens([user([text(ASK)])])
    assert count_tokens([user([block, text(ASK)])]) == plain + 40
    counted = FakeModel().client().messages.count_tokens(model=MODEL, messages=[user([block, text(ASK)])])
    assert counted.input_tokens == FakeModel().client().messages.count_tokens(
        model=MODEL, messages=[user([text(ASK)])]).input_tokens + 40


def test_the_model_sees_an_image_it_cannot_read():
    reply = send(image(png(64, 48)))
    assert reply.content[0].text.startswith("I see 1 image (PNG, 64x48 pixels), but I cannot read anything in it.")
    assert reply.stop_reason == "tool_use"  # and it still does what the text asks
    url = send({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}})
    assert "an image at a URL I cannot open offline" in url.content[0].text


def test_an_image_in_a_tool_result_is_served():
    messages = [user(ASK), {"role": "assistant", "content": [tool_use("t1", "bash", {"command": "ls"})]},
                user([tool_result("t1", "shot") | {"content": [text("shot"), image(gif(10, 10), "image/gif")]}])]
    reply = FakeModel().client().messages.create(model=MODEL, max_tokens=500, tools=FILE_TOOLS, messages=messages)
    assert reply.content[0].text.startswith("I see 1 image (GIF, 10x10 pixels)")


REFUSED = [  # (the image, the start of the 400's message)
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}},
     "messages.0.content.0.image.source.base64: image cannot be empty"),
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * (5 * 1024 * 1024 + 4)}},
     "messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: 5242884 bytes > 5242880 bytes"),
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "not base64!"}},
     "messages.0.content.0.image.source.base64: invalid base64 data"),
    (image(b"plain text, no image"), "Could not process image"),
    (image(png(10, 10), "image/jpeg"), "messages.0.content.0.image.source.base64: The image was specified using the "
                                       "image/jpeg media type, but the image appears to be a image/png image"),
    (image(png(3000, 2000), transformations={"oversized_image": "error"}),
     "messages.0.content.0.image: the image is 3000x2000 pixels; the largest that fits unscaled is"),
    ({"type": "image", "source": {"type": "url", "url": "ftp://example.com/a.png"}}, "messages.0.content.0.image."
                                                                                       "source.url.url:"),
]


@pytest.mark.parametrize("block, words", REFUSED, ids=lambda v: v if isinstance(v, str) else "")
def test_an_image_the_api_refuses(block, words):
    got = send(block)
    assert isinstance(got, anthropic.BadRequestError) and got.body["error"]["message"].startswith(words), got


def test_a_file_image_is_a_file_the_offline_fake_does_not_hold():
    got = send({"type": "image", "source": {"type": "file", "file_id": "file_1"}})
    assert isinstance(got, anthropic.NotFoundError) and "file_1" in got.body["error"]["message"]


def test_an_image_too_large_is_the_sdks_typed_error_with_every_path():
    got = send(image(png(8001, 10)), image(png(10, 10)), image(gif(10, 9000), "image/gif"))
    assert isinstance(got, ImageDimensionsTooLargeError), got
    assert got.body["error"]["message"] == ("messages.0.content.0.image.source.base64.data: At least one of the "
                                            "image dimensions exceed max allowed size: 8000 pixels")
    assert got.body["error"]["details"] == {"error_code": "image_dimensions_too_large", "max_side_length_pixels": 8000,
                                            "paths": ["messages.0.content.0", "messages.0.content.2"]}
    assert isinstance(send(image(png(8000, 10))), anthropic.types.Message)  # 8,000 itself passes


def test_more_than_20_images_lower_the_limit_and_more_than_100_are_too_much():
    many = [image(png(10, 10))] * 20 + [image(png(2001, 10))]
    got = send(*many)
    assert got.body["error"]["message"].endswith("exceed max allowed size for many-image requests: 2000 pixels")
    assert got.body["error"]["details"]["paths"] == ["messages.0.content.20"]
    assert isinstance(send(*many[:20], image(png(2000, 10))), anthropic.types.Message)
    got = send(*[image(png(10, 10))] * 101)
    assert got.body["error"]["message"] == "Too much media: 0 document pages + 101 images > 100"
    assert isinstance(send(*[image(png(10, 10))] * 101, model="claude-sonnet-4-6"), anthropic.types.Message)  # 1M
