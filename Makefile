# Each target sets up what it needs: a .venv, the packages (re-installed only when
# pyproject.toml changes), and for `run` the database tables.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8000
# Exported to `run`'s server: unset, SITE_URL (the links in mails) follows the port it serves on.
export PORT
PYTEST_ARGS ?=
# Test processes run at once (pytest-xdist; docs/testing.md): `auto` is one per core.
TEST_WORKERS ?= auto

.PHONY: run serve test lint migrate install

run: migrate
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# The production topology on this machine (docs/operations.md): the web processes, the Celery worker
# and beat under supervisord, which restarts whichever dies. Needs DATABASE_URL, REDIS_URL,
# SECRET_KEY and SITE_URL; DEBUG is 0 unless set.
SERVE_STATE ?= $(CURDIR)/.serve
serve: install
	@test -n "$$REDIS_URL" -a -n "$$DATABASE_URL" || { echo "make serve runs the production topology: set DATABASE_URL, REDIS_URL, SECRET_KEY and SITE_URL (docs/operations.md); make run needs none of them"; exit 2; }
	mkdir -p $(SERVE_STATE)/metrics && rm -rf $(SERVE_STATE)/metrics/*
	DEBUG=$${DEBUG:-0} $(BIN)/python manage.py migrate --noinput
	DEBUG=$${DEBUG:-0} $(BIN)/python manage.py collectstatic --noinput -v0
	DEBUG=$${DEBUG:-0} SERVE_STATE=$(SERVE_STATE) PROMETHEUS_MULTIPROC_DIR=$(SERVE_STATE)/metrics \
		PATH=$(CURDIR)/$(BIN):$$PATH exec $(BIN)/supervisord --configuration deploy/supervisord.conf

# PYTHONDONTWRITEBYTECODE emptied: where the environment sets it (this machine's does), every Python
# the tests start (servers, `manage.py` runs, shells) compiled the site and its libraries from
# source again; written once, they are read after. Measured (bench/README.md): five test files took
# 43-50 s of processor without the bytecode and 32 s with it.
test: install node_modules/.package-lock.json
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

# The tests' Node packages (axe-core for tests/browser/test_accessibility.py), from package-lock.json.
node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports

migrate: install
	$(BIN)/python manage.py migrate --noinput

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# --no-compile: pip byte-compiles nothing at install (half its time on a fresh clone); Python
# compiles each module the first time it is imported, and keeps it in __pycache__. No upgrade of
# pip first: the venv's own (22.3 or later with Python 3.11) installs the project as it is, and
# asking the index for a newer one took about 17 s of a fresh clone's install here.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --no-compile -e ".[dev]"
	touch $(STAMP)
