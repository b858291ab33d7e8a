"""The language-model question parser: the packaged GGUF model run in-process, and a server over HTTP.

The local tests run the real Qwen2.5-Coder-1.5B-Instruct that `make setup` installs (llama-cpp-python and the
model's part packages); the server tests use a real HTTP server speaking the OpenAI protocol with scripted replies.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Delay, HttpError, text
from pydantic import ValidationError

from vidmem_ros.agent.question import Intent, Modality
from vidmem_ros.agent.question_model import (
    RESPONSE_FORMAT,
    ModelQuestionParser,
    PlanReply,
    build_question_parser,
    to_parsed,
)
from vidmem_ros.chat_client import ChatError, LlamaCppChat
from vidmem_ros.config import QueryConfig
from vidmem_ros.errors import ModelUnavailableError


def plan(**fields: str) -> str:
    return json.dumps({"intent": "did", "modality": "object", "subject": "", "other": ""} | fields)


@pytest.fixture(scope="module")
def local() -> ModelQuestionParser:
    # what it reads is under test here, not how fast: a slow machine gets the time it needs
    parser = build_question_parser(QueryConfig(parser="local", parser_first="model", parser_timeout_s=120.0))
    assert isinstance(parser, ModelQuestionParser)
    return parser


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


def server_parser(chat: ChatServer, first: str = "model") -> ModelQuestionParser:
    config = QueryConfig(parser="server", llm_url=chat.url, llm_model="scripted", parser_first=first)
    parser = build_question_parser(config.model_copy(update={"parser_timeout_s": 2.0}))
    assert isinstance(parser, ModelQuestionParser)
    return parser


# -- the real packaged model -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "intent", "modality", "subject", "other"),
    [
        ("How many times did you pass through the boiler room?", "count", "place", "boiler room", ""),
        ("Which did you spot first: the umbrella or the scooter?", "order", "object", "umbrella", "scooter"),
        ("Did anybody talk about the sprinkler check?", "did", "speech", "sprinkler check", ""),
    ],
)
def test_the_packaged_model_reads_questions_the_rules_do_not_know(
    local: ModelQuestionParser, question: str, intent: str, modality: str, subject: str, other: str
) -> None:
    reply = local.plan(question)
    assert reply is not None
    assert (reply.intent, reply.modality) == (intent, modality)
    assert subject in reply.subject.lower() and other in reply.other.lower()


def test_a_value_asked_about_is_left_to_a_memory_search(local: ModelQuestionParser) -> None:
    question = "The plumber phoned the front office this morning. At what hour will he come back?"
    reply = local.plan(question)
    assert reply is not None and reply.intent == "fact"
    assert local.parse(question) is None  # None: search memory and read the value out


def test_a_local_plan_not_made_in_time_leaves_the_question_to_the_rules(local: ModelQuestionParser) -> None:
    question = "Over what span of minutes was the forklift charging?"
    assert local.plan(question, timeout_s=0.001) is None  # given up within the first tokens, or while waiting
    messages = [{"role": "system", "content": "Reply with one word."}, {"role": "user", "content": "Say yes."}]
    with pytest.raises(ChatError, match=r"within 0\.001 s|busy"):
        local.chat.complete(messages, max_tokens=8, timeout_s=0.001)
    reply = local.plan(question)  # the model's cache survives a generation given up
    assert reply is not None and reply.intent == "duration" and "forklift" in reply.subject.lower()


def test_a_question_waits_for_a_busy_local_model_no_longer_than_the_parser_allows(
    local: ModelQuestionParser,
) -> None:
    chat = local.chat
    assert isinstance(chat, LlamaCppChat)
    messages = [{"role": "user", "content": "Say yes."}]
    with chat._lock:  # another question's generation under way
        with pytest.raises(ChatError, match=r"busy for 0\.05 s"):
            chat.complete(messages, max_tokens=4, timeout_s=0.05)
        assert local.plan("For how long did the heater run in the attic?", timeout_s=0.05) is None


def test_missing_or_corrupt_model_files_are_start_up_errors_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match=r"query\.parser_model=.*not a file"):
        build_question_parser(QueryConfig(parser="local", parser_model=str(tmp_path / "absent.gguf")))
    text_file = tmp_path / "notes.gguf"
    text_file.write_text("not a model")
    with pytest.raises(ModelUnavailableError, match=r"query\.parser_model=.*no GGUF header"):
        build_question_parser(QueryConfig(parser="local", parser_model=str(text_file)))
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(b"GGUF" + bytes(60))
    with pytest.raises(ModelUnavailableError, match=r"query\.parser_model=.*could not be loaded"):
        build_question_parser(QueryConfig(parser="local", parser_model=str(truncated)))


# -- the protocol, over a real HTTP server ------------------------------------------------------


def test_the_server_is_asked_for_schema_constrained_json_and_its_plan_is_used(chat: ChatServer) -> None:
    chat.script = [text(plan(intent="count", modality="place", subject="the boiler room"))]
    parsed = server_parser(chat).parse("Tell me the number of visits to the boiler room.")
    assert parsed is not None and (parsed.intent, parsed.modality) == (Intent.COUNT, Modality.PLACE)
    assert parsed.target == "boiler room"
    body = chat.bodies[0]
    assert body["response_format"] == RESPONSE_FORMAT and body["max_tokens"] <= 128
    assert body["messages"][1]["content"].endswith("boiler room.")


def test_an_invalid_plan_is_repaired_once_then_the_rules_read_the_question(chat: ChatServer) -> None:
    extra = json.dumps(json.loads(plan(subject="a kettle")) | {"confidence": 0.9})
    chat.script = [text(extra), text(plan(subject="a kettle"))]
    parser = server_parser(chat)
    parsed = parser.parse("Was a kettle around anywhere?")
    assert parsed is not None and parsed.target == "kettle"
    assert "Invalid plan" in chat.bodies[1]["messages"][-1]["content"]
    chat.script = [text("yes"), text('{"intent": "maybe"}')]
    fallback = parser.parse("Did you see a kettle?")  # invalid twice: the rules' plan
    assert fallback is not None and (fallback.intent, fallback.target) == (Intent.DID, "kettle")
    assert len(chat.bodies) == 4


def test_an_unreachable_or_slow_server_leaves_the_question_to_the_rules(chat: ChatServer) -> None:
    parser = server_parser(chat)
    chat.script = [HttpError(503), Delay(5.0, text(plan(subject="kettle")))]
    assert parser.parse("When did you last see a kettle?") is not None  # 503
    parsed = parser.parse("When did you last see a kettle?")  # past parser_timeout_s
    assert parsed is not None and parsed.intent is Intent.LAST


def test_a_repair_has_only_the_time_the_first_try_left(chat: ChatServer) -> None:
    parser = server_parser(chat)  # 2 s for a plan
    extra = json.dumps(json.loads(plan(subject="a kettle")) | {"confidence": 0.9})
    chat.script = [Delay(1.2, text(extra)), Delay(1.2, text(plan(subject="a kettle")))]
    assert parser.plan("Was a kettle around anywhere?") is None  # the repair would end after the 2 s
    assert len(chat.bodies) == 2


def test_with_rules_first_the_model_reads_only_what_no_pattern_matches(chat: ChatServer) -> None:
    parser = server_parser(chat, first="rules")
    assert parser.parse("When did you last see a kettle?") is not None
    assert chat.bodies == []
    chat.script = [text(plan(intent="duration", modality="place", subject="the loft"))]
    parsed = parser.parse("Roughly what stretch of time went by while you were up in the loft?")
    assert parsed is not None and parsed.intent is Intent.DURATION and len(chat.bodies) == 1


def test_the_plan_schema_forbids_extra_keys_and_unknown_values() -> None:
    with pytest.raises(ValidationError):
        PlanReply.model_validate_json(json.dumps(json.loads(plan()) | {"why": "because"}))
    with pytest.raises(ValidationError):
        PlanReply.model_validate_json(plan(intent="guess"))
    assert RESPONSE_FORMAT["json_schema"]["schema"]["additionalProperties"] is False  # type: ignore[index]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (plan(intent="after", modality="place", subject="the loft"), (Intent.AFTER, "", "loft")),  # anchor as subject
        (plan(intent="order", subject="a kettle"), None),  # an order needs two things
        (plan(intent="first", subject=""), None),  # first of nothing
        (plan(intent="said", modality="object", subject="the plumber"), None),  # one message's contents: search
        (plan(intent="count", modality="speech"), (Intent.COUNT, "", "")),  # every message heard
    ],
)
def test_plans_are_checked_for_what_their_intent_needs(reply: str, expected: tuple[Intent, str, str] | None) -> None:
    parsed = to_parsed("a question", PlanReply.model_validate_json(reply))
    assert (None if parsed is None else (parsed.intent, parsed.target, parsed.other)) == expected


@pytest.mark.parametrize(
    ("question", "reply", "expected"),
    [
        (  # the question's verb says heard, though the model said read
            "Where were you when you heard about the boiler alarm?",
            plan(intent="where", modality="text", subject="the boiler alarm"),
            (Intent.WHERE, Modality.SPEECH, "boiler alarm", ""),
        ),
        (
            "Did you read anything about a flood?",
            plan(modality="speech", subject="a flood"),
            (Intent.DID, Modality.TEXT, "flood", ""),
        ),
        (  # the first of two alternatives is their order; "the parcel one" is the parcel
            "Which came first, the lift or the parcel one?",
            plan(intent="first", modality="speech", subject="the lift", other="the parcel one"),
            (Intent.ORDER, Modality.SPEECH, "lift", "parcel"),
        ),
        (  # a count of messages named only by their kind counts every one heard
            "How many radio calls came through so far?",
            plan(intent="count", modality="speech", subject="radio calls"),
            (Intent.COUNT, Modality.SPEECH, "", ""),
        ),
        (  # what they were about still narrows them, and is what they are named by
            "How many calls about the elevator came through?",
            plan(intent="count", modality="speech", subject="calls about the elevator"),
            (Intent.COUNT, Modality.SPEECH, "elevator", ""),
        ),
        (  # talk named as a thing is heard
            "Was there any word about the delivery?",
            plan(subject="any word about the delivery"),
            (Intent.DID, Modality.SPEECH, "delivery", ""),
        ),
        (  # a place passed through is a place visited
            "How often did you cut through the courtyard?",
            plan(intent="count", subject="through the courtyard"),
            (Intent.COUNT, Modality.PLACE, "courtyard", ""),
        ),
        (  # a pronoun stands for what the context named
            "I misplaced my umbrella. Did you notice it?",
            plan(subject="it"),
            (Intent.DID, Modality.OBJECT, "umbrella", ""),
        ),
        (  # a sign that says something is still a sign: seen, not heard
            "Did you see a sign that said keep out?",
            plan(modality="text", subject="keep out"),
            (Intent.DID, Modality.TEXT, "keep out", ""),
        ),
    ],
)
def test_a_plan_is_made_consistent_with_the_question_it_reads(
    question: str, reply: str, expected: tuple[Intent, Modality, str, str]
) -> None:
    parsed = to_parsed(question, PlanReply.model_validate_json(reply))
    assert parsed is not None and (parsed.intent, parsed.modality, parsed.target, parsed.other) == expected


def test_the_rules_baseline_is_the_same_system_without_the_model() -> None:
    from vidmem_ros.config import load_config
    from vidmem_ros.evaluation.baselines import baseline_config

    config = load_config()
    rules = baseline_config(config, "rules")
    assert (config.query.parser, rules.query.parser) == ("local", "rules")
    assert rules.model_copy(update={"query": config.query}) == config


def test_the_parser_benchmark_prints_latency_and_memory_figures(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from vidmem_dev.bench_parser import run_parser_bench

    assert run_parser_bench(tmp_path / "figures.json", limit=4) == 0
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert figures["questions"] == 4 and figures["model"]["no_plan"] == 0
    assert figures["rss_mb_query_side_with_model"] > figures["rss_mb_query_side_rules"] > 0
    assert "patterns, model, examples" in capsys.readouterr().out and figures["rules"]["no_plan"] <= 4
