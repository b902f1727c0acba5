"""A recurring event is logged once per interval, and the next line counts what was left out."""

from __future__ import annotations

from flavorsmith.api.log_throttle import LogThrottle, left_out_note


def test_one_line_per_interval_then_the_count_left_out() -> None:
    now = [100.0]
    throttle = LogThrottle(interval=60, clock=lambda: now[0])
    assert throttle.admit() == 0
    assert [throttle.admit() for _ in range(3)] == [None, None, None]
    now[0] += 59.9
    assert throttle.admit() is None
    now[0] += 0.1
    assert throttle.admit() == 4
    assert left_out_note(4) == " (4 more since the last such line)"
    now[0] += 61
    assert throttle.admit() == 0
    assert left_out_note(0) == ""
