"""Never a hang: a wall-clock limit on the whole run.  torch.compile has no
documented timeout, so the limit is the process's own: SIGALRM raises in
the main thread at the limit (Python runs the handler between bytecodes,
and the compiler subprocess waits are interruptible), and a watchdog thread
ends the process with the one-line reason 30 s later if that did not get
through (a C call that never returns to Python)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

from .errors import EXIT_CASE_ERROR, CaseError

GRACE_S = 30.0


class TimeLimit(CaseError):
    pass


@contextlib.contextmanager
def wall_clock_limit(seconds: float, prog: str):
    if not seconds or seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return
    reason = (f"the run exceeded its wall-clock limit of {seconds:g} s (--timeout): compilation or "
              "training did not finish")

    def on_alarm(signum, frame):
        raise TimeLimit(reason)

    def last_resort():
        print(f"{prog}: error: {reason} (ended by the watchdog)", file=sys.stderr, flush=True)
        os._exit(EXIT_CASE_ERROR)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog = threading.Timer(seconds + GRACE_S, last_resort)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        watchdog.cancel()
