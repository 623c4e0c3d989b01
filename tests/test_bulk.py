"""`gc_paused`: the collector is off inside, back on after the last paused step, left off if it was."""

import gc
import threading

from celltrace.shared.bulk import gc_paused


def test_nested_pauses_resume_only_at_the_outermost_end() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_ending_in_one_thread_does_not_resume_while_another_is_paused() -> None:
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=other)
    t.start()
    inside.wait(5)
    with gc_paused():
        pass
    assert not gc.isenabled()  # the other thread is still in its paused step
    release.set()
    t.join(5)
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_resumes_when_the_step_raises() -> None:
    try:
        with gc_paused():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.isenabled()
