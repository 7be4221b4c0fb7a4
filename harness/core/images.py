"""Image blocks: what an image's bytes are, and what it costs in tokens (chapter 01's counting, for images).

No chapter sends images; a history that holds one (a screenshot a tool returned, say) is still counted, by
``tokens.block_tokens``, and checked by the fake (chapter 00) the way the API checks it.

``image_info`` reads an image's format and size from its first bytes (its "magic number" and header):
PNG, JPEG, GIF and WebP, the four media types the SDK's ``Base64ImageSourceParam`` allows. ``image_tokens``
is the API's documented estimate: an image whose long edge is over 1568 pixels, or that would cost over
about 1,600 tokens, is first scaled down, keeping its aspect ratio, until it fits; then it costs
``width * height / 750`` tokens ("Evaluate image size" and "Calculate image costs",
https://platform.claude.com/docs/en/build-with-claude/vision). Rounding up, and 1,600 as the exact token
ceiling, are this module's choices; newer models may read images at a higher resolution (unverified here).
An image whose bytes the harness does not have (a ``url`` or ``file`` source) counts as the ceiling,
1,600 tokens (*this design*: the most an image costs after scaling).
"""
from __future__ import annotations

import base64
import binascii
import math
from functools import lru_cache
from typing import Any

MAX_LONG_EDGE = 1568      # pixels: a longer edge is scaled down first (the vision docs)
MAX_IMAGE_TOKENS = 1_600  # about 1,600 tokens: a costlier image is scaled down first (the vision docs)
PIXELS_PER_TOKEN = 750    # tokens = width * height / 750 (the vision docs)

ImageInfo = tuple[str, int, int]  # (media type, width, height)


def decode(data: str) -> bytes | None:
    """The bytes of a base64 string, or None when it is not valid base64 (padding required, no stray
    characters)."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


@lru_cache(maxsize=256)
def image_info(data: str) -> ImageInfo | None:
    """(media type, width, height) of a base64 image, read from its header; None when the data is not
    base64 or not a PNG, JPEG, GIF or WebP image whose size its header states. Remembered: a history
    sends the same image on every request."""
    raw = decode(data)
    return None if raw is None else read_header(raw)


def read_header(raw: bytes) -> ImageInfo | None:
    """(media type, width, height) from an image's first bytes, or None."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n") and raw[12:16] == b"IHDR" and len(raw) >= 24:
        return "image/png", int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        return "image/gif", int.from_bytes(raw[6:8], "little"), int.from_bytes(raw[8:10], "little")
    if raw.startswith(b"\xff\xd8"):
        return _jpeg(raw)
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return _webp(raw)
    return None


SOF_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # start-of-frame: the frame's size follows


def _jpeg(raw: bytes) -> ImageInfo | None:
    """A JPEG's size, from its first start-of-frame segment (walked segment by segment: linear)."""
    at = 2
    while at + 4 <= len(raw):
        if raw[at] != 0xFF:
            return None
        marker = raw[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        length = int.from_bytes(raw[at + 2:at + 4], "big")
        if marker in SOF_MARKERS:
            if at + 9 > len(raw):
                return None
            return "image/jpeg", int.from_bytes(raw[at + 7:at + 9], "big"), int.from_bytes(raw[at + 5:at + 7], "big")
        if length < 2:
            return None
        at += 2 + length
    return None


def _webp(raw: bytes) -> ImageInfo | None:
    """A WebP's size from its first chunk: lossy (VP8), lossless (VP8L) or extended (VP8X)."""
    chunk = raw[12:16]
    if chunk == b"VP8 " and len(raw) >= 30 and raw[23:26] == b"\x9d\x01\x2a":
        width, height = int.from_bytes(raw[26:28], "little"), int.from_bytes(raw[28:30], "little")
        return "image/webp", width & 0x3FFF, height & 0x3FFF  # the top two bits are a scale
    if chunk == b"VP8L" and len(raw) >= 25 and raw[20] == 0x2F:
        bits = int.from_bytes(raw[21:25], "little")
        return "image/webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(raw) >= 30:
        return "image/webp", int.from_bytes(raw[24:27], "little") + 1, int.from_bytes(raw[27:30], "little") + 1
    return None


def scaled(width: int, height: int) -> tuple[int, int]:
    """The size the API reads an image at: scaled down, aspect ratio kept, until its long edge is at most
    1568 pixels and it costs at most 1,600 tokens; an image within both is read as it is."""
    factor = min(1.0, MAX_LONG_EDGE / max(width, height, 1),
                 math.sqrt(MAX_IMAGE_TOKENS * PIXELS_PER_TOKEN / max(width * height, 1)))
    if factor >= 1.0:
        return width, height
    return max(1, math.floor(width * factor + 1e-9)), max(1, math.floor(height * factor + 1e-9))  # no float shortfall


def size_tokens(width: int, height: int) -> int:
    """Tokens of an image of this size, after scaling: width * height / 750, rounded up."""
    w, h = scaled(width, height)
    return math.ceil(w * h / PIXELS_PER_TOKEN)


def image_tokens(block: dict[str, Any]) -> int:
    """Tokens of an image block (unchecked: pass a block of a checked history). A base64 image whose header
    gives no size counts as the ceiling, as does a ``url`` or ``file`` image (the module docstring)."""
    source = block.get("source") or {}
    info = image_info(source["data"]) if source.get("type") == "base64" and isinstance(source.get("data"), str) \
        else None
    return MAX_IMAGE_TOKENS if info is None else size_tokens(info[1], info[2])
