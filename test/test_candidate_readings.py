"""Two readings of a question no rule reads: the rules' search first, the model's reading only where that answer is
weak, and the better supported answer stands.  The model is a real HTTP server speaking the OpenAI protocol with
scripted replies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, text

from vidmem_ros.agent.answer import Answer
from vidmem_ros.agent.asked import Asked
from vidmem_ros.agent.question import parse_question
from vidmem_ros.agent.question_model import ModelQuestionParser, build_question_parser
from vidmem_ros.agent.reasoner import Reasoner, support, weak
from vidmem_ros.config import QueryConfig
from vidmem_ros.memory.records import Detection, Moment, Pose, Transcript
from vidmem_ros.memory.store import SqliteStore

T0 = 1_800_000_000.0


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


@pytest.fixture
def reasoner(tmp_path: Path, chat: ChatServer) -> Reasoner:
    store = SqliteStore(tmp_path / "memory.db")
    kettle = Detection("kettle", 0.9, (0.0, 0.0, 10.0, 10.0))
    for offset in (10, 11, 12):
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, detections=[kettle], pose=Pose("map", 3.0, 4.0)))
    store.add_moment(Moment(T0 + 30, "/cam", 64, 48, None, pose=Pose("map", 5.0, 4.0)))
    store.add_transcript(Transcript(T0 + 20, T0 + 23, "The glazier will replace the cracked pane on Thursday."))
    config = QueryConfig(parser="server", llm_url=chat.url, llm_model="scripted", parser_first="rules")
    parser = build_question_parser(config.model_copy(update={"parser_timeout_s": 2.0}))
    assert isinstance(parser, ModelQuestionParser)
    return Reasoner(store, config, ("kettle", "person"), parser=parser)


def plan(**fields: str) -> str:
    return json.dumps({"intent": "did", "modality": "object", "subject": "", "other": ""} | fields)


@pytest.mark.parametrize(
    "question",
    [
        "Out of interest, the cracked pane: on which day is the glazier coming to replace it?",
        "The glazier and the cracked pane, what day was given for that?",
    ],
)
def test_a_well_supported_answer_on_the_rules_reading_needs_no_model(
    reasoner: Reasoner, chat: ChatServer, question: str
) -> None:
    assert parse_question(question) is None  # no sentence pattern knows it
    answer = reasoner.answer(question)
    assert "Thursday" in str(answer.value), answer.text
    assert chat.bodies == [] and answer.trace["parser"] == "rules"


@pytest.mark.parametrize(
    "question",
    [
        "The thing one boils water in: has it turned up anywhere on your rounds?",
        "Would you say a device for boiling water has crossed your path?",
    ],
)
def test_where_the_rules_reading_is_weak_the_model_reads_the_question_and_the_better_answer_stands(
    reasoner: Reasoner, chat: ChatServer, question: str
) -> None:
    assert parse_question(question) is None
    chat.script = [text(plan(intent="did", modality="object", subject="kettle"))]
    answer = reasoner.answer(question)
    assert len(chat.bodies) == 1
    assert answer.value is True and answer.evidence, answer.text
    assert answer.trace["parser"].startswith("server") and len(answer.trace["candidates"]) == 2


def test_a_model_reading_that_finds_less_leaves_the_rules_answer(reasoner: Reasoner, chat: ChatServer) -> None:
    question = "Something for heating water, any sign of that sort of appliance at all?"
    assert parse_question(question) is None
    chat.script = [text(plan(intent="did", modality="object", subject="toaster"))]  # nothing of the kind was seen
    answer = reasoner.answer(question)
    assert not answer.text.startswith("Yes")
    assert answer.trace["parser"] == "rules" or answer.value is not True


def test_support_ranks_the_value_asked_for_then_evidence_then_confidence() -> None:
    bare = Answer(True, "No, I have not seen it.", 0.3, value=False)
    cited = Answer(True, "I read it at 10 s.", 0.2, value=None)
    assert support(bare, Asked.YES_NO) > support(cited, Asked.YES_NO)  # a yes/no question wants yes or no
    assert weak(bare, Asked.YES_NO) and weak(cited, Asked.YES_NO)  # a bare "no" to a question not understood
    guess = Answer(True, "I did not understand the question exactly; the closest things ...", 0.2, value="x")
    assert weak(guess, Asked.NAME) and weak(Answer(True, "Nothing.", 0.5), Asked.NAME)
