"""ThreadWorker: one thread that runs blocking calls, in order, for coroutines.

Cheaper per call than ``loop.run_in_executor`` (no concurrent future chained to an
asyncio one): a call is one queue put and one ``call_soon_threadsafe`` back. Calls
from coroutines of different event loops (``Runner.run`` makes one per call) share
the thread; each gets its result in its own loop.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_Job = tuple[Callable[[], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


class ThreadWorker:
    """Runs the calls given to :meth:`run` one at a time in a thread of its own."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        # The thread refers to the queue only: a worker nobody stopped or refers to
        # any more stops its thread when it is collected.
        self._stop = weakref.finalize(self, self._jobs.put, None)

    async def run(self, fn: Callable[[], T]) -> T:
        """``fn()``, called in the worker's thread after the calls queued before it.

        A caller cancelled while waiting does not stop a call already queued."""
        if self._thread is None:
            self._start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((fn, loop, future))
        return await future

    def stop(self) -> None:
        """Lets the thread end after the calls already queued (it is not waited for)."""
        self._stop()

    def _start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                # A daemon: a service nobody closed must not keep the process alive.
                # (Every call a caller has seen return was complete by then.)
                thread = threading.Thread(
                    target=_serve, args=(self._jobs,), name=self._name, daemon=True
                )
                thread.start()
                self._thread = thread


def _serve(jobs: queue.SimpleQueue[_Job | None]) -> None:
    while True:
        job = jobs.get()
        if job is None:
            return
        fn, loop, future = job
        try:
            result, error = fn(), None
        except BaseException as exc:  # handed to the caller, like run_in_executor
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(_settle, future, result, error)
        except RuntimeError:  # that loop is closed: nobody waits for the result
            pass
        del job, fn, future, result, error


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
