# Context Compaction, step by step.
# Needs only python3 (3.11+) and make; everything else goes into .venv.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Two stamps: `make lab` installs what the lab needs; `make test` adds the test tools.
LAB_STAMP  := $(VENV)/.installed-lab
TEST_STAMP := $(VENV)/.installed-test
# Extra arguments for `jupyter lab`, e.g. make lab LAB_ARGS=--no-browser.
# The port comes from JUPYTER_PORT (read by Jupyter itself), default 8888.
LAB_ARGS ?=
# Jupyter refuses to start as root (containers, CI) without this flag.
ROOT_ARGS := $(if $(filter 0,$(shell id -u)),--allow-root)
# The project's lab defaults (lab-settings/overrides.json: no news question, no update check);
# a student's own settings still apply on top.
LAB_SETTINGS := --LabApp.app_settings_dir=$(CURDIR)/lab-settings
# Two chapters at a time (each kernel's sweeps use every core as well), without the plugins nbval does
# not use (hypothesis alone adds a second to every start); the unit tests on every core.
NBVAL    := HARNESS_YOURS=$$(mktemp -d) $(BIN)/pytest -n 2 --dist loadfile -p no:hypothesispytest -p no:anyio --nbval --nbval-current-env \
            --nbval-cell-timeout=300 --nbval-sanitize-with notebooks/sanitize.cfg notebooks/
UNIT     := $(BIN)/pytest -n auto tests
LOCK_VENV ?= /tmp/cc-lock-venv
FRESH    ?= /tmp/cc-fresh-clone

.PHONY: setup lab test check bench lock clean fresh-check

setup: $(TEST_STAMP)

$(LAB_STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "error: $(PYTHON) must be Python 3.11 or newer (try make PYTHON=python3.11 ...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -c constraints.txt -e .
	touch $@

$(TEST_STAMP): $(LAB_STAMP)
	$(BIN)/python -m pip install -c constraints.txt -e '.[test]'
	touch $@

lab: $(LAB_STAMP)
	$(BIN)/jupyter lab notebooks/ $(LAB_SETTINGS) $(ROOT_ARGS) $(LAB_ARGS)

# What a student or a contributor runs on every change: the unit tests, then strict nbval of every
# chapter; fails if either failed.
test: $(TEST_STAMP)
	@status=0; \
	$(UNIT) -m "not browser and not soak and not solutions" || status=1; \
	$(NBVAL) || status=1; \
	exit $$status

# make test, then every chapter in JupyterLab in headless Chromium (required here: no Chromium is a
# failure, not a skip), the headless soak, and every chapter with its stubs filled by the references.
# What CI runs.
check: test
	HARNESS_REQUIRE_BROWSER=1 $(BIN)/pytest tests -m "browser or soak or solutions"

bench: $(LAB_STAMP)
	$(BIN)/python -m benchmarks

# Clone what is committed into an empty folder and run the README's commands there,
# so a missing install step fails here instead of on a student's machine.
fresh-check:
	rm -rf $(FRESH)
	git clone -q . $(FRESH)
	$(MAKE) -C $(FRESH) check
	cd $(FRESH) && $(PYTHON) scripts/check_lab.py
	rm -rf $(FRESH)

# Re-resolve every dependency in a brand-new venv and pin the result.
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install -e '.[test]'
	{ echo "# Exact versions from a fresh 'pip install -e .[test]' (Python 3.11, Linux)."; \
	  echo "# Used as: pip install -c constraints.txt -e '.[test]'  (see Makefile)."; \
	  echo "# Regenerate after changing dependencies in pyproject.toml: make lock"; \
	  $(LOCK_VENV)/bin/python -m pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCK_VENV)

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info notebooks/_work
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
