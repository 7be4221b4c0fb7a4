"""Build the course as a static website (``make site``) from the committed chapters, running none of them.

Usage: python scripts/build_site.py [OUT]   (default build/site; serve it with
``python -m http.server -d build/site``)

The chapter notebooks ``notebooks/NN_*.ipynb`` (the student's version: stubs as stubs) are copied, made
static by ``site_pages.site_notebook`` (widget outputs drawn from their saved state, citations linked to
the Sources lists), next to the landing page ``site/index.md``, and Sphinx with myst-nb renders the
stored outputs (``site/conf.py``: no execution, no file fetched from the network). Nothing else in the
repository, in particular no solution module and nothing from ``notebooks/yours/``, is on the site.
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from sphinx.cmd.build import build_main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_pages import StaticPageError, site_notebook  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SITE = REPO / "site"
DEFAULT_OUT = REPO / "build" / "site"


class SiteBuildError(RuntimeError):
    """Sphinx reported an error or a warning (each is printed above): the site is not complete."""


def stage(pages: Path) -> list[Path]:
    """The site's sources in ``pages``: the landing page and every chapter made static."""
    if pages.exists():
        shutil.rmtree(pages)
    pages.mkdir(parents=True)
    shutil.copy(SITE / "index.md", pages / "index.md")
    staged = []
    for chapter in CHAPTERS:
        target = pages / chapter.name
        try:
            page = site_notebook(json.loads(chapter.read_text(encoding="utf-8")))
        except StaticPageError as error:
            raise StaticPageError(f"{chapter.relative_to(REPO)}: {error}") from None
        target.write_text(json.dumps(page, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        staged.append(target)
    return staged


def build(out: Path = DEFAULT_OUT) -> Path:
    """Stage the pages in a work folder beside ``out``, render them there, and move the site to ``out``
    (replaced); returns ``out``. Sphinx and myst-nb write their other files in the work folder too."""
    out = out.resolve()
    work = out.with_name(out.name + "-work")
    stage(work / "pages")
    html = work / "html"
    if html.exists():
        shutil.rmtree(html)
    status = build_main(["-b", "html", "-q", "-W", "--keep-going", "-c", str(SITE), "-d", str(work / "doctrees"),
                         str(work / "pages"), str(html)])
    if status:
        raise SiteBuildError(f"sphinx-build failed (status {status}); its warnings are above")
    if out.exists():
        shutil.rmtree(out)
    shutil.move(html, out)
    return out


if __name__ == "__main__":
    start = time.perf_counter()
    try:
        built = build(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)
    except (SiteBuildError, StaticPageError) as error:
        raise SystemExit(f"error: {error}") from None
    print(f"site built in {time.perf_counter() - start:.1f} s: python -m http.server -d {built}")
