"""Checking the options shared by builds and algorithms: memory budgets and thread counts."""

from __future__ import annotations

import os
import re
from typing import Optional, Union

from . import _native

Memory = Union[int, str, None]

# Binary and decimal suffixes both mean powers of 1024, as in the CLI's `--memory`: a user
# writing 1G for a 1 GiB box would be surprised by 10^9.
_UNITS = {
    "": 1, "b": 1,
    "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
    "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
    "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
    "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
}  # fmt: skip
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*")


def total_ram_bytes() -> Optional[int]:
    """Physical memory from /proc/meminfo (None where there is no such file)."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def default_memory_bytes() -> int:
    """The build budget when none is given: half of RAM, like the CLI (the page cache keeps
    the other half)."""
    ram = total_ram_bytes()
    return ram // 2 if ram else 4 << 30


def parse_memory(memory: Memory, minimum: Optional[int] = None) -> int:
    """A memory budget in bytes from an int (bytes) or a size string such as ``"2GiB"``,
    ``"512M"`` or ``"1.5g"``; None gives the default (half of RAM). ``minimum`` defaults to a
    build's (16 MiB); a run's is its plan's, which the run itself names (as the CLI's does)."""
    if minimum is None:
        minimum = _native.MIN_MEMORY_BYTES
    if memory is None:
        return default_memory_bytes()
    if isinstance(memory, bool):
        raise TypeError("memory must be a number of bytes or a size string such as '2GiB', not a bool")
    if isinstance(memory, int) or hasattr(memory, "__index__"):
        value = int(memory.__index__())
    elif isinstance(memory, str):
        match = _SIZE.fullmatch(memory)
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise ValueError(
                f"memory={memory!r} is not a size (examples: 512MiB, 2G, 1073741824; units K, M, G, T)"
            )
        number = match.group(1)
        if _UNITS[unit] == 1 and not number.isdigit():
            raise ValueError(f"memory={memory!r} is not a whole number of bytes (or give a unit: K, M, G or T)")
        # A whole number is read exactly: through float, 2^64 - 1 would round up to 2^64.
        value = int(number) * _UNITS[unit] if number.isdigit() else int(float(number) * _UNITS[unit])
    else:
        raise TypeError(f"memory must be an int or a size string such as '2GiB', not {type(memory).__name__}")
    if value < minimum:
        raise ValueError(
            f"memory={memory!r} is {value} bytes, below the minimum of {minimum} bytes"
            + (f" ({minimum >> 20} MiB)" if minimum >= 1 << 20 else "")
        )
    if value >= 1 << 64:
        raise ValueError(f"memory={memory!r} is {value} bytes: 2^64 bytes or more")
    return value


def check_threads(threads: Optional[int]) -> Optional[int]:
    """None (all cores) or a positive thread count."""
    if threads is None:
        return None
    if isinstance(threads, bool) or not hasattr(threads, "__index__"):
        raise TypeError(f"threads must be a positive int or None, not {type(threads).__name__}")
    value = int(threads.__index__())
    if value < 1:
        raise ValueError(f"threads must be at least 1, got {value}")
    # Past a machine word the native check cannot even be given the number.
    if value >= 1 << 32:
        raise ValueError(f"threads: {value} threads is more than the limit (16 per core, at least 256)")
    return value


def fspath(path: Union[str, os.PathLike]) -> str:
    """A path argument as a string, with a clear error for anything else."""
    try:
        return os.fspath(path)
    except TypeError:
        raise TypeError(f"expected a path (str or os.PathLike), got {type(path).__name__}") from None
