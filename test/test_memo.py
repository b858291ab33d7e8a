"""Answers kept within a bound for questions asked again and again."""

from __future__ import annotations

from vidmem_ros.memo import BoundedMemo


def test_an_answer_is_computed_once_falsy_or_not_and_the_memo_stays_within_its_bound() -> None:
    calls: list[int] = []

    def square(n: int) -> int:
        calls.append(n)
        return n * n

    memo: BoundedMemo[int, int] = BoundedMemo(limit=3)
    assert [memo.get(n, lambda n=n: square(n)) for n in (0, 1, 0, 1)] == [0, 1, 0, 1]
    assert calls == [0, 1]  # a kept 0 is an answer, not a miss
    for n in range(10):
        memo.get(n, lambda n=n: square(n))
        assert len(memo) <= 3
    assert memo.get(9, lambda: -1) == 81  # the newest answers are kept
