"""Auto mode's search for the load, shared by fio (`dbstor io --auto`) and databases
(`users = "auto"`, `instances = "auto"`, `--users auto`): double the load from 1 until the
throughput stops rising (two doublings in a row add under 5%) or the latency limit is
crossed, keep every point of the search as such (`series = "discovery"`), then measure at
fractions of what it found."""

from __future__ import annotations

from dataclasses import dataclass, field

from dbstor.analysis.curve import slo_value, throughput
from dbstor.results.model import Point

AUTO_FRACTIONS = (0.10, 0.50, 0.70, 0.80, 0.90, 1.00)  # of the peak, as vdbench's curve runs
AUTO_MAX_DEPTH = 256
AUTO_MIN_GAIN = 0.05  # the search for the peak stops when two doublings in a row add under 5%
AUTO_STOP_FACTOR = 1.5  # the SLO is "clearly exceeded" at 1.5x its limit
AUTO_MAX_USERS = 64  # a database's search stops here (users per instance x instances)
AUTO_MAX_INSTANCES = 16


@dataclass
class PeakSearch:
    """The search's state: feed it each measured point (add), ask whether to go on
    (more) and at which load (next_load); `best` is the highest throughput within the
    latency limit, `stop` says why the search ended."""

    metric: str
    limit_ms: float
    max_load: int
    load: int = 1
    best: Point | None = None
    flat_steps: int = 0
    stop: str = ""
    seen: list[Point] = field(default_factory=list)

    def more(self) -> bool:
        return not self.stop and self.load <= self.max_load

    def add(self, point: Point) -> None:
        """One search point measured at `load`: keep the best, decide whether to go on."""
        self.seen.append(point)
        value = throughput(point) if point.ok else None
        latency = slo_value(point, self.metric) if point.ok else None
        if value is None:
            self.stop = f"at {point.load.value:g} the point measured no throughput"
        elif latency is not None and latency > self.limit_ms:
            self.stop = (
                f"the latency limit was crossed at {point.load.value:g} "
                f"({latency:.3g} ms over {self.limit_ms:g} ms)"
            )
        else:
            best = throughput(self.best) if self.best is not None else None
            gained = best is None or value >= best * (1 + AUTO_MIN_GAIN)
            self.flat_steps = 0 if gained else self.flat_steps + 1
            if best is None or value > best:
                self.best = point
            if self.flat_steps >= 2:
                self.stop = "throughput stopped rising (two doublings in a row added under 5%)"
        self.load *= 2
        if not self.stop and self.load > self.max_load:
            self.stop = f"the search's limit of {self.max_load} was reached"


def load_fractions(peak: int) -> list[int]:
    """The loads to measure at AUTO_FRACTIONS of a peak load (whole, at least 1, each once,
    rising)."""
    return sorted({max(1, round(peak * f)) for f in AUTO_FRACTIONS})
