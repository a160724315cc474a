"""The one HTTP client of the collectors: httpx with a timeout, bounded retries and a User-Agent.

:func:`client` makes an :class:`httpx.Client` whose transport retries, with exponential
backoff (tenacity), a request that failed in transport (connection refused or reset, a
timeout) or was answered 429 or 5xx: at most :data:`ATTEMPTS` attempts, waiting
``backoff × 2^n`` seconds between them, or the answer's ``Retry-After`` seconds when longer
(at most :data:`MAX_WAIT`). After the last attempt the
last answer is returned as it is (the collector reports its status) or the transport error
raised. Every request names the project in its User-Agent
(``computeatlas/<version> (+<public origin>)``).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import TYPE_CHECKING

from tenacity import RetryCallState, Retrying, retry_if_exception_type, retry_if_result, stop_after_attempt, wait_exponential

if TYPE_CHECKING:
    import httpx

TIMEOUT = 60.0
"""Seconds to connect, and between two reads of a response."""
ATTEMPTS = 4
"""Attempts per request (the first and three retries)."""
BACKOFF = 1.0
"""Seconds before the first retry; doubled before each next one."""
MAX_WAIT = 30.0
"""The longest wait between two attempts, in seconds."""
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
"""Answers worth asking again: too many requests, and a server's passing failures."""


def user_agent(origin: str = "") -> str:
    """The User-Agent of every collector request: the project, its installed version and where it is published."""
    try:
        version = metadata.version("computeatlas")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"computeatlas/{version} (+{origin})" if origin else f"computeatlas/{version}"


def _retryable(response: httpx.Response) -> bool:
    return response.status_code in RETRY_STATUS


def _wait(backoff: float) -> Callable[[RetryCallState], float]:
    """Exponential backoff, or the answer's ``Retry-After`` seconds when longer (at most :data:`MAX_WAIT`)."""
    exponential = wait_exponential(multiplier=backoff, max=MAX_WAIT)

    def wait(state: RetryCallState) -> float:
        seconds = exponential(state)
        if state.outcome is not None and not state.outcome.failed:
            after = state.outcome.result().headers.get("Retry-After", "")
            if after.strip().isdigit():
                seconds = max(seconds, min(float(after), MAX_WAIT))
        return seconds

    return wait


def _close_before_retry(state: RetryCallState) -> None:
    if state.outcome is not None and not state.outcome.failed:
        state.outcome.result().close()


def _last(state: RetryCallState) -> httpx.Response:
    assert state.outcome is not None
    return state.outcome.result()  # the last answer as it is, or the last transport error raised


def client(origin: str = "", timeout: float = TIMEOUT, attempts: int = ATTEMPTS, backoff: float = BACKOFF) -> httpx.Client:
    """An :class:`httpx.Client` for the collectors (use it in a ``with`` block).

    ``origin``: the public origin named in the User-Agent; ``timeout`` in seconds;
    ``attempts`` ≥ 1 and ``backoff`` (seconds) as in the module's description."""
    import httpx

    class RetryingTransport(httpx.HTTPTransport):
        """httpx's transport, each request retried by tenacity on a transport error, 429 or 5xx."""

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            retrying = Retrying(
                stop=stop_after_attempt(max(1, attempts)),
                wait=_wait(backoff),
                retry=retry_if_exception_type(httpx.TransportError) | retry_if_result(_retryable),
                before_sleep=_close_before_retry,
                retry_error_callback=_last,
                reraise=True,
            )
            send = super().handle_request
            return retrying(lambda: send(request))

    return httpx.Client(
        transport=RetryingTransport(),
        timeout=httpx.Timeout(timeout),
        headers={"User-Agent": user_agent(origin)},
        follow_redirects=True,
    )


__all__ = ["ATTEMPTS", "BACKOFF", "RETRY_STATUS", "TIMEOUT", "client", "user_agent"]
