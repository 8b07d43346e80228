"""Running independent tasks in worker processes or on a Dask cluster, results as they finish.

`run_tasks(fn, tasks)` yields `fn(task)` for every task in completion order. Worker
processes ignore Ctrl-C, which is the caller's to handle: closing the generator (as a
`finally` does on KeyboardInterrupt) cancels what has not started and stops the workers.

>>> sorted(run_tasks(abs, [-3, 1, -2], workers=2))
[1, 2, 3]
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait


def run_tasks(fn: Callable, tasks: list, workers: int = 1, scheduler: str | None = None) -> Iterator:
    """Yield fn(task) for each task as it completes.

    `scheduler` ('tcp://host:port') runs them on a Dask cluster (the extra [cluster]);
    otherwise `workers` processes, or this process when `workers` is 1. `fn` and the
    tasks must be picklable (a module-level function and plain data).
    """
    if not tasks:
        return
    if scheduler is not None:
        yield from _on_cluster(fn, tasks, scheduler)
    elif workers <= 1:
        for task in tasks:
            yield fn(task)
    else:
        yield from _in_processes(fn, tasks, workers)


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_processes(fn, tasks, workers):
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_interrupts)
    pending = set()
    queue = iter(tasks)
    try:
        # a few tasks in flight per worker: the order is kept, and stopping early wastes little
        for task in queue:
            pending.add(pool.submit(fn, task))
            if len(pending) >= 2 * workers:
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(fn, nxt))
                yield future.result()
    finally:
        for future in pending:
            future.cancel()
        # tasks still running are abandoned: stop their processes rather than wait for them
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)


def _on_cluster(fn, tasks, scheduler):
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise RuntimeError("--scheduler needs dask.distributed: pip install 'district-noir-solver[cluster]'") from None
    try:
        client = Client(scheduler, timeout="15s")
    except (OSError, TimeoutError, ValueError) as e:
        raise RuntimeError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    futures = []
    try:
        futures = [client.submit(fn, task, pure=False) for task in tasks]
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.cancel(futures)
        client.close()
