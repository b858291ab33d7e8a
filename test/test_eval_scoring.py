"""Evaluation files and scoring: question and answer JSONL, each question type's rules, the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vidmem_ros.evaluation.answers import (
    AnswerLine,
    AnswersMeta,
    Evidence,
    answer_writer,
    by_system,
    parse_answers,
    read_answers,
    write_answers,
)
from vidmem_ros.evaluation.questions import GroundTruth, Question, fit_to_bag, load_questions, parse_questions
from vidmem_ros.evaluation.scoring import (
    format_summary,
    parse_count,
    parse_duration,
    parse_yes_no,
    score_all,
    score_answer,
    summarise,
    summary_json,
)


def truth(kind: str, answer: Any = None, accept: tuple[str, ...] = (), tolerance: float | None = None) -> GroundTruth:
    return GroundTruth(id="q", type=kind, answer=answer, accept=accept, tolerance=tolerance)  # type: ignore[arg-type]


def said(text: str = "", **typed: Any) -> AnswerLine:
    return AnswerLine(id="q", answer=text, **typed)


def correct(kind: str, expected: Any, answer: AnswerLine, **extra: Any) -> bool:
    return score_answer(truth(kind, expected, **extra), answer, "s").correct


# -- questions file -------------------------------------------------------------------------------


def line(**fields: Any) -> str:
    return json.dumps({"ask_at": 1.0, "question": "?", **fields})


def test_questions_load_with_truth_kept_apart(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        "\n".join(
            [
                line(id="cat", question="Did you see a cat?", type="binary", answer=True),
                "",
                line(id="where", answer=[2.0, 0.5], tolerance=1.0),
                line(id="open"),
                line(id="sign", accept=["room 4", "boiler room"]),
            ]
        )
    )
    loaded = load_questions(path)
    assert loaded.problems == []
    assert [q.id for q in loaded.questions] == ["cat", "where", "open", "sign"]
    assert set(Question.model_fields) == {"id", "ask_at", "question"}  # what the system under test sees
    assert loaded.truth["cat"].type == "binary" and loaded.truth["cat"].answer is True
    assert loaded.truth["where"].type == "position" and loaded.truth["where"].tolerance == 1.0
    assert loaded.truth["sign"].type == "text" and loaded.truth["sign"].accept == ("room 4", "boiler room")
    assert "open" not in loaded.truth  # no ground truth: asked, not scored


def test_bad_question_lines_are_reported_with_line_numbers_and_the_rest_loads() -> None:
    lines = [
        line(id="a", type="count", answer=2),
        '{"id": "b", "ask_at": 2, ',  # cut off
        line(id="a", answer="again"),  # duplicate
        line(id="c", type="colour", answer="red"),  # unknown type
        json.dumps({"id": "d", "question": "?"}),  # no ask_at
        line(id="e", ask_at=-3.0),
        line(id="f", colour="red"),  # extra key
        line(id="g", type="count", answer=2.5),
        line(id="h", answer=12.0),  # a number needs a type
        "[1, 2]",
        line(id="i", type="order", answer="After"),
        line(id="j", type="order", answer=" "),  # an order answer names something
    ]
    loaded = parse_questions(lines, "qs.jsonl")
    assert [q.id for q in loaded.questions] == ["a", "i"]
    problems = "\n".join(loaded.problems)
    assert len(loaded.problems) == 10
    for expected in (
        "qs.jsonl:2: not valid JSON",
        "qs.jsonl:3: duplicate id 'a' (first on line 1)",
        "qs.jsonl:4: type:",
        "qs.jsonl:5: ask_at: Field required",
        "qs.jsonl:6: ask_at:",
        "qs.jsonl:7: colour: Extra inputs are not permitted",
        "qs.jsonl:8: a count answer must be a whole number",
        "qs.jsonl:9: a numeric answer needs a type",
        "qs.jsonl:10: expected a JSON object",
        "qs.jsonl:12: a order answer must be",
    ):
        assert expected in problems


def test_unreadable_questions_file_is_a_problem(tmp_path: Path) -> None:
    loaded = load_questions(tmp_path / "missing.jsonl")
    assert loaded.questions == [] and "missing.jsonl" in loaded.problems[0]


def test_questions_past_the_bag_end_are_named_and_asked_at_the_end_or_skipped() -> None:
    questions = [Question(id="early", ask_at=10.0, question="?"), Question(id="late", ask_at=99.0, question="?")]
    kept, problems = fit_to_bag(questions, 60.0)
    assert [(q.id, q.ask_at) for q in kept] == [("early", 10.0), ("late", 60.0)]
    assert len(problems) == 1 and "'late'" in problems[0] and "asked at the end" in problems[0]
    kept, problems = fit_to_bag(questions, 60.0, beyond="skip")
    assert [q.id for q in kept] == ["early"] and "skipped" in problems[0]


# -- answers file ----------------------------------------------------------------------------------


def test_answers_round_trip_with_header(tmp_path: Path) -> None:
    path = tmp_path / "vidmem.jsonl"
    evidence = [Evidence(kind="frame", ref="moment/7", time=12.0, text="cat 0.93", score=0.93)]
    answers = [
        AnswerLine(id="a", answer="Yes", confidence=0.9, latency_s=0.2, evidence=evidence, value=True, time=12.0),
        AnswerLine(id="b", answer="", error="timed out", system="other"),
    ]
    write_answers(path, answers, AnswersMeta(bag_start=1_700_000_000.5, system="vidmem", bag="patrol"))
    first = json.loads(path.read_text().splitlines()[0])
    assert first == {"meta": {"bag_start": 1_700_000_000.5, "system": "vidmem", "bag": "patrol"}}
    read = read_answers(path)
    assert read.problems == [] and read.meta.bag_start == 1_700_000_000.5
    assert read.answers[0].system == "vidmem" and read.answers[0].evidence[0].moment_id() == 7
    assert read.answers[0].value is True and read.answers[1].system == "other" and read.answers[1].error


def test_answer_writer_flushes_each_line(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    with answer_writer(path) as sink:
        sink.write(AnswerLine(id="a", answer="x"))
        assert json.loads(path.read_text()) == {
            "id": "a",
            "answer": "x",
            "confidence": 0.0,
            "latency_s": 0.0,
            "evidence": [],
        }


def test_bad_answer_lines_are_reported_and_duplicates_keep_the_first() -> None:
    lines = [
        '{"id": "a", "answer": "yes"}',
        '{"meta": {"bag_start": 1.0}}',  # a header only counts on the first line
        "{oops",
        '{"id": "b", "answer": "x", "confidence": 3}',
        '{"id": "a", "answer": "no"}',
    ]
    read = parse_answers(lines, "a.jsonl", default_system="base")
    assert [p.split(":")[1] for p in read.problems] == ["2", "3", "4"]
    grouped, problems = by_system([read])
    assert grouped["base"]["a"].answer == "yes" and "more than once" in problems[0]


def test_answer_values_keep_their_json_type() -> None:
    read = parse_answers(['{"id": "a", "value": 3}', '{"id": "b", "value": "3"}', '{"id": "c", "value": false}'])
    assert [type(a.value) for a in read.answers] == [int, str, bool]


# -- scoring rules ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes, I saw a cat at 12 s.", True),
        ("No, I did not.", False),
        ("I have not seen a giraffe.", False),
        ("not seen", False),
        ("I never saw one", False),
        ("I saw a cat near the door", True),
        ("There was a cup on the table", True),
        ("I don't know", None),
        ("No idea.", None),
        ("The weather is nice", None),
        ("", None),
    ],
)
def test_yes_no_parsing(text: str, expected: bool | None) -> None:
    assert parse_yes_no(text) is expected


def test_binary() -> None:
    assert correct("binary", True, said("Yes, I saw…"))
    assert correct("binary", False, said("I have not seen a giraffe"))
    assert not correct("binary", True, said("not seen"))
    assert correct("binary", True, said("No.", value=True))  # a bool value wins over the words
    assert not correct("binary", True, said("hmm, hard to say"))  # unparseable is wrong
    assert correct("binary", False, said("", value="no"))


def test_time_tolerance_and_error() -> None:
    score = score_answer(truth("time", 30.0), said("at 34 s", time=34.0))
    assert score.correct and score.error == pytest.approx(4.0)
    assert not correct("time", 30.0, said(time=36.0))  # default 5 s
    assert correct("time", 30.0, said(time=36.0), tolerance=10.0)
    assert correct("time", 30.0, said(value=31))  # a numeric value stands in for time
    missing = score_answer(truth("time", 30.0), said("a while ago"))
    assert not missing.correct and missing.answered and "no time" in missing.reason


def test_position_tolerance_and_error() -> None:
    score = score_answer(truth("position", [1.0, 1.0]), said(position=(3.0, 2.0)))
    assert score.correct and score.error == pytest.approx(5**0.5)  # within the default 2.5 m
    assert not correct("position", [1.0, 1.0], said(position=(4.0, 1.0)))
    assert correct("position", [1.0, 1.0], said(position=(4.0, 1.0)), tolerance=3.0)
    assert not correct("position", [1.0, 1.0], said("in the kitchen"))


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("3 times", 3),
        ("three times", 3),
        ("I saw it once", 1),
        ("twice", 2),
        ("never", 0),
        ("not once", 0),
        ("I did not see any cups", 0),
        ("twenty-one", 21),
        ("No, but I saw it twice", 2),
        ("many", None),
    ],
)
def test_count_parsing(text: str, count: int | None) -> None:
    assert parse_count(text) == count


def test_count() -> None:
    assert correct("count", 3, said("I saw it three times"))
    assert correct("count", 3, said("whatever", value=3.0))  # int(value)
    assert not correct("count", 3, said(value=4))
    assert correct("count", 3, said(value=4), tolerance=1)
    assert correct("count", 0, said("Never."))
    assert not correct("count", 2, said("a few"))


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("45 s", 45),
        ("1 min 30 s", 90),
        ("about 2 minutes", 120),
        ("a minute and a half", 90),
        ("half a minute", 30),
        ("1:30", 90),
        ("roughly 1 hour and 5 minutes", 3900),
        ("I saw it 3 times, for 45 seconds", 45),
        ("for a while", None),
    ],
)
def test_duration_parsing(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


def test_duration_tolerance() -> None:
    assert correct("duration", 60.0, said("about a minute"))
    assert correct("duration", 20.0, said(value=24.0))  # max(5 s, 25 %) = 5 s
    assert not correct("duration", 20.0, said(value=26.0))
    assert correct("duration", 100.0, said(value=124.0))  # 25 % of 100 s = 25 s
    assert not correct("duration", 100.0, said(value=126.0))
    assert correct("duration", 100.0, said(value=130.0), tolerance=30.0)
    score = score_answer(truth("duration", 90.0), said("1 min 30 s"))
    assert score.correct and score.error == 0.0


def test_order() -> None:
    assert correct("order", "before", said("The cup came before the cat."))
    assert correct("order", "before", said("earlier"))
    assert not correct("order", "before", said("after"))
    assert not correct("order", "before", said("before or after, I can't tell"))  # not both
    assert correct("order", "after", said("", value="after"))
    assert correct("order", "after", said("it came second"), accept=("second",))
    assert not correct("order", "after", said("no idea"))


def test_order_answered_by_what_came_first_or_next() -> None:
    """ "Which came first, the kettle or the toaster?" and "what did you see right after X?" name a thing."""
    assert correct("order", "kettle", said("The kettle came first, then the toaster.", value="kettle"))
    assert not correct("order", "kettle", said("The kettle, then the toaster.", value="toaster"))  # the value decides
    assert correct("order", "the ladder", said("Right after it I saw the ladder."))
    assert not correct("order", "the ladder", said("I saw nothing after it."))


def test_text_accepts_phrases_normalised() -> None:
    sign = truth("text", "Boiler Room 4", accept=("room four",))
    assert score_answer(sign, said("The sign said: BOILER-ROOM   4!")).correct
    assert score_answer(sign, said("It read 'Room Four'.")).correct
    assert not score_answer(sign, said("Boiler Room 42")).correct  # word boundaries
    assert score_answer(truth("text", accept=("mug", "cup")), said("a coffee cup")).correct
    assert score_answer(truth("text", "mug"), said("", value="Mug")).correct


def test_missing_and_failed_answers_are_wrong_and_unscored_questions_skipped() -> None:
    truths = {
        "a": truth("binary", True).model_copy(update={"id": "a"}),
        "b": truth("count", 2).model_copy(update={"id": "b"}),
    }
    answers = {
        "sys": {"a": AnswerLine(id="a", answer="yes", error="crashed")},
        "other": {"a": AnswerLine(id="a", answer="yes"), "b": AnswerLine(id="b", value=2), "c": AnswerLine(id="c")},
    }
    scores = score_all(truths, answers)
    by = {(s.system, s.id): s for s in scores}
    assert len(scores) == 4  # "c" has no ground truth
    assert not by["sys", "a"].correct and "crashed" in by["sys", "a"].reason and not by["sys", "a"].answered
    assert not by["sys", "b"].correct and by["sys", "b"].reason == "no answer"
    assert by["other", "a"].correct and by["other", "b"].correct


def test_summary_table_and_json() -> None:
    truths = {
        "t1": GroundTruth(id="t1", type="time", answer=10.0),
        "t2": GroundTruth(id="t2", type="time", answer=20.0),
        "p": GroundTruth(id="p", type="position", answer=[0.0, 0.0]),
        "b": GroundTruth(id="b", type="binary", answer=True),
    }
    answers = {
        "vidmem": {
            "t1": AnswerLine(id="t1", time=11.0, latency_s=1.0),
            "t2": AnswerLine(id="t2", time=29.0, latency_s=3.0),
            "p": AnswerLine(id="p", position=(3.0, 4.0)),
            "b": AnswerLine(id="b", answer="Yes"),
        },
        "baseline_uniform": {"b": AnswerLine(id="b", answer="No")},
    }
    summary = summarise(score_all(truths, answers), unscored=["x"])
    vid, base = summary.systems
    assert (vid.system, vid.overall.n, vid.overall.correct, vid.overall.accuracy) == ("vidmem", 4, 2, 0.5)
    assert vid.by_type["time"].correct == 1 and vid.by_type["time"].mean_time_error_s == pytest.approx(5.0)
    assert vid.overall.mean_position_error_m == pytest.approx(5.0) and vid.overall.mean_latency_s == pytest.approx(1.0)
    assert base.overall.correct == 0 and base.overall.answered == 1
    table = format_summary(summary)
    header, overall = table.splitlines()[:2]
    assert header.split() == ["vidmem", "baseline_uniform"]  # systems side by side
    assert "2/4 50.0%" in overall and "0/4 0.0%" in overall
    assert "mean time error" in table and "5.00 s" in table and "1 question(s) without ground truth" in table
    data = json.loads(summary_json(summary, score_all(truths, answers)))
    assert data["summary"]["systems"][0]["overall"]["accuracy"] == 0.5 and len(data["scores"]) == 8
