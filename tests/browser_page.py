"""What the browser test does on one JupyterLab page: open a chapter, run it, read it, move its controls.

Every check reads the page a student sees. Times are taken inside the page with
``performance.now()``: from the release of the key (or mouse button) that moved a
control, to the moment the panel's redraw has arrived (its ``data-redraw`` number
changed, see harness/labs/panel.py), its picture is decoded and the next frame is painted.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from harness.labs.panel import HINT

RUN_TIMEOUT_MS = 240_000
REDRAW_TIMEOUT_MS = 30_000

# Recorded in the capture phase, so the time is taken before any widget code runs.
INSTALL_CLOCK = """() => {
  if (window.__release) return;
  window.__release = {at: 0};
  for (const type of ['keyup', 'mouseup', 'change'])
    document.addEventListener(type, () => { window.__release.at = performance.now(); }, true);
}"""

# Resolves with the milliseconds from the last release to the painted redraw, or null on timeout.
AWAIT_REDRAW = """async ([index, before, timeout]) => {
  const box = document.querySelectorAll('.harness-panel')[index];
  const number = () => Number(box.querySelector('[data-redraw]')?.dataset.redraw ?? -1);
  const arrived = await new Promise(resolve => {
    if (number() > before) return resolve(true);
    const watch = new MutationObserver(() => { if (number() > before) { watch.disconnect(); resolve(true); } });
    watch.observe(box, {subtree: true, childList: true, attributes: true, characterData: true});
    setTimeout(() => { watch.disconnect(); resolve(false); }, timeout);
  });
  if (!arrived) return null;
  const img = box.querySelector('img');
  if (img && img.getAttribute('src')) await img.decode().catch(() => undefined);
  await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return performance.now() - window.__release.at;
}"""

# What one panel shows: its redraw number, its text line and its picture.
PANEL_STATE = """index => {
  const box = document.querySelectorAll('.harness-panel')[index];
  const line = box.querySelector('[data-redraw]');
  return {redraw: Number(line?.dataset.redraw ?? -1), text: line ? line.innerText : '',
          image: box.querySelector('img')?.getAttribute('src') ?? ''};
}"""

# Every control of one panel: its kind, its label, whether the label is cut off, and where it stands.
CONTROLS = """index => {
  const box = document.querySelectorAll('.harness-panel')[index];
  const cut = el => !!el && el.scrollWidth > el.clientWidth + 1;
  return [...box.querySelectorAll('.widget-slider, .widget-checkbox, .widget-dropdown')].map(el => {
    const label = el.querySelector(':scope > .widget-label-basic') ?? el.querySelector(':scope > .widget-label');
    const kind = el.classList.contains('widget-slider') ? 'slider'
               : el.classList.contains('widget-checkbox') ? 'checkbox' : 'dropdown';
    const handle = el.querySelector('.noUi-handle');
    const readout = el.querySelector('.widget-readout');
    return {kind, label: (label?.innerText ?? '').replace('\u200b', '').trim(), cut: cut(label) || cut(readout),
            value: handle ? Number(handle.getAttribute('aria-valuenow')) : null,
            min: handle ? Number(handle.getAttribute('aria-valuemin')) : null,
            max: handle ? Number(handle.getAttribute('aria-valuemax')) : null,
            options: el.querySelectorAll('option').length};
  });
}"""

# Words of the panels' text lines that the page wraps in the middle (a word drawn on two lines).
BROKEN_WORDS = """() => [...document.querySelectorAll('.harness-panel [data-redraw]')].flatMap(line => {
  const broken = [];
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      if (new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1) broken.push(match[0]);
    }
  }
  return broken;
})"""

# Text of every output a student would call stray or broken.
STRAY = re.compile(r"^(<function |<bound method |<Figure size|<matplotlib\.|interactive\(children|"
                   r"VBox\(children|HBox\(children|.* at 0x[0-9a-f]+>)")


@dataclass
class Move:
    """One move of one control and what it took to see the answer."""

    chapter: str
    panel: int
    control: str
    ms: float
    changed: bool


def open_notebook(page, url: str) -> None:
    """Open a notebook and wait until its kernel is idle."""
    page.goto(url)
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    page.evaluate(INSTALL_CLOCK)


def shut_down_kernels(page) -> None:
    """Stop every kernel of the server, so a chapter's kernel never runs on into the next chapter."""
    page.evaluate("""async () => {
      const sessions = await fetch('/api/sessions' + location.search).then(r => r.json());
      for (const s of sessions) await fetch('/api/sessions/' + s.id + location.search, {method: 'DELETE'});
    }""")


def is_dirty(page) -> bool:
    """Whether the notebook's tab shows the unsaved-changes mark."""
    return page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty").count() > 0


def run_all(page) -> None:
    """Clear every output, then Run All Cells from the menu, and wait until every code cell has run (or one
    failed) and the kernel is idle. (Cleared first: the saved outputs carry the same execution counts.)"""
    page.locator(".jp-Cell").first.click()  # focus the notebook so the menus act on it
    menu("Edit", "Clear Outputs of All Cells")(page)
    page.wait_for_function("""() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
                                     .every(p => !/\\d/.test(p.innerText))""", timeout=30_000)
    menu("Run", "Run All Cells")(page)
    page.wait_for_function(  # done, or stopped by an error (the caller then reports it)
        """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
                 .every(p => /\\[\\d+\\]/.test(p.innerText))
              || document.querySelector(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")""",
        timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=RUN_TIMEOUT_MS)


def menu(name: str, item: str):
    """A click on ``item`` of the main menu ``name``."""
    def click(page) -> None:
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{name}$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()
    return click


def panel_hints(page) -> int:
    """How many outputs show a slider panel's hint (a panel whose cell has not run in this kernel)."""
    return page.locator(".jp-OutputArea-output", has_text=HINT).count()


def error_outputs(page) -> list[str]:
    """Text of every error or stderr output on the page."""
    return page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").all_inner_texts()


def stray_outputs(page) -> list[str]:
    """Plain-text outputs that are a repr nobody meant to show."""
    texts = page.locator(".jp-OutputArea-output[data-mime-type='text/plain']").all_inner_texts()
    return [text.strip()[:80] for text in texts if STRAY.match(text.strip())]


def typeset_math(page) -> int:
    """How many formulas MathJax typeset: the chapters have none, so any is made from dollar signs."""
    return page.locator(".jp-Notebook mjx-container, .jp-Notebook .MathJax").count()


SLIDER_KEYS = ("ArrowRight", "ArrowRight", "ArrowLeft", "End", "Home")  # on, on, back, to each end
OPPOSITE = {"ArrowRight": "ArrowLeft", "ArrowLeft": "ArrowRight", "End": "Home", "Home": "End"}


def moves_of(control: dict) -> int:
    """How many moves a control gets: a slider two steps on, one back and to either end; a checkbox on
    and off; a dropdown once round all its options."""
    return {"slider": len(SLIDER_KEYS), "checkbox": 2}.get(control["kind"], control.get("options", 2))


def move(page, chapter: str, index: int, position: int, control: dict, step: int) -> Move:
    """Make a control's ``step``-th move and time the redraw."""
    box = page.locator(".harness-panel").nth(index)
    before = page.evaluate(PANEL_STATE, index)
    if control["kind"] == "slider":
        key = SLIDER_KEYS[step]
        at_max, at_min = control["value"] >= control["max"], control["value"] <= control["min"]
        if (at_max and key in ("ArrowRight", "End")) or (at_min and key in ("ArrowLeft", "Home")):
            key = OPPOSITE[key]
        box.locator(".noUi-handle").nth(rank(page, index, position, "slider")).focus()
        page.keyboard.press(key)
    elif control["kind"] == "checkbox":
        box.locator(".widget-checkbox input").nth(rank(page, index, position, "checkbox")).click()
    else:
        select = box.locator(".widget-dropdown select").nth(rank(page, index, position, "dropdown"))
        select.select_option(index=(select.evaluate("s => s.selectedIndex") + 1) % control["options"])
    ms = page.evaluate(AWAIT_REDRAW, [index, before["redraw"], REDRAW_TIMEOUT_MS])
    after = page.evaluate(PANEL_STATE, index)
    changed = (after["text"], after["image"]) != (before["text"], before["image"])
    return Move(chapter, index, control["label"], float("inf") if ms is None else ms, changed)


def rank(page, index: int, position: int, kind: str) -> int:
    """Among one panel's controls of ``kind``, the rank of the control at ``position``."""
    controls = page.evaluate(CONTROLS, index)
    return sum(1 for c in controls[:position] if c["kind"] == kind)
