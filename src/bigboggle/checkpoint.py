"""A run's finished chunks on disk, so that a run stopped (Ctrl-C, a lost machine) resumes.

The file is JSON lines: the first is the run's identity (:meth:`bigboggle.study.StatsRun.identity`
and the like), each further line one finished chunk, ``{"chunk": i, "result": {...}}``, written
and flushed to the disk as the chunk finishes. A run resumed from the file does only the chunks
it lacks, and since chunks merge exactly, its result is the result of an unbroken run. A last
line cut off by a crash is dropped (that chunk is done again); any other damage, or a file of
another run, is refused with the reason, never silently mixed in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import IO, Any, Generic, TypeVar

from .errors import BoggleError

Result = TypeVar("Result")

#: The longest line a checkpoint may hold (a chunk's tally is a few kilobytes).
MAX_LINE_BYTES = 4 << 20


class CheckpointError(BoggleError):
    """A checkpoint file that cannot be used: another run's, damaged, or unreadable."""


class Checkpoint(Generic[Result]):
    """An open checkpoint: :attr:`done` holds the chunks finished before (by index), and
    :meth:`record` appends one more."""

    def __init__(
        self,
        path: str,
        identity: dict[str, Any],
        decode: Callable[[dict[str, Any]], Result],
    ) -> None:
        self.path = path
        self.done: dict[int, Result] = {}
        header = json.dumps(identity, sort_keys=True)
        lines = self._read(path, identity, decode)
        # Written afresh (whole, then renamed over the old one): a cut-off last line is gone
        # before new lines follow it.
        partial = f"{path}.part"
        try:
            with open(partial, "w", encoding="utf-8") as file:
                file.write(header + "\n")
                file.writelines(line + "\n" for line in lines)
                file.flush()
                os.fsync(file.fileno())
            os.replace(partial, path)
            self._file: IO[str] = open(path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise CheckpointError(
                f"checkpoint {path!r} cannot be written: {exc.strerror}"
            ) from None

    def _read(
        self, path: str, identity: dict[str, Any], decode: Callable[[dict[str, Any]], Result]
    ) -> list[str]:
        """The good chunk lines of an existing file (filling :attr:`done`); none if new."""
        try:
            with open(path, "rb") as file:
                raw = file.read().split(b"\n")
        except FileNotFoundError:
            return []
        except IsADirectoryError:
            raise CheckpointError(f"checkpoint {path!r} is a directory, not a file") from None
        except OSError as exc:
            raise CheckpointError(f"checkpoint {path!r} cannot be read: {exc.strerror}") from None
        if raw and raw[-1] == b"":
            raw.pop()
        if not raw:
            return []
        try:
            found = json.loads(raw[0])
        except (ValueError, UnicodeDecodeError):
            raise CheckpointError(
                f"checkpoint {path!r}: line 1 is not a run's header (not a checkpoint file?)"
            ) from None
        if found != identity:
            raise CheckpointError(
                f"checkpoint {path!r} is another run's: {_difference(found, identity)}"
            )
        kept: list[str] = []
        for number, line in enumerate(raw[1:], start=2):
            last = number == len(raw)
            try:
                if len(line) > MAX_LINE_BYTES:
                    raise ValueError("too long")
                entry = json.loads(line)
                index = entry["chunk"]
                if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                    raise ValueError("bad chunk")
                result = decode(entry["result"])
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                if last:  # cut off by a crash while it was written: that chunk runs again
                    break
                raise CheckpointError(
                    f"checkpoint {path!r}: line {number} is damaged; remove the file to start afresh"
                ) from None
            if index not in self.done:
                self.done[index] = result
                kept.append(line.decode())
        return kept

    def record(self, index: int, result: dict[str, Any]) -> None:
        """Append a finished chunk, on the disk before this returns."""
        self._file.write(json.dumps({"chunk": index, "result": result}, sort_keys=True) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def _difference(found: object, wanted: dict[str, Any]) -> str:
    """The first field in which a checkpoint's header differs from this run's."""
    if not isinstance(found, dict):
        return "its header is not a run's"
    for key in sorted(set(found) | set(wanted), key=lambda key: (key != "kind", key)):
        if found.get(key) != wanted.get(key):
            return f"its {key} is {_short(found.get(key))}, this run's {_short(wanted.get(key))}"
    return "its header differs"


def _short(value: object) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."
