"""Running counts, samples and checks on a Dask cluster (optional: pip install "dask[distributed]"),
and the executor of the long commands (`executor`: this process, local processes or Dask).

The same units of work as local processes (`count._expand_remote`, `sample.play_chunks`) are
submitted to the cluster; results come back in submission order, so answers do not depend on it.
Workers of a local cluster start as pool workers do (`processes.worker_init`: they die with this
process and leave Ctrl-C to it); each worker process loads a ruleset's compiled core once and keeps
it for every unit of work after.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import UsageError
from ..processes import PRIORITY, Mapper, local_mapper, serial_mapper, worker_init, workers_wanted

CONNECT_SECONDS = 10  # how long a scheduler address is tried


def dask_priority() -> float:
    """The caller's PRIORITY as a Dask priority (Dask runs higher priorities first)."""
    return -PRIORITY.get()


class DaskMapper:
    """A mapper (`qttt.processes.Mapper`) over a Dask client: each call's units of work are submitted
    to the cluster, results come back in submission order. Work that passes data from one unit to
    the next (a walk's plies) uses `client` itself, so the data stays on the cluster."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __call__(self, fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterable[Any]:
        priority = dask_priority()
        futures = [self.client.submit(fn, *a, pure=False, priority=priority) for a in args]  # handed out now
        return (f.result() for f in futures)


@contextmanager
def dask_mapper(address: str | None = None, workers: int | None = None
                ) -> Iterator[Mapper]:
    """A mapper over a Dask cluster at `address`, or over a new local cluster of `workers`
    processes (default: one per core) when `address` is None."""
    try:
        # optional dependency, and importing it takes 0.6 s (measured): only when a Dask run is asked for
        import dask
        from distributed import Client, LocalCluster, WorkerPlugin  # untyped: calls below are Any
    except ImportError:
        raise UsageError(None, 'Dask is not installed: pip install "dask[distributed]"') from None
    cluster = None
    if address is None:
        # Workers forked from this process, not spawned: a spawned worker imports Dask and qttt
        # afresh (3.9 s to start 2 workers, 1.2 CPU-s, and 1.1 s to close, measured on the
        # loaded 2-core machine; forked: 0.5 s, 0.1 CPU-s and 0.07 s), which is the whole of a
        # short run's wall time on every core
        with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
            cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1,  # type: ignore[no-untyped-call]
                                   threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)  # type: ignore[no-untyped-call]

        class Init(WorkerPlugin):
            """`processes.worker_init` in each worker of this local cluster."""

            def __init__(self, parent: int) -> None:
                self.parent = parent

            def setup(self, worker: Any) -> None:
                worker_init(self.parent)
        client.register_plugin(Init(os.getpid()), name="qttt-worker-init")
    else:
        try:
            client = Client(address, timeout=CONNECT_SECONDS)  # type: ignore[no-untyped-call]
        except (OSError, ValueError, TypeError, TimeoutError) as e:
            why = str(e).splitlines()[0][:160] if str(e) else type(e).__name__
            raise UsageError(None, f"--dask {address!r}: cannot connect to a Dask scheduler: {why}; "
                             "give host:port (tcp://host:port) or local") from None

    try:
        yield DaskMapper(client)
    finally:
        client.close()  # type: ignore[no-untyped-call]
        if cluster is not None:
            cluster.close()


@contextmanager
def executor(workers: int = 0, dask: str | None = None) -> Iterator[Mapper]:
    """The mapper a command's `--workers N` (0: one per core) and `--dask ADDRESS|local` ask for:
    this process for one worker, else a pool of local processes, or a Dask cluster (a new local
    one of that many worker processes for `local`). Shut down when the block is left: at once,
    its pending work cancelled, when it is left by an interrupt or an error."""
    if dask:
        with dask_mapper(None if dask == "local" else dask, workers_wanted(workers)) as m:
            yield m
        return
    n = workers_wanted(workers)
    if n == 1:
        yield serial_mapper
        return
    m, stop = local_mapper(n)
    try:
        yield m
    except BaseException:
        stop(True)
        raise
    stop(False)
