"""Image blocks in a request: checked as the API checks them, and seen by the model as images it cannot read
(chapter 00; their cost is ``core.images``').

An image is a user message's ``image`` block or one inside a ``tool_result``'s content; its fields are
checked with every other block's (``core.messages``). Then, in order, with the API's words where public
reports quote them (after the image's path, as ``messages.0.content.1.image.source.base64``):

- base64 data that is empty: "image cannot be empty" (anthropics/claude-code#12750); over 5 MB (5,242,880
  characters of base64: whether the API measures the text or the decoded bytes is unverified): "image exceeds
  5 MB maximum: N bytes > 5242880 bytes" (cg-dot/vertexai-cf-workers#16, earendil-works/pi#424); not base64:
  "invalid base64 data" (anthropics/anthropic-sdk-typescript#603); not a PNG, JPEG, GIF or WebP whose header
  gives its size: "Could not process image", naming no field (anthropics/claude-code#8647, #56511); another
  format than ``media_type`` says: "The image was specified using the image/jpeg media type, but the image
  appears to be a image/png image" (vybestack/llxprt-code#2130, the API's wording today; older reports read
  "...base64.data: Image does not match the provided media type image/png", anthropics/claude-code#6300);
- more than 100 images (600 for a model whose window is over 200,000 tokens): "Too much media: 0 document
  pages + N images > 100" (anthropics/claude-code#19822; the limits: the vision docs,
  https://platform.claude.com/docs/en/build-with-claude/vision);
- a side over 8,000 pixels (2,000 when the request holds more than 20 images): "...base64.data: At least one
  of the image dimensions exceed max allowed size: 8000 pixels" ("... for many-image requests: 2000 pixels")
  (anthropics/claude-code#5147, #52220), with the SDK's ``error_code`` ``image_dimensions_too_large`` and its
  details, ``max_side_length_pixels`` and every such image's ``paths`` (``ImageDimensionsTooLargeError``);
- an image the API would scale down (``core.images.scaled``) whose ``transformations.oversized_image`` is
  ``"error"``: a 400 naming its size and the largest that fits (the SDK's docstring; the wording is ours).

A ``url`` image is accepted and not fetched (the fake is offline): its size is unknown, so it counts as the
largest image costs, and the model cannot see it. A ``file`` image names a file of the Files API, which the
offline fake does not hold: 404 ``not_found_error`` (status and wording ours).

The model (``remark``) sees that the latest user turn holds images, and their format and size, but reads
nothing in them: it says so before its answer (*this fake*).
"""
from __future__ import annotations

from typing import Any

from ..core.images import decode, image_info, scaled
from ..core.messages import Block, Message, blocks
from ..core.models import context_window
from .rejection import RequestRejected, invalid

MAX_BASE64 = 5 * 1024 * 1024
MAX_SIDE, MANY_IMAGES, MAX_SIDE_MANY = 8000, 20, 2000
MAX_IMAGES, MAX_IMAGES_LARGE_WINDOW, LARGE_WINDOW = 100, 600, 200_000

ImageAt = tuple[str, str, Block]  # (the API's path of the block, the SDK's details path, the image block)


def check_images(found: list[ImageAt], model: str) -> None:
    """RequestRejected for the first image the API would refuse, or for too many or too large ones."""
    sizes = []
    for path, details_path, block in found:
        source = block["source"]
        if source["type"] == "file":
            raise RequestRejected(404, "not_found_error", f"{path}.image.source.file.file_id: no file "
                                  f"{source['file_id']!r} (our wording: the offline fake holds no files)")
        if source["type"] == "url":
            if not source["url"].startswith(("https://", "http://")):
                raise invalid(f"{path}.image.source.url.url", "an image URL starts with https:// or http:// "
                                                              "(our wording)")
            continue
        sizes.append((path, details_path, block, _size(path, source)))
    limit = MAX_IMAGES_LARGE_WINDOW if context_window(model) > LARGE_WINDOW else MAX_IMAGES
    if len(found) > limit:
        raise RequestRejected(400, "invalid_request_error",
                              f"Too much media: 0 document pages + {len(found)} images > {limit}")
    side = MAX_SIDE_MANY if len(found) > MANY_IMAGES else MAX_SIDE
    over = [(path, details_path) for path, details_path, _, (w, h) in sizes if max(w, h) > side]
    if over:
        many = " for many-image requests" if side == MAX_SIDE_MANY else ""
        raise RequestRejected(400, "invalid_request_error", f"{over[0][0]}.image.source.base64.data: At least one "
                              f"of the image dimensions exceed max allowed size{many}: {side} pixels",
                              code="image_dimensions_too_large", max_side_length_pixels=side,
                              paths=[d for _, d in over])
    for path, _, block, (w, h) in sizes:
        fits = scaled(w, h)
        if (block.get("transformations") or {}).get("oversized_image") == "error" and fits != (w, h):
            raise invalid(f"{path}.image", f"the image is {w}x{h} pixels; the largest that fits unscaled is "
                          f"{fits[0]}x{fits[1]} (transformations.oversized_image is 'error'; our wording)")


def _size(path: str, source: dict[str, Any]) -> tuple[int, int]:
    """The width and height of a base64 image; RequestRejected when it is empty, too big, not base64, not
    an image of the four formats, or not of its ``media_type``."""
    data, where = source["data"], f"{path}.image.source.base64"
    if not data:
        raise invalid(where, "image cannot be empty")
    if len(data) > MAX_BASE64:
        raise invalid(where, f"image exceeds 5 MB maximum: {len(data)} bytes > {MAX_BASE64} bytes")
    info = image_info(data)
    if info is None:
        if decode(data) is None:
            raise invalid(where, "invalid base64 data")
        raise RequestRejected(400, "invalid_request_error", "Could not process image")
    media_type, width, height = info
    if media_type != source["media_type"]:
        raise invalid(where, f"The image was specified using the {source['media_type']} media type, but the image "
                             f"appears to be a {media_type} image")
    return width, height


def remark(messages: list[Message]) -> str | None:
    """What the model says of the images in the latest user message, or None when it holds none."""
    latest = next((m for m in reversed(messages) if m["role"] == "user"), None)
    if latest is None:
        return None
    shown = [b for b in blocks(latest) if b["type"] == "image"] + [
        inner for b in blocks(latest) if b["type"] == "tool_result" and isinstance(b.get("content"), list)
        for inner in b["content"] if inner["type"] == "image"]
    if not shown:
        return None
    described = ", ".join(_source_described(b["source"]) for b in shown)
    many = len(shown) > 1
    return (f"I see {len(shown)} image{'s' if many else ''} ({described}), but I cannot read anything in "
            f"{'them' if many else 'it'}.")


def _source_described(source: dict[str, Any]) -> str:
    if source["type"] != "base64":
        return "an image at a URL I cannot open offline"
    info = image_info(source["data"])
    return f"{info[0].removeprefix('image/').upper()}, {info[1]}x{info[2]} pixels" if info else "an image"
