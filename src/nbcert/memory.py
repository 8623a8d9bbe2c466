"""The memory the machine has available now: what the searches and the readers plan by."""

from __future__ import annotations


def mem_available() -> int | None:
    """MemAvailable of /proc/meminfo in bytes (None where it cannot be read)."""
    try:
        with open("/proc/meminfo") as f:
            info = {k: int(v.split()[0]) * 1024 for k, v in (line.split(":", 1) for line in f)}
    except (OSError, ValueError):
        return None
    return info.get("MemAvailable", info.get("MemFree"))


__all__ = ["mem_available"]
