"""Progress bars for builds. The native build calls ``callback(phase, done, total)`` from the
calling thread every 100 ms: phase "reading" counts input (bytes for files, edges for arrays)
up to ``total``; phase "building" (sorting, merging, writing the store) has no total."""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

ProgressCallback = Callable[[str, int, Optional[int]], Any]


class TqdmProgress:
    """A tqdm bar for the reading phase, then a spinner-like bar for the building phase."""

    def __init__(self, unit: str):
        try:
            from tqdm.auto import tqdm
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("progress=True needs tqdm: pip install tqdm") from exc
        self._tqdm = tqdm
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


def make_progress(progress: Union[bool, ProgressCallback, None], unit: str):
    """(callback for the native build or None, closer to call when the build ends)."""
    if progress is None or progress is False:
        return None, lambda: None
    if progress is True:
        bar = TqdmProgress(unit)
        return bar, bar.close
    if callable(progress):
        return progress, lambda: None
    raise TypeError("progress must be True, False or a callable(phase, done, total)")
