"""The thread pool of ``RunConfig.tool_thread_pool_config``: synchronous tool and
function-node callables run there instead of on the event loop.

One pool per event loop and worker count serves every invocation on that loop; it is
shut down (without waiting) once the loop is gone, so its threads do not outlive it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from pyadk.agents.run_config import ToolThreadPoolConfig

T = TypeVar("T")

_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, ThreadPoolExecutor]] = (
    weakref.WeakKeyDictionary()
)
_lock = threading.Lock()


def _pool(loop: asyncio.AbstractEventLoop, max_workers: int) -> ThreadPoolExecutor:
    with _lock:
        pools = _pools.get(loop)
        if pools is None:
            pools = _pools[loop] = {}
            weakref.finalize(loop, _shutdown, pools)
        pool = pools.get(max_workers)
        if pool is None:
            from concurrent.futures import ThreadPoolExecutor  # not loaded by importing pyadk

            pool = pools[max_workers] = ThreadPoolExecutor(
                max_workers=max_workers, thread_name_prefix="pyadk-tool"
            )
        return pool


def _shutdown(pools: dict[int, ThreadPoolExecutor]) -> None:
    for pool in pools.values():
        pool.shutdown(wait=False)


async def run_in_tool_pool(
    config: ToolThreadPoolConfig, func: Callable[..., T], /, **kwargs: Any
) -> T:
    """``func(**kwargs)`` on the running loop's tool pool (with the caller's context
    variables, as ``asyncio.to_thread``)."""
    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, func, **kwargs)
    return await loop.run_in_executor(_pool(loop, config.max_workers), call)
