"""Reading questions without a language model and without sentence patterns, with the packaged MiniLM."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chat_server import ChatServer, HttpError

from vidmem_ros.agent.question import Intent, Modality, parse_question
from vidmem_ros.agent.question_model import ModelQuestionParser, RuleParser, build_question_parser
from vidmem_ros.agent.question_similarity import SimilarityParser, mask_subjects
from vidmem_ros.config import QueryConfig, load_config
from vidmem_ros.perception.registry import build_text_embedder


@pytest.fixture(scope="module")
def similar() -> SimilarityParser:
    embedder = build_text_embedder(load_config().text_embedder)
    assert embedder is not None
    return SimilarityParser(embedder)


def test_subject_phrases_are_masked_and_kept_whole() -> None:
    masked, subjects = mask_subjects("did you glimpse three ducks on the pond before the heron")
    assert masked == "did you glimpse something before the something"
    assert subjects == ["three ducks on the pond", "heron"]
    assert "gate 12" in mask_subjects("where were you when you read the plate for gate 12")[1]


@pytest.mark.parametrize(
    ("clause", "subject"),
    [
        (
            "what's the latest moment you saw the orange sign on the loading bay wall",
            "orange sign on the loading bay wall",
        ),
        ("when did the hazard notice by the pump first come into view", "hazard notice by the pump"),
        ("the green labels on the crates, when were they last in view", "green labels on the crates"),
    ],
)
def test_a_thing_that_bears_words_is_the_subjects_own_head_once_a_subject_word_leads(clause: str, subject: str) -> None:
    assert subject in mask_subjects(clause)[1]
    assert mask_subjects("what did the sign say")[1] == []  # alone, "sign" asks


@pytest.mark.parametrize(
    ("question", "intent", "modality", "target", "other"),
    [
        ("Is it the case that a wheelbarrow turned up at some point?", Intent.DID, Modality.OBJECT, "wheelbarrow", ""),
        ("At which moment did the scooter first come into sight?", Intent.FIRST, Modality.OBJECT, "scooter", ""),
        ("Tell me the most recent time the ladder was in view.", Intent.LAST, Modality.OBJECT, "ladder", ""),
        ("How frequently did the mop bucket show up?", Intent.COUNT, Modality.OBJECT, "mop bucket", ""),
        ("How many times did you drop by the laundry?", Intent.COUNT, Modality.PLACE, "laundry", ""),
        ("What length of time did you stay in the pantry?", Intent.DURATION, Modality.PLACE, "pantry", ""),
        ("Which showed up earlier, the stroller or the wheelchair?", Intent.ORDER, Modality.OBJECT, "stroller",
         "wheelchair"),
        ("What came into view straight after the aquarium?", Intent.AFTER, Modality.OBJECT, "", "aquarium"),
        ("Has anybody talked about a power cut?", Intent.DID, Modality.SPEECH, "power cut", ""),
        # a place asked with "where", next to another: the place, which is what "where" asks
        ("Where had you been just before the pottery studio?", Intent.BEFORE, Modality.PLACE, "", "pottery studio"),
        ("Where did you end up straight after the pottery studio?", Intent.AFTER, Modality.PLACE, "",
         "pottery studio"),
    ],
)  # fmt: skip
def test_questions_no_pattern_knows_are_read_by_likeness_to_examples(
    similar: SimilarityParser, question: str, intent: Intent, modality: Modality, target: str, other: str
) -> None:
    parsed = similar.parse(question)
    assert parsed is not None, question
    assert (parsed.intent, parsed.modality, parsed.target, parsed.other) == (intent, modality, target, other)


@pytest.mark.parametrize(
    "question",
    [
        "How much was the parking fee?",
        "What time will the bus leave?",
        "Quelle heure est-il ?",
        "In which aisle was the ladder standing?",  # a name asked for, though it has a place in it
        # a thing read named, though warning and announcing are ways of saying; and a voice named, the reverse
        "What did the placard warning about loose tiles say?",
        "The tag on the crate, the one announcing a recall: which batch number?",
        "What did the voice on the tannoy write about?",
        # things counted where they stood or were listed, not visits to where that was
        "How many sacks are stacked in the shed?",
        "How many trains are shown on the departures screen?",
        "How many bikes were chained up at the railings?",
        # a kind of thing asked for, by what a sign or poster names
        "What sort of gloves does the notice on the lab door require?",
        "What sort of boots does the sign by gate 5 call for?",
        "What kind of fruit does the poster by the till advertise?",
        # things a sign lists, counted
        "Count the coaches listed on the bay board.",
        # two things named, but nothing said of which came first
        "For the Harwich ferry, which cabins were called to board?",
        # a moment of the clock after "before" or "by" bounds what was asked, it is no second thing
        "Which tap has to be shut off before nine?",
        "Which shutter must be down by 10 pm?",
    ],
)
def test_a_value_asked_about_or_a_question_like_no_example_is_left_to_the_search(
    similar: SimilarityParser, question: str
) -> None:
    assert similar.parse(question) is None


def test_the_rules_try_the_patterns_first_then_the_examples(similar: SimilarityParser) -> None:
    rules = RuleParser(similar)
    odd = "Is it the case that a wheelbarrow turned up at some point?"
    assert parse_question(odd) is None and rules.parse(odd) is not None
    assert rules.parse("Did you see a kettle?") == parse_question("Did you see a kettle?")


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


def test_when_the_model_fails_the_examples_read_what_the_patterns_do_not(chat: ChatServer) -> None:
    config = QueryConfig(parser="server", llm_url=chat.url, llm_model="scripted", parser_first="rules")
    embedder = build_text_embedder(load_config().text_embedder)
    parser = build_question_parser(config.model_copy(update={"parser_timeout_s": 2.0}), embedder)
    assert isinstance(parser, ModelQuestionParser)
    chat.script = [HttpError(503)]
    parsed = parser.parse("At which moment did the scooter first come into sight?")
    assert parsed is not None and (parsed.intent, parsed.target) == (Intent.FIRST, "scooter")


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("What did the lady at the kiosk say about the raffle?", "raffle"),
        ("What had the voice on the tannoy announced about the buses?", "buses"),
        ("At what moment was the cyclist's complaint about the potholes heard?", "potholes"),
    ],
)
def test_who_said_something_is_not_what_it_was_about(similar: SimilarityParser, question: str, topic: str) -> None:
    parsed = similar.parse(question)
    assert parsed is not None and parsed.modality is Modality.SPEECH and parsed.target == topic
