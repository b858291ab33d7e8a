"""Opt-in: the language-model planner with a real small model run in-process (llama-cpp-python + a GGUF file).

Skipped unless ``llama_cpp`` imports and ``VIDMEM_TEST_GGUF`` names a GGUF file
(e.g. Qwen2.5 0.5B or 1.5B instruct).  Nothing is downloaded.  It asks a few
simple questions on the small memory of planner_memory.py and checks that the
model, not the harness's forced answer, answered with references it observed.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from planner_memory import T0, Memory

from vidmem_ros.agent.reasoner import Reasoner

GGUF = os.environ.get("VIDMEM_TEST_GGUF", "")

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="llama-cpp-python is not installed (pip install llama-cpp-python; it compiles for minutes)",
    ),
    pytest.mark.skipif(
        not GGUF or not Path(GGUF).is_file(),
        reason="set VIDMEM_TEST_GGUF to a small instruct GGUF file (e.g. Qwen2.5 0.5B/1.5B) to run this test",
    ),
]


@pytest.fixture(scope="module")
def local(memory: Memory) -> Reasoner:
    return memory.llm_reasoner(llm_local_model=GGUF, timeout_s=240.0)


@pytest.mark.parametrize(
    "question", ["Did you see a cat?", "When did you first see a cup?", "Where was the robot when it saw the cat?"]
)
def test_a_small_model_answers_from_memory(local: Reasoner, question: str) -> None:
    answer = local.answer(question, max_turns=4)
    steps = answer.trace["steps"]
    assert answer.success, answer.error
    assert "forced" not in answer.trace, f"the model never answered: {steps}"
    observed = {s["call"] for s in steps if "call" in s}
    assert observed, "the model answered without looking at memory"
    assert answer.evidence and all(
        e.ref.split("/")[0] in ("moment", "event", "text", "transcript") for e in answer.evidence
    )
    assert all(T0 <= e.stamp <= T0 + 40 for e in answer.evidence)
