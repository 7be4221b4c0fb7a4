"""The sliders work in the JupyterLab a student opens: headless Chromium runs a chapter and moves one.

Starts JupyterLab on 127.0.0.1 (token, isolated settings, news and update checks off), opens a
chapter in Debian's Chromium through Playwright (no browser download), runs all cells, moves the
KEEP_RECENT slider with the keyboard and checks that the printed token figure and the plot change.
A screenshot is saved under build/screenshots/. The server is always stopped.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from lab_server import lab_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = os.environ.get("BROWSER_TEST_NOTEBOOK", "09_tuning_lab.ipynb")
SLIDER_LABEL = os.environ.get("BROWSER_TEST_SLIDER", "KEEP_RECENT")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")


def panel_state(page, slider):
    """The text line and the image of the slider panel that holds ``slider``."""
    box = slider.locator("xpath=ancestor::div[contains(@class, 'harness-panel')][1]")
    return box.locator(".widget-html").first.inner_text(), box.locator("img").first.get_attribute("src")


def screenshot_path(label: str) -> Path:
    shots = REPO / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    return shots / f"{Path(NOTEBOOK).stem}-{label}.png"


def test_slider_redraws_figure_and_numbers(tmp_path):
    from playwright.sync_api import sync_playwright

    root = REPO / "notebooks"
    assert (root / NOTEBOOK).exists(), f"missing notebook {NOTEBOOK}"
    with lab_server(root, tmp_path) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url.format(path=NOTEBOOK))
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
            page.locator(".jp-Cell").first.click()  # focus the notebook so the Run menu acts on it
            page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
            page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
            slider = page.locator(".widget-slider").filter(has_text=SLIDER_LABEL).first
            try:
                slider.wait_for(timeout=120_000)
            except Exception:
                page.screenshot(path=str(screenshot_path("failed")))
                raise
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
            slider.scroll_into_view_if_needed()
            before_text, before_image = panel_state(page, slider)
            assert re.search(r"\d", before_text), f"no figure printed under the slider: {before_text!r}"
            assert before_image, "no plot under the slider"

            slider.locator(".noUi-handle").focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(
                """([label, oldText, oldImage]) => [...document.querySelectorAll('.harness-panel')]
                     .some(box => {
                       const line = box.querySelector('.widget-html'), img = box.querySelector('img');
                       return box.textContent.includes(label) && line && line.innerText !== oldText
                              && img && img.complete && img.getAttribute('src') !== oldImage;
                     })""",
                arg=[SLIDER_LABEL, before_text, before_image], timeout=60_000)
            page.wait_for_timeout(1_000)  # let the new image paint before the screenshot
            after_text, after_image = panel_state(page, slider)
            page.screenshot(path=str(screenshot_path("slider")))
        finally:
            browser.close()
    assert after_text != before_text
    assert after_image and after_image != before_image
