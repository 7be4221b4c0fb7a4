"""Tables of numbers: plain text for reading and nbval, markdown for JupyterLab (harness/labs/tables.py, ch. 09)."""
from __future__ import annotations

import pytest
from IPython.core.formatters import DisplayFormatter

from harness.labs.tables import Table


def test_a_table_is_its_aligned_text():
    table = Table(["setting", "calls", "$"], [["keep 1", 60, "$0.586"], ["no compaction", 54, "$0.864"]])
    assert isinstance(table, str)
    assert table.splitlines() == ["setting        calls       $",
                                  "-------------  -----  ------",
                                  "keep 1            60  $0.586",
                                  "no compaction     54  $0.864"]
    assert repr(table) == str(table)
    assert table.header == ("setting", "calls", "$") and table.rows[0] == ("keep 1", "60", "$0.586")


def test_a_notebook_shows_the_text_and_a_markdown_table_without_dollar_signs():
    table = Table(["a", "b"], [["x|y", "$1"]])
    data, _ = DisplayFormatter().format(table)
    assert data["text/plain"] == str(table)
    assert data["text/markdown"].splitlines() == ["| a | b |", "|:--|--:|", "| x\\|y | \\\\$1 |"]


def test_rows_must_fit_the_header():
    with pytest.raises(ValueError):
        Table(["a", "b"], [["only one"]])
