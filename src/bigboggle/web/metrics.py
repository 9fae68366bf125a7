"""What ``GET /metrics`` shows (the Prometheus text format, with ``prometheus-client``).

Each app has its own :class:`Metrics` (its own registry: tests build many apps), among its
services (:class:`~.plumbing.Services`). Other parts of the web app count through it::

    metrics = services(request).metrics   # or services(websocket).metrics
    metrics.sockets.inc() / .dec()   # open WebSockets
    (rooms with a connection in this process: read from the hub when scraped)
    metrics.rounds.inc()             # rounds scored
    metrics.words.inc()              # words submitted (rate(...) gives words per second)
    metrics.refused("flood")         # a refusal, by reason: 413, 415, 429, 431, 503, flood…

Labels are bounded: requests are counted by route template (``/api/games/{game_id}``), never by
raw path, and refusal reasons are names the code chooses.
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)

disable_created_metrics()  # type: ignore[no-untyped-call]  # no "_created" twin of every series: half the page, no information

#: Latency buckets (seconds): pages and verdicts in milliseconds, solves up to the job budget.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """The app's counters, gauges and histograms, in a registry of their own."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "bigboggle_http_requests",
            "HTTP requests answered, by method, route template and status",
            ["method", "route", "status"],
            registry=r,
        )
        self.latency = Histogram(
            "bigboggle_http_request_duration_seconds",
            "Time to answer an HTTP request, by method and route template",
            ["method", "route"],
            buckets=BUCKETS,
            registry=r,
        )
        self.sockets = Gauge("bigboggle_websockets_open", "Open WebSocket connections", registry=r)
        self.rooms = Gauge(
            "bigboggle_rooms_active", "Rooms with a connection in this process", registry=r
        )
        self.rounds = Counter(
            "bigboggle_rounds_scored", "Room rounds scored by this process", registry=r
        )
        self.words = Counter(
            "bigboggle_words_submitted",
            "Words submitted to rooms and solo games (rate() gives words/s)",
            registry=r,
        )
        self.queue_depth = Gauge(
            "bigboggle_pool_jobs_waiting", "Jobs waiting for a worker process", registry=r
        )
        self.jobs_in_flight = Gauge(
            "bigboggle_pool_jobs_in_flight",
            "Jobs running or waiting in the worker pool",
            registry=r,
        )
        self.refusals = Counter(
            "bigboggle_refusals",
            "Requests and messages refused, by reason (413, 415, 429, 431, 503, flood…)",
            ["reason"],
            registry=r,
        )

    def refused(self, reason: str) -> None:
        """Count one refusal for ``reason`` (a short name chosen by the code, not the client)."""
        self.refusals.labels(reason[:40]).inc()

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one answered request."""
        method = method if method in _METHODS else "OTHER"
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)

    def pool_depth(self, in_flight: int, workers: int) -> None:
        """The worker pool's state (the pool calls it whenever a job comes or goes)."""
        self.jobs_in_flight.set(in_flight)
        self.queue_depth.set(max(0, in_flight - workers))

    def render(self) -> bytes:
        """The registry in the Prometheus text format."""
        return generate_latest(self.registry)


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
