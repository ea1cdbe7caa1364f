"""Progress bars for builds and runs, called from the calling thread every 100 ms.

A build calls ``callback(phase, done, total)``: phase "reading" counts input (bytes for files,
edges for arrays) up to ``total``; phase "building" (sorting, merging, writing the store) has
no total.

A run calls ``callback(status)`` with a dict: ``iterations`` finished (0 for an algorithm that
counts none) and ``max_iterations`` (the cap, or None), ``steps`` (engine operations),
``active`` (the latest frontier's size), ``passes``, ``bytes_read`` and ``mode`` (out of
core), and ``seconds``."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Union

ProgressCallback = Callable[[str, int, Optional[int]], Any]
RunProgressCallback = Callable[[Dict[str, Any]], Any]


class TqdmProgress:
    """A tqdm bar for the reading phase, then a spinner-like bar for the building phase."""

    def __init__(self, unit: str):
        self._tqdm = _tqdm()
        self._unit = unit
        self._bar = None
        self._phase = None

    def __call__(self, phase: str, done: int, total: Optional[int]) -> None:
        if phase != self._phase:
            self.close()
            self._phase = phase
            if phase == "reading":
                byte_unit = self._unit == "B"
                self._bar = self._tqdm(
                    total=total,
                    desc="reading",
                    unit=self._unit,
                    unit_scale=byte_unit,
                    unit_divisor=1024 if byte_unit else 1000,
                )
            else:
                self._bar = self._tqdm(total=None, desc=phase, bar_format="{desc}: {elapsed}")
        bar = self._bar
        if bar is None:
            return
        if total is not None and bar.total != total:
            bar.total = total
        if self._phase == "reading":
            bar.update(done - bar.n)
        else:
            bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _callback(progress: Any, bar: Callable[[], Any], signature: str):
    """(callback for the native call or None, closer to call when it ends): ``bar()`` makes the
    tqdm bar that ``progress=True`` asks for."""
    if progress is None or progress is False:
        return None, lambda: None
    if progress is True:
        made = bar()
        return made, made.close
    if callable(progress):
        return progress, lambda: None
    raise TypeError(f"progress must be True, False or a callable{signature}")


def make_progress(progress: Union[bool, ProgressCallback, None], unit: str):
    """(callback for the native build or None, closer to call when the build ends)."""
    return _callback(progress, lambda: TqdmProgress(unit), "(phase, done, total)")


def _tqdm():
    try:
        from tqdm.auto import tqdm
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("progress=True needs tqdm: pip install tqdm") from exc
    return tqdm


class TqdmRunProgress:
    """A tqdm bar of a run's iterations (up to the cap when the algorithm has one, else its
    engine steps), with the frontier and the bytes read beside it."""

    def __init__(self, algorithm: str):
        self._bar = _tqdm()(total=None, desc=algorithm, unit="it")

    def __call__(self, status: Dict[str, Any]) -> None:
        bar = self._bar
        counted = status["iterations"] if status["iterations"] else status["steps"]
        if status["iterations"] and status["max_iterations"] is not None:
            bar.total = status["max_iterations"]
        bar.update(counted - bar.n)
        notes = []
        if status["active"]:
            notes.append(f"{status['active']:,} active")
        if status["passes"]:
            notes.append(f"read {status['bytes_read'] / 2**20:.1f} MiB ({status['mode'] or 'mixed'})")
        bar.set_postfix_str(", ".join(notes), refresh=False)

    def close(self) -> None:
        self._bar.close()


def make_run_progress(progress: Union[bool, RunProgressCallback, None], algorithm: str):
    """(callback for the native run or None, closer to call when the run ends)."""
    return _callback(progress, lambda: TqdmRunProgress(algorithm), "(status)")
