"""A chapter notebook made ready for the static site (``make site``), from its stored outputs only.

Nothing here runs a chapter. Two things a notebook page cannot show without a kernel are replaced:

- a widget output (a slider panel, a progress bar, chapter 07's inspector) becomes static HTML drawn
  from the widget state the notebook stores: a panel shows its controls' default values, its text
  line, its picture (the PNG its Image widget holds), and one line saying ``make lab`` opens it live;
- a code cell folded in Jupyter (an assert, a hint) is folded on the page too, its output shown;
- a citation ``[3]`` in the prose becomes a link to item 3 of the chapter's Sources list, each item gets
  an anchor (``#source-3``), and a bare address becomes a link.
"""
from __future__ import annotations

import copy
import html
import re
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PANEL_CLASS = "harness-panel"  # harness/labs/panel.py marks every slider panel with it
LIVE = "The panel's default view, shown static: <code>make lab</code> opens it live, with its controls."
SOURCES = "## Sources"
ITEM = re.compile(r"^(\d+)\. ", re.MULTILINE)
CITATION = re.compile(r"\[(\d+(?:\s*[,–-]\s*\d+)*)\](?!\()")  # as tests/test_sources.py reads citations
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
ADDRESS = re.compile(r"(?<![<(\"'=])https?://[^\s<>]+")
MODEL = "IPY_MODEL_"

Models = dict[str, dict[str, Any]]


class StaticPageError(ValueError):
    """A notebook's stored output cannot be shown statically (say, a widget whose state was not saved)."""


# --- widgets -----------------------------------------------------------------------------------


def widget_models(notebook: dict[str, Any]) -> Models:
    """The notebook's saved widget models by id, each with its state (PNG buffers put back as base64)."""
    saved = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    models: Models = {}
    for model_id, model in saved.items():
        state = dict(model["state"])
        for buffer in model.get("buffers", []):
            state[buffer["path"][0]] = buffer["data"]  # base64 text, as the notebook stores it
        models[model_id] = {"name": model["model_name"], "state": state}
    return models


def children(models: Models, state: dict[str, Any]) -> list[str]:
    return [ref.removeprefix(MODEL) for ref in state.get("children", [])]


def control_text(name: str, state: dict[str, Any]) -> str:
    """'keep_recent = 3': a control's label and the value it shows by default."""
    label = state.get("description") or "value"
    if name == "CheckboxModel":
        return f"{label}: {'on' if state['value'] else 'off'}"
    if "_options_labels" in state:  # Dropdown, SelectionSlider, ...
        return f"{label} = {state['_options_labels'][state['index']]}"
    return f"{label} = {state['value']}"


def widget_html(models: Models, model_id: str) -> str:
    """Static HTML for one widget and everything inside it."""
    if model_id not in models:
        raise StaticPageError(f"widget {model_id} has no saved state (rebuild the chapter)")
    name, state = models[model_id]["name"], models[model_id]["state"]
    inner = [widget_html(models, child) for child in children(models, state)]
    if name in ("HTMLModel", "HTMLMathModel"):
        shown = re.sub(r"<[^>]*>", "", state["value"]).strip("\u200b \n")
        return f"<div class='site-widget-html'>{state['value']}</div>" if shown else ""
    if name == "LabelModel":
        return f"<span>{html.escape(state['value'])}</span>"
    if name == "ImageModel":
        data = state.get("value", "")
        return f"<img alt='the default view' src='data:image/{state['format']};base64,{data}'/>" if data else ""
    if name == "FloatProgressModel" or name == "IntProgressModel":
        return f"<progress value='{state['value']}' max='{state['max']}'></progress>"
    if name == "AccordionModel":
        titles = state.get("titles") or [""] * len(inner)
        return "".join(f"<details><summary>{html.escape(t)}</summary>{part}</details>" for t, part in zip(titles, inner))
    if name == "HBoxModel":
        return f"<div class='site-widget-row'>{' '.join(inner)}</div>"
    if name in ("VBoxModel", "BoxModel"):
        return f"<div class='site-widget-column'>{''.join(inner)}</div>"
    if "description" in state and ("value" in state or "_options_labels" in state):  # a control
        return f"<span class='site-widget-control'>{html.escape(control_text(name, state))}</span>"
    raise StaticPageError(f"no static form for a {name} widget")


def is_panel(models: Models, model_id: str) -> bool:
    state = models.get(model_id, {}).get("state", {})
    return PANEL_CLASS in state.get("_dom_classes", [])


def static_output(models: Models, output: dict[str, Any]) -> dict[str, Any]:
    """A widget output as an HTML display output (other outputs are returned as they are)."""
    view = output.get("data", {}).get(WIDGET_VIEW)
    if view is None:
        return output
    model_id = view["model_id"]
    body = widget_html(models, model_id)
    if is_panel(models, model_id):
        body = f"<div class='site-panel'>{body}<p class='site-live'>{LIVE}</p></div>"
    return {"output_type": "display_data", "metadata": {}, "data": {"text/html": body}}


# --- citations and sources -----------------------------------------------------------------------


def outside_code(text: str, change) -> str:
    """``change`` applied to every part of a markdown text that is not code."""
    parts, last = [], 0
    for match in CODE.finditer(text):
        parts += [change(text[last:match.start()]), match.group()]
        last = match.end()
    return "".join(parts + [change(text[last:])])


def link_group(match: re.Match[str]) -> str:
    """'[2, 4-6]' with each number a link to its Sources item."""
    linked = re.sub(r"\d+", lambda n: f"<a class='site-cite' href='#source-{n.group()}'>{n.group()}</a>",
                    match.group(1))
    return f"\\[{linked}\\]"


def autolink(match: re.Match[str]) -> str:
    """A bare address as a markdown autolink, without the punctuation that ends its sentence."""
    address = match.group()
    kept = address.rstrip(".,;:")
    if kept.endswith(")") and kept.count("(") < kept.count(")"):
        kept = kept[:-1]
    return f"<{kept}>{address[len(kept):]}"


def link_citations(text: str) -> str:
    """Citations as links to the Sources list, and bare addresses as links."""
    return outside_code(text, lambda part: ADDRESS.sub(autolink, CITATION.sub(link_group, part)))


def anchor_sources(text: str) -> str:
    """Every item of a Sources list starts with its anchor, ``source-N``."""
    return ITEM.sub(lambda m: f"{m.group(1)}. <span id='source-{m.group(1)}'></span>", text)


def markdown_source(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def fold(cell: dict[str, Any]) -> None:
    """A cell folded in Jupyter (an assert, a hint) is folded on the site too: myst-nb's ``hide-input``
    tag draws its source collapsed, its output shown."""
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if "hide-input" not in tags:
        tags.append("hide-input")


# --- the whole page ------------------------------------------------------------------------------


def site_notebook(notebook: dict[str, Any]) -> dict[str, Any]:
    """A copy of the notebook for the site: widget outputs static, citations linked, no widget state."""
    models = widget_models(notebook)
    page = copy.deepcopy(notebook)
    page.get("metadata", {}).pop("widgets", None)
    for cell in page["cells"]:
        if cell["cell_type"] == "markdown":
            text = link_citations(markdown_source(cell))
            cell["source"] = anchor_sources(text) if text.startswith(SOURCES) else text
        elif cell["cell_type"] == "code":
            cell["outputs"] = [static_output(models, output) for output in cell.get("outputs", [])]
            if cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):
                fold(cell)
    return page
