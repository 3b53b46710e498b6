"""Progress for long work (an evaluation's embedding, a base evaluation), written past pytest's capture."""
from __future__ import annotations

import time
from collections.abc import Callable


class LineProgress:
    """Progress for long work, written to the real terminal even while pytest captures output.

    On a terminal one line is rewritten in place; in a CI log a line at the start, one after each batch that ends
    ``interval`` seconds or more after the last line (done/total, rate, time left: a log that says nothing for
    minutes looks hung; 7.5 s plus a batch of ~1 s keeps the gaps under 10 s) and one at the end.
    """

    def __init__(self, write: Callable[[str], object], tty: bool, interval: float = 7.5,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.write = write
        self.tty = tty
        self.interval = interval
        self.clock = clock

    def __call__(self, description: str, total: int) -> Callable[[int], None]:
        start = self.clock()
        state = {"done": 0, "shown": start}
        if total == 0:
            return lambda n: None
        if not self.tty:
            self.write(f"[chunkeval] {description}: {total} texts\n")

        def advance(n: int) -> None:
            state["done"] += n
            now = self.clock()
            done = int(state["done"])
            finished = done >= total
            rate = done / max(now - start, 1e-9)
            if self.tty and (finished or now - state["shown"] > 0.25):
                state["shown"] = now
                left = "" if finished else f", {_left(total - done, rate)}"
                self.write(f"\r[chunkeval] {description}: {done}/{total} ({rate:.0f}/s{left})"
                           + ("\n" if finished else ""))
            elif finished and not self.tty:
                self.write(f"[chunkeval] {description}: done in {now - start:.1f}s ({rate:.1f} texts/s)\n")
            elif not self.tty and now - state["shown"] >= self.interval:
                state["shown"] = now
                self.write(f"[chunkeval] {description}: {done}/{total} ({rate:.1f} texts/s, "
                           f"{_left(total - done, rate)})\n")

        return advance


def _left(todo: int, rate: float) -> str:
    seconds = todo / rate if rate > 0 else float("inf")
    if seconds == float("inf"):
        return "time left unknown"
    return f"about {seconds / 60:.0f} min left" if seconds >= 90 else f"about {seconds:.0f} s left"
