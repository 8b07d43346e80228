"""Running independent tasks in worker processes or on a Dask cluster, results as they finish.

`run_tasks(fn, tasks)` yields `fn(task)` for every task in completion order. `tasks` may
be any iterable, even a lazy one of millions: only a few tasks are taken from it ahead of
the results, so a run starts at once and its memory stays flat.

Worker processes ignore Ctrl-C, which is the caller's to handle: closing the generator (as
a `finally` does on KeyboardInterrupt) cancels what has not started and stops the workers.
No worker outlives its parent: each one exits when the parent process is gone, even
after a `kill -9` (a signal from the kernel on Linux, a watchdog thread elsewhere), and
runs the caller's `at_exit` on the way out (e.g. to stop the engines it started).

>>> sorted(run_tasks(abs, [-3, 1, -2], workers=2))
[1, 2, 3]
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from itertools import islice

from solver.errors import SetupError

# Tasks in flight per worker: enough to keep every worker busy, few enough that stopping
# early wastes little and that a lazy task list is never drawn far ahead.
TASKS_PER_WORKER = 2
# A Dask scheduler must answer within this, and must have a worker within WORKERS_SECONDS.
CONNECT_SECONDS = float(os.environ.get("DNOIR_CONNECT_TIMEOUT", "10"))
WORKERS_SECONDS = float(os.environ.get("DNOIR_WORKERS_TIMEOUT", "10"))

_PR_SET_PDEATHSIG = 1
# Loaded here, not after a fork: die_with_parent runs between fork and exec.
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def die_with_parent(sig: int, parent_pid: int) -> None:
    """Ask the kernel to send this process `sig` when its parent ends (Linux), and exit at
    once if the parent `parent_pid` is already gone. Safe between fork and exec."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)


def run_tasks(fn: Callable, tasks: Iterable, workers: int = 1, scheduler: str | None = None,
              at_exit: Callable[[], None] | None = None) -> Iterator:
    """An iterator of fn(task) for each task, as each completes.

    `scheduler` ('tcp://host:port') runs them on a Dask cluster (the extra [cluster]):
    the scheduler is reached, and must have a worker, before this returns (otherwise one
    clear SetupError). Otherwise `workers` processes, or this process when `workers`
    is 1. `fn`, `at_exit` and the tasks must be picklable (module-level functions and
    plain data). `at_exit` runs in every worker process when it ends, on the cluster's
    workers after the run, and here after an in-process run, however the run ends.
    """
    if scheduler is not None:
        return _on_cluster(fn, tasks, scheduler, at_exit, *_join_cluster(scheduler))
    if workers <= 1:
        return _in_this_process(fn, tasks, at_exit)
    return _in_processes(fn, tasks, workers, at_exit)


def _in_this_process(fn, tasks, at_exit):
    try:
        for task in tasks:
            yield fn(task)
    finally:
        if at_exit is not None:
            at_exit()


# -- worker processes on this machine -----------------------------------------------------

def _worker_init(main_pid: int, at_exit, from_main_thread: bool) -> None:
    """Set up one worker process: no Ctrl-C, and an exit (running at_exit) with the main process."""
    from multiprocessing.util import Finalize

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def leave(code: int) -> None:
        try:
            if at_exit is not None:
                at_exit()
        finally:
            os._exit(code)

    # SIGTERM: from the main process stopping the pool, or from the kernel when it dies.
    signal.signal(signal.SIGTERM, lambda signum, frame: leave(128 + signum))
    _release(_HELD_SIGNALS)  # held by _in_processes while it forked this worker: ours to handle from now on
    if os.getppid() == main_pid and from_main_thread:  # forked or spawned by it, not by a fork server
        die_with_parent(signal.SIGTERM, main_pid)
    if at_exit is not None:
        Finalize(None, at_exit, exitpriority=10)  # a worker's normal end runs finalizers, not atexit
    threading.Thread(target=_watch_parent, args=(main_pid, os.getppid(), leave), daemon=True,
                     name="parent watchdog").start()


def _watch_parent(main_pid: int, parent_pid: int, leave) -> None:
    """The portable fallback of die_with_parent: leave once the main process or the parent is gone."""
    while os.getppid() == parent_pid and _exists(main_pid):
        time.sleep(0.5)
    leave(1)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, and is not ours to signal
        return True
    return True


def _in_processes(fn, tasks, workers, at_exit):
    from_main_thread = threading.current_thread() is threading.main_thread()
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init,
                               initargs=(os.getpid(), at_exit, from_main_thread))
    pending = set()
    tasks = iter(tasks)
    try:
        # the first submissions fork the workers: a signal arriving between a fork and
        # _worker_init would run this process's handlers in the worker (a second "stopping",
        # a worker that neither stops nor works). Held until then; delivered when released.
        held = _hold(_HELD_SIGNALS)
        try:
            pending.update(pool.submit(fn, task) for task in islice(tasks, TASKS_PER_WORKER * workers))
        finally:
            _release(_HELD_SIGNALS, held)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                pending.update(pool.submit(fn, task) for task in islice(tasks, 1))
                yield future.result()
    finally:
        _stop_pool(pool, pending)


_HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _hold(signals) -> set | None:
    """Block `signals` in this thread (and in the processes it forks); the mask before, or
    None where signal masks do not exist (Windows)."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, signals)


def _release(signals, before: set | None = None) -> None:
    """Unblock `signals`, or restore the mask `before` _hold; one held meanwhile is delivered now."""
    if not hasattr(signal, "pthread_sigmask"):
        return
    if before is None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, signals)
    else:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _stop_pool(pool: ProcessPoolExecutor, pending) -> None:
    """Stop the pool: wait for nothing that has not finished, leave no worker behind."""
    for future in pending:
        future.cancel()
    processes = list((getattr(pool, "_processes", None) or {}).values())
    if any(not future.done() for future in pending):
        # tasks still running are abandoned: their workers stop (running at_exit) at once
        for process in processes:
            if process.is_alive():
                process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
    for process in processes:
        process.join(timeout=30)


# -- a Dask cluster ------------------------------------------------------------------------

def _join_cluster(scheduler: str):
    """(client, its workers, the silenced Dask loggers) once the scheduler has a worker; else SetupError."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise SetupError("--scheduler needs dask.distributed: pip install 'district-noir-solver[cluster]'") from None
    # Dask logs every lost connection with a traceback; the run says it in one line instead.
    quiet = _Quiet("distributed")
    client = None
    try:
        client = _connect(Client, scheduler)
        return client, _wait_for_workers(client, scheduler), quiet
    except BaseException:
        if client is not None:
            _leave_cluster(client, None, None)
        quiet.restore()
        raise


def _on_cluster(fn, tasks, scheduler, at_exit, client, workers, quiet):
    from dask.distributed import as_completed

    ahead = None
    try:
        ahead = as_completed(loop=client.loop)
        tasks = iter(tasks)
        for task in islice(tasks, TASKS_PER_WORKER * workers):
            ahead.add(client.submit(fn, task, pure=False))
        for future in ahead:
            if future.status != "finished":
                if future.status == "error":
                    future.result()  # the task's own exception: a bug, raised as it is
                raise SetupError(f"lost the Dask scheduler at {scheduler} (the run's tasks were "
                                   f"{future.status}); every game finished before is kept")
            try:
                for task in islice(tasks, 1):
                    ahead.add(client.submit(fn, task, pure=False))
                result = future.result()
            except OSError as e:  # distributed's CommClosedError is one: the scheduler went away
                raise SetupError(f"lost the Dask scheduler at {scheduler} ({_reason(e)}); "
                                   "every game finished before is kept") from None
            yield result
    finally:
        _leave_cluster(client, ahead, at_exit)
        quiet.restore()


class _Quiet:
    """Silence a library's loggers (below CRITICAL) until `restore()`."""

    def __init__(self, prefix: str):
        import logging

        names = [name for name in logging.root.manager.loggerDict if name.split(".")[0] == prefix]
        self.levels = {logging.getLogger(name): logging.getLogger(name).level for name in [prefix, *names]}
        for logger in self.levels:
            logger.setLevel(logging.CRITICAL)

    def restore(self) -> None:
        """Give the loggers their levels back."""
        for logger, level in self.levels.items():
            logger.setLevel(level)


def _connect(Client, scheduler: str):
    """A client of the scheduler, or one clear SetupError within about CONNECT_SECONDS.

    The scheduler is asked who it is first, with a deadline: a Client alone waits forever
    on a port that accepts and never answers, and fails oddly on one that speaks
    another protocol.
    """
    import asyncio

    try:
        identity = asyncio.run(asyncio.wait_for(_identity(scheduler), CONNECT_SECONDS))
    except (TimeoutError, asyncio.TimeoutError):
        raise SetupError(f"no Dask scheduler answered at {scheduler} within {CONNECT_SECONDS:g} s") from None
    except (OSError, ValueError, TypeError) as e:
        raise SetupError(f"cannot reach a Dask scheduler at {scheduler}: {_reason(e)}") from None
    except Exception:  # noqa: BLE001 - whatever another protocol's bytes decode into
        identity = None
    if not isinstance(identity, dict) or identity.get("type") != "Scheduler":
        raise SetupError(f"{scheduler} is not a Dask scheduler (it does not answer as one)")
    try:
        return Client(scheduler, timeout=f"{CONNECT_SECONDS}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise SetupError(f"cannot reach the Dask scheduler at {scheduler}: {_reason(e)}") from None


async def _identity(scheduler: str):
    """What the server at `scheduler` says it is (a Dask scheduler answers {'type': 'Scheduler', ...})."""
    from distributed.comm import connect

    comm = await connect(scheduler, timeout=CONNECT_SECONDS)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def _wait_for_workers(client, scheduler: str) -> int:
    """The number of workers, once there is one; SetupError after WORKERS_SECONDS with none."""
    deadline = time.monotonic() + WORKERS_SECONDS
    while True:
        try:
            workers = len(client.scheduler_info().get("workers", {}))
        except (OSError, TimeoutError) as e:
            raise SetupError(f"lost the Dask scheduler at {scheduler} ({_reason(e)})") from None
        if workers:
            return workers
        if time.monotonic() >= deadline:
            raise SetupError(f"the Dask scheduler at {scheduler} has no workers "
                               f"(waited {WORKERS_SECONDS:g} s): start some with 'dask worker {scheduler}'")
        time.sleep(0.5)


def _leave_cluster(client, ahead, at_exit) -> None:
    """Cancel what has not run, let the workers run at_exit, close the client; never raise."""
    try:
        if ahead is not None:
            client.cancel(list(ahead.futures), force=True)
        if at_exit is not None and client.status == "running":
            client.run(at_exit, wait=True)
    except Exception:  # the scheduler is gone: nothing left to tidy there
        pass
    try:
        client.close(timeout=5)
    except Exception:
        pass


def _reason(error: BaseException) -> str:
    return " ".join(str(error).split())[:200] or type(error).__name__
