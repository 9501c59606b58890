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

.PHONY: run test lint migrate install

run: migrate
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .

migrate: install
	$(BIN)/python manage.py migrate --noinput

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e ".[dev]"
	touch $(STAMP)
