"""The course as a website (make site; scripts/build_site.py, scripts/site_pages.py).

The unit tests check how a notebook is made static: a slider panel becomes its default picture and a
line saying ``make lab`` opens it live, citations link to the Sources list. The browser tests (marker
``browser``, so ``make check`` runs them) build the site afresh from the committed notebooks into a
temporary folder, serve it on 127.0.0.1, and open every page in Debian's headless Chromium (driven by
Playwright, no browser download), checking three things on each: no console error, no request to any
host but the local server, and every image and every anchor (a ``#fragment`` or a local link)
resolves. A copy of the site with one page broken on purpose shows that each check can fail.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from site_pages import (LIVE, StaticPageError, anchor_sources, link_citations, site_notebook,  # noqa: E402
                        static_output, widget_models)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHAPTERS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PAGES = ["index", *(c.stem for c in CHAPTERS), "genindex", "search"]
REQUIRED = os.environ.get("HARNESS_REQUIRE_BROWSER") == "1"  # make check: a missing browser fails
no_chromium = pytest.mark.skipif(not REQUIRED and not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")

# sphinx-book-theme 1.4 reads a Sphinx attribute that Sphinx 11 will remove: not this project's to fix.
pytestmark = pytest.mark.filterwarnings("ignore:.*HandleFootnoteTransform.app' is deprecated")


def in_browser(test):
    """A test that opens the site in Chromium: marked ``browser``, so make check runs it."""
    return pytest.mark.browser(no_chromium(test))


# What the page looks at once it has loaded: every image that did not load, every link, every id, the
# article's text and pictures, and each static slider panel.
LOOK = """async () => {
  await Promise.all([...document.images].map(i => i.decode().catch(() => null)));
  const article = document.querySelector('article') || document.body;
  return {
    images: [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
    ids: [...document.querySelectorAll('[id], a[name]')].map(e => e.id || e.getAttribute('name')),
    text: article.innerText,
    pictures: article.querySelectorAll('img').length,
    folded: [...article.querySelectorAll('details.above-input')].map(d => ({
      open: d.open, hidden: !(d.querySelector('.cell_input') || d).checkVisibility()})),
    panels: [...article.querySelectorAll('.site-panel')].map(p => ({
      picture: [...p.querySelectorAll('img')].some(i => i.naturalWidth > 0), text: p.innerText})),
  };
}"""


def notebook(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# --- unit tests: the static forms ---------------------------------------------------------------


def panel_notebook(png: str = "iVBORw0KGgo=") -> dict:
    """A notebook with one slider panel output, stored as harness.labs.panel stores it."""
    state = {
        "box": {"model_name": "VBoxModel", "state": {"_dom_classes": ["harness-panel"],
                                                      "children": ["IPY_MODEL_row", "IPY_MODEL_line", "IPY_MODEL_pic"]}},
        "row": {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_slider", "IPY_MODEL_tick"]}},
        "slider": {"model_name": "IntSliderModel", "state": {"description": "keep_recent", "value": 3}},
        "tick": {"model_name": "CheckboxModel", "state": {"description": "preserve read_file", "value": True}},
        "line": {"model_name": "HTMLModel", "state": {"value": "<pre>history 25,128 -&gt; 25,050 tokens</pre>"}},
        "pic": {"model_name": "ImageModel", "state": {"format": "png"}, "buffers": [{"path": ["value"], "data": png}]},
    }
    view = {"output_type": "display_data", "metadata": {}, "data": {
        "application/vnd.jupyter.widget-view+json": {"model_id": "box", "version_major": 2, "version_minor": 0},
        "text/plain": ["A slider panel: run this cell (and the ones above it) to use it."]}}
    return {"cells": [{"cell_type": "code", "source": "panel(...)", "outputs": [view], "metadata": {}}],
            "metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": state}}}}


def test_a_panel_becomes_its_default_picture_with_its_values_and_the_command_that_opens_it():
    page = site_notebook(panel_notebook())
    (output,) = page["cells"][0]["outputs"]
    shown = output["data"]["text/html"]
    assert list(output["data"]) == ["text/html"] and "widgets" not in page["metadata"]
    assert "keep_recent = 3" in shown and "preserve read_file: on" in shown
    assert "history 25,128 -&gt; 25,050 tokens" in shown
    assert "src='data:image/png;base64,iVBORw0KGgo='" in shown
    assert shown.index("keep_recent") < shown.index("history") < shown.index("data:image") < shown.index(LIVE)


def test_a_widget_without_saved_state_is_a_clear_error_and_the_notebook_is_untouched():
    broken = panel_notebook()
    del broken["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]["pic"]
    before = json.dumps(broken)
    with pytest.raises(StaticPageError, match="widget pic has no saved state"):
        site_notebook(broken)
    assert json.dumps(broken) == before


def test_other_outputs_are_kept_as_they_are():
    printed = {"output_type": "stream", "name": "stdout", "text": "69.8% smaller\n"}
    assert static_output(widget_models(panel_notebook()), printed) is printed


def test_a_folded_cell_is_folded_on_the_page_with_its_output_shown():
    printed = {"output_type": "stream", "name": "stdout", "text": "checked\n"}
    book = {"cells": [{"cell_type": "code", "source": "assert True", "outputs": [printed],
                       "metadata": {"jupyter": {"source_hidden": True}}},
                      {"cell_type": "code", "source": "x = 1", "outputs": [], "metadata": {}}], "metadata": {}}
    folded, shown = site_notebook(book)["cells"]
    assert folded["metadata"]["tags"] == ["hide-input"] and folded["outputs"] == [printed]
    assert "tags" not in shown["metadata"] and "tags" not in book["cells"][0]["metadata"]


def test_citations_link_to_their_sources_outside_code_and_links():
    text = "as the guide says [2] and [3, 5], or [4-6]; not `results[0]`, not [the docs](https://x.y)."
    linked = link_citations(text)
    for number in (2, 3, 4, 5, 6):
        assert f"href='#source-{number}'>{number}</a>" in linked
    assert "`results[0]`" in linked and "[the docs](https://x.y)" in linked
    assert "#source-0" not in linked


def test_every_source_gets_its_anchor_and_bare_addresses_become_links():
    sources = link_citations("## Sources\n\n1. Anthropic, \"Context editing\" — https://example.org/a (defaults)\n"
                             "2. shareAI-lab/learn-claude-code — https://example.org/b.\n")
    anchored = anchor_sources(sources)
    assert "1. <span id='source-1'></span>Anthropic" in anchored and "2. <span id='source-2'></span>" in anchored
    assert "<https://example.org/a> (defaults)" in anchored and "<https://example.org/b>." in anchored


# --- the built site, in Chromium ----------------------------------------------------------------


@dataclass
class Visit:
    """What one page did in the browser."""
    errors: list[str] = field(default_factory=list)    # console errors and uncaught exceptions
    foreign: list[str] = field(default_factory=list)   # requests to any host but the local server
    failed: list[str] = field(default_factory=list)    # local requests answered with an error
    images: list[str] = field(default_factory=list)    # images that did not load
    links: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    text: str = ""
    pictures: int = 0
    panels: list[dict] = field(default_factory=list)
    folded: list[dict] = field(default_factory=list)   # each folded source: open? drawn with no height?


@dataclass
class Site:
    """A built site served on 127.0.0.1, the browser that reads it, and every page's visit, kept."""
    root: Path
    url: str
    browser: object
    visits: dict[str, Visit] = field(default_factory=dict)

    def visit(self, path: str) -> Visit:
        if path not in self.visits:
            self.visits[path] = visit(self.browser, self.url, path)
        return self.visits[path]

    def broken_links(self, path: str) -> list[str]:
        """Every local link or #fragment of the page that goes nowhere."""
        broken = []
        for link in self.visit(path).links:
            target, fragment = urldefrag(link)
            if urlparse(target).netloc != urlparse(self.url).netloc:
                continue  # an address on another host: a link the reader may follow, never loaded here
            local = urlparse(target).path.lstrip("/") or "index.html"
            if not (self.root / local).is_file():
                broken.append(link)
            elif fragment and local.endswith(".html") and fragment not in self.visit(local).ids:
                broken.append(link)
        return broken


def visit(browser, url: str, path: str) -> Visit:
    """Open one page in a fresh context; any request off the local server is recorded and refused."""
    seen = Visit()
    host = urlparse(url).netloc
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        def route(request_route) -> None:
            if urlparse(request_route.request.url).netloc == host:
                request_route.continue_()
            else:
                seen.foreign.append(request_route.request.url)
                request_route.abort()
        context.route("**/*", route)
        page = context.new_page()
        page.on("console", lambda message: seen.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: seen.errors.append(str(error)))
        page.on("response", lambda r: seen.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.on("requestfailed", lambda r: seen.failed.append(r.url) if urlparse(r.url).netloc == host else None)
        page.goto(f"{url}/{path}", wait_until="load")
        page.wait_for_load_state("networkidle")
        looked = page.evaluate(LOOK)
        seen.images, seen.links, seen.ids = looked["images"], looked["links"], set(looked["ids"])
        seen.text, seen.pictures, seen.panels = looked["text"], looked["pictures"], looked["panels"]
        seen.folded = looked["folded"]
    finally:
        context.close()
    return seen


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the test reports what failed; no line per request
        pass


@contextlib.contextmanager
def served(root: Path) -> Iterator[str]:
    """``root`` served on 127.0.0.1 (a free port) while the block runs: python -m http.server's handler."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"make check needs Debian's Chromium at {CHROMIUM} (apt-get install chromium)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The site built afresh from the committed notebooks, as make site builds it."""
    from build_site import build

    return build(tmp_path_factory.mktemp("site") / "site")


@pytest.fixture(scope="module")
def site(built, chromium) -> Iterator[Site]:
    with served(built) as url:
        yield Site(built, url, chromium)


def problems(site: Site, path: str) -> dict[str, list[str]]:
    """The three checks of one page, each a list of what is wrong (empty when the page passes)."""
    seen = site.visit(path)
    return {"console errors": seen.errors, "requests off the local server": seen.foreign,
            "local requests that failed": seen.failed, "images that did not load": seen.images,
            "anchors that go nowhere": site.broken_links(path)}


@in_browser
@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_clean_offline_with_every_image_and_anchor_resolved(site, page):
    assert (site.root / f"{page}.html").is_file(), f"no page {page}.html"
    found = {check: wrong for check, wrong in problems(site, f"{page}.html").items() if wrong}
    assert not found, f"{page}: {found}"


@in_browser
def test_each_check_fails_on_a_page_broken_on_purpose(built, chromium, tmp_path):
    broken = tmp_path / "site"
    shutil.copytree(built, broken)
    page = broken / "02_micro_compact.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", (
        "<img src='_images/missing.png'><a href='#no-such-anchor'>x</a><a href='no-such-page.html'>y</a>"
        "<img src='http://example.invalid/picture.png'><script>console.error('broken on purpose')</script>"
        "</body>")), encoding="utf-8")
    with served(broken) as url:
        found = problems(Site(broken, url, chromium), "02_micro_compact.html")
    assert found["console errors"] and any("broken on purpose" in e for e in found["console errors"])
    assert found["requests off the local server"] == ["http://example.invalid/picture.png"]
    assert any(f.endswith("/_images/missing.png") for f in found["local requests that failed"])
    assert set(found["images that did not load"]) == {"_images/missing.png", "http://example.invalid/picture.png"}
    nowhere = {(urlparse(a).path.rsplit("/", 1)[-1], urlparse(a).fragment) for a in found["anchors that go nowhere"]}
    assert nowhere == {("02_micro_compact.html", "no-such-anchor"), ("no-such-page.html", "")}


@in_browser
def test_a_page_per_chapter_in_chapter_order_and_nothing_else(site):
    assert sorted(p.stem for p in site.root.glob("*.html")) == sorted(PAGES)
    assert not any((site.root / "_sources").rglob("*")), "the notebooks' sources are copied to the site"
    shipped = {p.name for p in site.root.iterdir()}
    assert shipped <= {f"{p}.html" for p in PAGES} | {"_images", "_static", "_sources", "searchindex.js",
                                                      "objects.inv", ".buildinfo"}, shipped
    pages = [urlparse(link).path.rsplit("/", 1)[-1] for link in site.visit("index.html").links]
    order = list(dict.fromkeys(p.removesuffix(".html") for p in pages if p.removesuffix(".html") in PAGES[1:-2]))
    assert order == [c.stem for c in CHAPTERS]


def stored(path: Path) -> tuple[int, int, list[bool]]:
    """(stubs, pictures, for each slider panel whether it holds a picture) of a chapter notebook."""
    book = notebook(path)
    models = widget_models(book)
    code = [c for c in book["cells"] if c["cell_type"] == "code"]
    stubs = sum("".join(c["source"]).count("raise NotImplementedError") for c in code)
    outputs = [o for c in code for o in c.get("outputs", [])]
    pictures = sum("image/png" in o.get("data", {}) for o in outputs)
    views = [o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] for o in outputs
             if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    panels = [models[v]["state"] for v in views if "harness-panel" in models[v]["state"].get("_dom_classes", [])]
    held = [any(models[c.removeprefix("IPY_MODEL_")]["state"].get("value") for c in panel["children"]
                if models[c.removeprefix("IPY_MODEL_")]["name"] == "ImageModel") for panel in panels]
    return stubs, pictures, held


@in_browser
@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_the_page_shows_the_students_chapter_its_figures_and_each_panel_statically(site, chapter):
    seen = site.visit(f"{chapter.stem}.html")
    stubs, pictures, panels = stored(chapter)
    assert seen.text.count("raise NotImplementedError") == stubs, "the stubs are not shown as stubs"
    assert [p["picture"] for p in seen.panels] == panels, "a slider panel's stored picture is not on the page"
    for panel in seen.panels:
        assert "make lab opens it live" in panel["text"], panel["text"][:200]
    assert seen.pictures == pictures + sum(panels), "a stored figure is not on the page"


@in_browser
@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_every_folded_cell_is_collapsed_on_the_page(site, chapter):
    folded = sum(1 for c in notebook(chapter)["cells"]
                 if c["cell_type"] == "code" and c["metadata"].get("jupyter", {}).get("source_hidden"))
    seen = site.visit(f"{chapter.stem}.html").folded
    assert len(seen) == folded, f"{len(seen)} folded sources on the page, {folded} folded cells in the notebook"
    assert all(not d["open"] and d["hidden"] for d in seen), "a folded cell's source is shown open"


@in_browser
@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_the_sources_list_has_an_anchor_per_item_and_the_text_links_to_it(site, chapter):
    sources = "".join(notebook(chapter)["cells"][-1]["source"])
    items = len(re.findall(r"^\d+\. ", sources, re.MULTILINE))
    seen = site.visit(f"{chapter.stem}.html")
    assert {i for i in seen.ids if i.startswith("source-")} == {f"source-{n}" for n in range(1, items + 1)}
    cited = {urldefrag(link)[1] for link in seen.links if "#source-" in link}
    assert cited, "no citation links to the Sources list"


@in_browser
def test_the_search_box_finds_a_chapter(site):
    context = site.browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{site.url}/index.html")
        assert page.locator("form.bd-search input[name=q]").count() >= 1, "no search box"
        page.goto(f"{site.url}/search.html?q=placeholder")
        results = page.locator("#search-results ul.search li a")
        results.first.wait_for(timeout=15_000)
        found = {urlparse(href).path.rsplit("/", 1)[-1] for href in results.evaluate_all("l => l.map(a => a.href)")}
    finally:
        context.close()
    assert "02_micro_compact.html" in found, found
