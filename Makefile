# cardtable: `make run` sets up and runs the demo table; `make test` sets up and passes the tests.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run demo test test-py test-mpy bench bench-long soak draw flash firmware clean

# npm installs beside pip, and pip leaves byte-compiling to the first import (most of what it
# installs is never imported; compiling it all was half of pip's 15 s): 31 s -> 25 s here.
$(STAMP): pyproject.toml package.json package-lock.json
	$(PYTHON) -m venv $(VENV)
	npm ci --silent --no-audit --no-fund & npm=$$!; \
	{ $(BIN)/pip install --quiet --upgrade pip && \
	  PYTHONWARNINGS='ignore:Editable installation' $(BIN)/pip install --quiet --no-compile -e '.[test]' && \
	  $(BIN)/pip install --quiet --no-compile --no-user --upgrade --target typings micropython-rp2-rpi_pico-stubs==1.27.0.post1; }; \
	pip=$$?; wait $$npm || { echo "make setup: npm ci failed (above)" >&2; exit 1; }; exit $$pip
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/cardtable run

demo: setup
	$(BIN)/cardtable demo

# First the set-up: the Debian packages of tools/system-packages.txt (installed when root or
# `sudo -n` works, else it stops with the one command to run) and the firmware image. Then pytest
# with a worker per core and one more (pytest-xdist), a test file to a worker (its module fixtures are built once);
# each worker keeps its own port-lock folder (tests/conftest.py). The MicroPython runner runs
# beside it at the lowest CPU priority, on the CPU pytest leaves idle (tools/testall.py). At the
# end every skipped test is listed with its reason; CARDTABLE_ALLOW_SKIP=rp2,browser,... allows
# a capability to be skipped (otherwise that fails the run). `make test ARGS=tests/host/x.py`
# passes arguments to pytest.
test: setup
	$(BIN)/python tools/testall.py $(ARGS)

test-py: setup
	$(BIN)/python -m pytest -n auto --dist loadfile

test-mpy: setup
	$(BIN)/python tools/mpy/test_mpy.py

bench: setup
	$(BIN)/python bench/run.py

bench-long: setup
	$(BIN)/python bench/run.py --long

SOAK_S ?= 1800
soak: setup  # `make soak SOAK_S=60` for a short one
	$(BIN)/python bench/serveload.py --viewers 200 --seconds $(SOAK_S) --delay 0.1 --json bench/results/soak.json

draw: setup
	$(BIN)/cardtable draw

# The Pico image with the device package frozen in (cached by the hash of its inputs).
firmware:
	$(PYTHON) tools/firmware/build.py

flash: setup
	$(BIN)/cardtable flash

clean:
	rm -rf $(VENV) node_modules build .pytest_cache
