"""Progress bars (tqdm) for runs that take more than a few seconds: they appear only after ``DELAY``."""
from __future__ import annotations

import sys
from contextlib import contextmanager

__all__ = ["progress_bar", "DELAY"]

DELAY = 2.0  # [s] of wall time before a bar is drawn: short runs stay silent


class _Bar:
    """A tqdm bar over simulated seconds, moved to an absolute position."""

    def __init__(self, bar):
        self.bar = bar
        self.done = 0.0

    def update_to(self, value: float) -> None:
        if self.bar is not None and value > self.done:
            self.bar.update(value - self.done)
            self.done = value


@contextmanager
def progress_bar(total: float, label: str, disable: bool = False):
    """``with progress_bar(stop_time, "name") as bar: ... bar.update_to(t)`` -- simulated time of ``total`` s."""
    if disable:
        yield _Bar(None)
        return
    from tqdm import tqdm

    bar = tqdm(total=total, desc=label, unit="s", delay=DELAY, file=sys.stderr, leave=False, dynamic_ncols=True,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.4g}/{total:.4g} s simulated [{elapsed}<{remaining}]")
    try:
        yield _Bar(bar)
    finally:
        bar.close()
