"""The rooms' rate limiters on a clock the test holds: a token bucket per connection, fixed
windows per address (nothing sleeps; the test moves time)."""

from __future__ import annotations

import time

from bigboggle.web.room_guards import TokenBucket, WindowLimit
from conftest import FakeClock


def test_a_bucket_takes_its_burst_then_refuses(clock: FakeClock) -> None:
    bucket = TokenBucket(2, 0.5, clock)
    assert [bucket.take() for _ in range(3)] == [True, True, False]


def test_a_bucket_refills_at_its_rate_on_the_clock(clock: FakeClock) -> None:
    bucket = TokenBucket(2, 0.5, clock)
    for _ in range(3):
        bucket.take()
    clock.advance(2)  # 0.5 a second: one token
    assert [bucket.take(), bucket.take()] == [True, False]


def test_a_bucket_on_a_clock_that_steps_back_refills_nothing(clock: FakeClock) -> None:
    bucket = TokenBucket(2, 0.5, clock)
    for _ in range(2):
        bucket.take()
    clock.advance(-100)
    assert bucket.take() is False


def test_a_bucket_says_whether_it_was_full_before_a_message(clock: FakeClock) -> None:
    bucket = TokenBucket(2, 1.0, clock)
    bucket.take()
    assert bucket.was_full  # quiet before it
    bucket.take()
    assert not bucket.was_full
    clock.advance(5)  # refilled: a new burst
    bucket.take()
    assert bucket.was_full


def test_a_window_refuses_past_its_limit_until_it_ends(clock: FakeClock) -> None:
    window = WindowLimit(2, 60, clock)
    assert [window.hit("a"), window.hit("a")] == [None, None]
    assert window.hit("a") == 60


def test_a_windows_wait_is_at_least_a_second(clock: FakeClock) -> None:
    window = WindowLimit(2, 60, clock)
    for _ in range(2):
        window.hit("a")
    clock.advance(59.5)
    assert window.hit("a") == 1


def test_a_window_starts_again_once_it_has_passed(clock: FakeClock) -> None:
    window = WindowLimit(2, 60, clock)
    for _ in range(3):
        window.hit("a")
    clock.advance(60)
    assert window.hit("a") is None


def test_a_window_counts_each_key_apart(clock: FakeClock) -> None:
    window = WindowLimit(1, 60, clock)
    assert window.hit("a") is None
    assert window.hit("b") is None
    assert window.hit("a") == 60


def test_a_window_remembers_a_bounded_number_of_keys(clock: FakeClock) -> None:
    window = WindowLimit(2, 60, clock, keys=3)
    for n in range(100):
        window.hit(f"address-{n}")
    assert len(window) == 3  # bounded, however many addresses call


def test_the_limiters_run_on_the_monotonic_clock_unless_given_one() -> None:
    assert TokenBucket(1, 1.0).clock is time.monotonic
    assert WindowLimit(1, 60).clock is time.monotonic
