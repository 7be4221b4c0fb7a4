# Context Compaction, step by step.
# Needs only python3 (3.11+) and make; everything else goes into .venv.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Three stamps: `make lab` installs what the lab needs; `make site` adds the site builder; `make test`
# adds the test tools to both (make check's browser test builds the site).
LAB_STAMP  := $(VENV)/.installed-lab
SITE_STAMP := $(VENV)/.installed-site
TEST_STAMP := $(VENV)/.installed-test
# Where `make site` writes the website (git-ignored, as all of build/).
SITE_OUT ?= build/site
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
LATEST_VENV ?= /tmp/cc-latest-venv
FRESH    ?= /tmp/cc-fresh-clone

.PHONY: setup lab site test unit-and-notebooks test-latest check bench lock clean fresh-check

setup: $(TEST_STAMP)

$(LAB_STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "error: $(PYTHON) must be Python 3.11 or newer (try make PYTHON=python3.11 ...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -c constraints.txt -e .
	touch $@

$(SITE_STAMP): $(LAB_STAMP)
	$(BIN)/python -m pip install -c constraints.txt -e '.[site]'
	touch $@

$(TEST_STAMP): $(SITE_STAMP)
	$(BIN)/python -m pip install -c constraints.txt -e '.[test,site]'
	touch $@

lab: $(LAB_STAMP)
	$(BIN)/jupyter lab notebooks/ $(LAB_SETTINGS) $(ROOT_ARGS) $(LAB_ARGS)

# The course as a static website in $(SITE_OUT), from the committed notebooks' stored outputs (nothing
# runs, nothing is fetched); serve it with: python3 -m http.server -d $(SITE_OUT)
site: $(SITE_STAMP)
	$(BIN)/python scripts/build_site.py $(SITE_OUT)

# What a student or a contributor runs on every change: the unit tests, then strict nbval of every
# chapter; fails if either failed.
test: $(TEST_STAMP)
	@$(MAKE) --no-print-directory unit-and-notebooks

unit-and-notebooks:
	@status=0; \
	$(UNIT) -m "not browser and not soak and not solutions" || status=1; \
	$(NBVAL) || status=1; \
	exit $$status

# The canary, not part of make check: the newest release of every dependency, unpinned, in a venv of its
# own; it prints the versions (and which differ from constraints.txt), then runs what make test runs.
# A failure there means a new release changed something the course relies on: read its changelog.
test-latest:
	rm -rf $(LATEST_VENV)
	$(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install -q --upgrade pip
	$(LATEST_VENV)/bin/python -m pip install -q --upgrade -e '.[test,site]'
	$(LATEST_VENV)/bin/python scripts/print_versions.py
	@$(MAKE) --no-print-directory unit-and-notebooks BIN=$(LATEST_VENV)/bin

# make test, then every chapter in JupyterLab in headless Chromium (required here: no Chromium is a
# failure, not a skip), every page of the website built afresh (tests/test_site.py), the headless soak,
# and every chapter with its stubs filled by the references. What CI runs.
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
	$(LOCK_VENV)/bin/python -m pip install -e '.[test,site]'
	{ echo "# Exact versions from a fresh 'pip install -e .[test,site]' (Python 3.11, Linux)."; \
	  echo "# Used as: pip install -c constraints.txt -e '.[test,site]'  (see Makefile)."; \
	  echo "# Regenerate after changing dependencies in pyproject.toml: make lock"; \
	  $(LOCK_VENV)/bin/python -m pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCK_VENV)

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info notebooks/_work
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
