"""Ctrl-C during an FMU run, taken between communication steps.

A SIGINT raises KeyboardInterrupt wherever Python happens to be. During a co-simulation that is mostly inside the
FMU's ``doStep`` -- the FMU's own Python, in this process --, where the FMU catches it as any failure of its step
(``FMU [Error] fmi2DoStep: KeyboardInterrupt``) and the master sees an FMU error. :func:`between_steps` defers it:
the signal only sets a flag, which the master reads after each step and answers with KeyboardInterrupt itself,
so the run ends as interrupted (the command line's exit code 130), not as failed. A second Ctrl-C raises at once
(a step that does not end)."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

__all__ = ["between_steps"]


@contextmanager
def between_steps():
    """``with between_steps() as interrupted: ... if interrupted(): raise KeyboardInterrupt``. Only in the main
    thread and where SIGINT has Python's default handler (a host with its own, a worker thread: nothing changes,
    ``interrupted()`` stays False)."""
    pending = []
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield lambda: False
        return

    def defer(signum, frame):
        if pending:  # the second Ctrl-C: now
            raise KeyboardInterrupt
        pending.append(signum)

    signal.signal(signal.SIGINT, defer)
    try:
        yield lambda: bool(pending)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
