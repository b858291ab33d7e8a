"""Short-term memory: K is a hard bound, eviction is FIFO by whole events, long events are a uniform sample."""

from __future__ import annotations

import random
import threading

import numpy as np
from scipy.stats import chisquare

from vidmem_ros.config import ShortTermConfig
from vidmem_ros.memory.short_term import ShortTermEvent, ShortTermMemory


def test_reservoir_inclusion_is_uniform() -> None:
    capacity, length, runs = 8, 64, 4000
    held = np.zeros(length, dtype=np.int64)
    for seed in range(runs):
        memory: ShortTermMemory[int] = ShortTermMemory(capacity, random.Random(seed))
        for index in range(length):
            memory.add(float(index), index, new_event=index == 0)
        kept = memory.items()
        assert len(kept) == capacity
        held[kept] += 1
    frequency = held / runs
    p = chisquare(held).pvalue
    print(
        f"\nreservoir K={capacity} n={length}: chi-square p={p:.3f}, frequency {frequency.min():.4f}..{frequency.max():.4f}"
    )
    assert p > 0.001
    # Expected 1/8 each; one run's binomial sd is ≈ 0.0052, so 0.03 is ~6 sd.
    assert np.all(np.abs(frequency - capacity / length) < 0.03)
    # Neither the first K (no replacement) nor the last items (replace-always) are favoured.
    assert abs(frequency[:capacity].mean() - frequency[-capacity:].mean()) < 0.02


def test_capacity_is_never_exceeded_and_items_stay_in_time_order() -> None:
    rng = random.Random(7)
    memory: ShortTermMemory[int] = ShortTermMemory(16, random.Random(1))
    evicted_total = 0
    for i in range(5000):
        # Mostly short events, now and then a long one that goes into reservoir mode.
        new_event = rng.random() < (0.002 if rng.random() < 0.3 else 0.1)
        evicted_total += sum(len(e.items) for e in memory.add(float(i), i, new_event))
        assert len(memory) <= 16
        events = memory.events()
        assert len(memory) == sum(len(e.items) for e in events)
        items = memory.items()
        assert items == sorted(items)
        for event in events:
            assert event.stamps == [float(x) for x in event.items]
            assert len(event.items) <= min(event.seen, 16)
    assert evicted_total > 1000  # the stream did push events out


def test_whole_events_are_evicted_in_order_and_never_the_current_one() -> None:
    rng = random.Random(3)
    memory: ShortTermMemory[int] = ShortTermMemory(12, random.Random(2))
    last_seq = -1
    evictions = 0
    for i in range(3000):
        new_event = i == 0 or rng.random() < 0.15
        before = {e.seq: e for e in memory.events()}
        evicted = memory.add(float(i), i, new_event)
        current = memory.events()[-1]
        assert current.items[-1] == i or current.seen > 12  # the item went into the current event
        for event in evicted:
            assert isinstance(event, ShortTermEvent)
            assert event.seq > last_seq
            last_seq = event.seq
            assert event.seq != current.seq
            # Complete as it was held: exactly the items of that event before this add.
            assert event.seq in before
            assert event.items == before[event.seq].items
            assert event.stamps == before[event.seq].stamps
            assert event.seen == before[event.seq].seen
            evictions += 1
        held_seqs = [e.seq for e in memory.events()]
        assert held_seqs == sorted(held_seqs)
        assert all(e.seq not in held_seqs for e in evicted)
        # What remains from before is untouched (FIFO: only the oldest leave).
        for event in memory.events():
            if event.seq in before and event.seq != current.seq:
                assert event.items == before[event.seq].items
    assert evictions > 100


def test_fifo_example() -> None:
    memory: ShortTermMemory[str] = ShortTermMemory(4, random.Random(0))
    assert memory.add(0.0, "a0", new_event=False) == []  # no event yet: one is opened anyway
    memory.add(1.0, "a1", new_event=False)
    memory.add(2.0, "b0", new_event=True)
    memory.add(3.0, "b1", new_event=False)
    assert memory.items() == ["a0", "a1", "b0", "b1"]
    evicted = memory.add(4.0, "c0", new_event=True)
    assert [(e.seq, e.items, e.stamps, e.seen) for e in evicted] == [(0, ["a0", "a1"], [0.0, 1.0], 2)]
    assert memory.items() == ["b0", "b1", "c0"]
    memory.add(5.0, "c1", new_event=False)
    evicted = memory.add(6.0, "c2", new_event=False)
    assert [e.seq for e in evicted] == [1]
    memory.add(7.0, "c3", new_event=False)
    # The current event fills the whole memory; from now on it is sampled, never evicted.
    assert memory.items() == ["c0", "c1", "c2", "c3"]
    for t in range(8, 100):
        assert memory.add(float(t), f"c{t - 4}", new_event=False) == []
        assert len(memory) == 4
    assert [e.seq for e in memory.events()] == [2]
    assert memory.events()[0].seen == 96


def test_events_are_snapshots_and_flush_empties() -> None:
    memory: ShortTermMemory[int] = ShortTermMemory.from_config(ShortTermConfig(capacity=5, seed=0))
    for i in range(7):
        memory.add(float(i), i, new_event=i in (0, 3))
    snapshot = memory.events()
    snapshot[0].items.append(99)
    assert 99 not in memory.items()
    flushed = memory.flush()
    assert [e.seq for e in flushed] == [1]  # event 0 left when event 1 grew past K
    assert flushed[0].items == [3, 4, 5, 6]
    assert len(memory) == 0 and memory.items() == [] and memory.events() == []
    memory.add(10.0, 10, new_event=False)
    assert [e.seq for e in memory.events()] == [2]  # sequence numbers continue after a flush


def test_out_of_order_stamp_is_inserted_in_time_order() -> None:
    memory: ShortTermMemory[str] = ShortTermMemory(3, random.Random(5))
    memory.add(2.0, "late", new_event=True)
    memory.add(1.0, "early", new_event=False)
    assert memory.items() == ["early", "late"]


def test_seeded_config_is_reproducible() -> None:
    def run(seed: int) -> list[int]:
        memory: ShortTermMemory[int] = ShortTermMemory.from_config(ShortTermConfig(capacity=8, seed=seed))
        for i in range(500):
            memory.add(float(i), i, new_event=i == 0)
        return memory.items()

    assert run(42) == run(42)
    assert run(42) != run(43)


def test_reader_thread_sees_a_bounded_memory_while_the_worker_adds() -> None:
    memory: ShortTermMemory[int] = ShortTermMemory(32, random.Random(9))
    done = threading.Event()
    problems: list[str] = []

    def reader() -> None:
        while not done.is_set():
            items = memory.items()
            if len(items) > 32 or items != sorted(items):
                problems.append(f"bad view of {len(items)} items")

    thread = threading.Thread(target=reader)
    thread.start()
    rng = random.Random(4)
    try:
        for i in range(20000):
            memory.add(float(i), i, new_event=rng.random() < 0.02)
    finally:
        done.set()
        thread.join()
    assert problems == []


def test_discard_removes_items_and_keeps_the_count_right() -> None:
    stm: ShortTermMemory[int] = ShortTermMemory(capacity=6, rng=random.Random(3))
    for i in range(10):
        stm.add(float(i), i, new_event=i % 4 == 0)
    held = stm.items()
    assert stm.discard(lambda item: item % 2 == 0) == sum(1 for i in held if i % 2 == 0)
    assert stm.items() == [i for i in held if i % 2 == 1]
    assert len(stm) == len(stm.items())
    stm.add(10.0, 10, new_event=False)
    assert stm.items()[-1] == 10
