"""Sphinx settings of the course's website (built by scripts/build_site.py; see README, "The course as a website").

The pages are rendered from the outputs the notebooks store: nothing runs, and nothing is fetched,
either while building or in the reader's browser (no require.js, no widget manager, no web fonts from
a CDN); the widget outputs were already made static by scripts/site_pages.py.
"""
project = "Context Compaction, step by step"
author = "the course's authors"
copyright = "the course's authors"

extensions = ["myst_nb"]
root_doc = "index"
exclude_patterns = ["**/.ipynb_checkpoints"]

# myst-nb: show what the notebooks stored, execute nothing, load no widget JavaScript.
nb_execution_mode = "off"
nb_ipywidgets_js = {}
nb_output_stderr = "show"
nb_merge_streams = True
myst_heading_anchors = 3

html_theme = "sphinx_book_theme"
html_title = project
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_theme_options = {
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_source_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "launch_buttons": {},
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "search_bar_text": "Search the course...",
    "shorten_urls": False,  # a source's address is shown in full (with its commit), as in the notebook
}
# The theme's light/dark switch needs a starting mode (without one it logs a console error); the
# figures are drawn on white.
html_context = {"default_mode": "light"}
# A favicon of our own, so the browser's request for one is answered.
html_favicon = "_static/favicon.svg"
