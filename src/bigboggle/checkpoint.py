"""A run's finished chunks on disk, so that a run stopped (Ctrl-C, a lost machine) resumes.

The file is JSON lines. The first is the run's identity (:meth:`bigboggle.study.StatsRun.identity`
and the like); each further line is one finished chunk, ``{"chunk": i, "result": {...}}``,
written and flushed to the disk as the chunk finishes, or, for a run whose chunks merge (a
stats run's tallies), a snapshot of every chunk so far, ``{"chunks": [[first, last], ...],
"merged": {...}}``, which :meth:`Checkpoint.compact` writes in place of the lines before it, so
the file of a run of 10^9 shakes stays a few megabytes. A run resumed from the file does only
the chunks it lacks, and since chunks merge exactly, its result is that of an unbroken run.

A last line cut off by a crash is dropped (that chunk is done again); any other damage, a file
of another run, or one that is not a regular file, is refused with the reason, never silently
mixed in. The file is locked while a run has it open (a second run on it is refused), and it is
only ever replaced whole (a new file beside it, renamed over it, with its permissions; through
a symbolic link, the file the link names).
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from typing import IO, Any, Generic, TypeVar

from .errors import BoggleError

Result = TypeVar("Result")

#: The longest line a checkpoint may hold (a snapshot of a stats run is a few hundred kB).
MAX_LINE_BYTES = 16 << 20
#: The largest checkpoint read (a run of 10^6 search restarts is about 300 MB).
MAX_FILE_BYTES = 1 << 30
#: Chunk indices a snapshot may name when its run's number of chunks is not given.
MAX_CHUNK_INDEX = 10**7


class CheckpointError(BoggleError):
    """A checkpoint file that cannot be used: another run's, damaged, in use, or unreadable."""


class Inconsistent(ValueError):
    """A chunk's result that is not what its chunk gives (raised by a checkpoint's ``check``,
    whose message says what is wrong)."""


class Checkpoint(Generic[Result]):
    """An open checkpoint. Without ``merge``, :attr:`done` holds the chunks finished before (by
    index). With ``merge`` (two results into one), :attr:`merged` is all of them in one and
    :attr:`indices` says which they were; :meth:`compact` keeps the file small."""

    def __init__(
        self,
        path: str,
        identity: dict[str, Any],
        decode: Callable[[dict[str, Any]], Result],
        merge: Callable[[Result, Result], Result] | None = None,
        *,
        chunks: int | None = None,
        check: Callable[[set[int], Result], None] | None = None,
    ) -> None:
        self.path = os.path.realpath(path)
        self.shown = path
        self.header = json.dumps(identity, sort_keys=True)
        self.done: dict[int, Result] = {}
        self.indices: set[int] = set()
        self.merged: Result | None = None
        self._decode = decode
        self._merge = merge
        self._chunks = chunks  # chunk indices run from 0 to this (exclusive), when given
        self._check = check  # raises ValueError if a result is not what its chunks give
        self._file: IO[str] | None = None
        self._lock: int | None = None
        self._refuse_other_than_a_file()  # before the lock, which is made beside it
        self._take_lock()
        try:
            lines = self._read(identity)
            self._rewrite(lines)
        except BaseException:
            self.close()
            raise

    # -- opening -------------------------------------------------------------------------------

    def _refuse_other_than_a_file(self) -> None:
        """:class:`CheckpointError` for a path that names a directory, a device or a pipe, or
        lies in no folder: none of them gets a lock file beside it."""
        if not self.shown:
            raise CheckpointError("a checkpoint needs a file name, not ''")
        if self._regular_file() is None and not os.path.isdir(os.path.dirname(self.path) or "."):
            raise CheckpointError(f"checkpoint {self.shown!r} cannot be written: no such folder")

    def _regular_file(self) -> os.stat_result | None:
        """The file's status if it is a regular file, ``None`` if there is none;
        :class:`CheckpointError` if it is something else or cannot be looked at."""
        where = f"checkpoint {self.shown!r}"
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CheckpointError(f"{where} cannot be read: {exc.strerror}") from None
        if stat.S_ISDIR(info.st_mode):
            raise CheckpointError(f"{where} is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise CheckpointError(f"{where} is not a regular file (a device, a pipe?)")
        return info

    def _take_lock(self) -> None:
        """An exclusive lock on ``PATH.lock`` for as long as the checkpoint is open."""
        try:
            self._lock = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise CheckpointError(
                f"checkpoint {self.shown!r} cannot be written: {exc.strerror}"
            ) from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lock)
            self._lock = None
            raise CheckpointError(
                f"checkpoint {self.shown!r} is in use by another run; wait for it to end"
            ) from None

    def _read(self, identity: dict[str, Any]) -> list[str]:
        """The good chunk lines of an existing file (filling what was done); none if new."""
        where = f"checkpoint {self.shown!r}"
        info = self._regular_file()  # again: it may have changed since the lock was taken
        if info is None:
            return []
        if info.st_size > MAX_FILE_BYTES:
            raise CheckpointError(
                f"{where} is {info.st_size:,} bytes; the limit is {MAX_FILE_BYTES:,}"
            )
        try:
            with open(self.path, "rb") as file:
                raw = list(_lines(file, where))
        except OSError as exc:
            raise CheckpointError(f"{where} cannot be read: {exc.strerror}") from None
        if not raw:
            return []
        try:
            if raw[0] is None:
                raise ValueError("too long")
            found = json.loads(raw[0])
        except (ValueError, UnicodeDecodeError):
            raise CheckpointError(
                f"{where}: line 1 is not a run's header (not a checkpoint file?)"
            ) from None
        if found != identity:
            raise CheckpointError(f"{where} is another run's: {_difference(found, identity)}")
        kept: list[str] = []
        for number, line in enumerate(raw[1:], start=2):
            try:
                if line is None:
                    raise ValueError("too long")
                entry = json.loads(line)
                if not isinstance(entry, dict):
                    raise ValueError("not an object")
                if "merged" in entry and self._merge is not None:
                    limit = self._chunks if self._chunks is not None else MAX_CHUNK_INDEX
                    indices, data = _indices(entry["chunks"], limit), entry["merged"]
                else:
                    index = entry["chunk"]
                    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                        raise ValueError("bad chunk")
                    indices, data = {index}, entry["result"]
                if not isinstance(data, dict):
                    raise ValueError("a result is an object")
                if self._chunks is not None and any(i >= self._chunks for i in indices):
                    raise ValueError(f"a chunk past the run's {self._chunks}")
                result = self._decode(data)
                if self._check is not None:
                    self._check(indices, result)
                self._absorb(indices, result)
            except (
                ValueError,  # BoardError among them
                KeyError,
                TypeError,
                AttributeError,
                OverflowError,  # 1e999 where a count goes
                RecursionError,  # JSON nested past Python's depth
                UnicodeDecodeError,
                BoggleError,
            ) as exc:
                if number == len(raw):  # cut off by a crash while it was written: run it again
                    break
                why = f" ({exc})" if isinstance(exc, Inconsistent | BoggleError) else ""
                raise CheckpointError(
                    f"{where}: line {number} is damaged{why}; remove the file to start afresh"
                ) from None
            assert line is not None
            kept.append(line.decode())
        return kept

    def _absorb(self, indices: set[int], result: Result) -> None:
        if self._merge is None:
            (index,) = indices
            self.done.setdefault(index, result)
            return
        if indices & self.indices:
            return  # already counted (two lines of one chunk, as a crash mid-compaction leaves)
        self.indices |= indices
        self.merged = result if self.merged is None else self._merge(self.merged, result)

    def _rewrite(self, lines: Iterable[str]) -> None:
        """The file afresh, whole: a new file beside it, renamed over it (a cut-off last line,
        or the lines a snapshot replaces, are gone before new lines follow)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        folder = os.path.dirname(self.path) or "."
        try:
            mode = stat.S_IMODE(os.stat(self.path).st_mode)
        except OSError:
            mode = None
        try:
            handle, partial = tempfile.mkstemp(dir=folder, prefix=".checkpoint-", suffix=".part")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    file.write(self.header + "\n")
                    file.writelines(line + "\n" for line in lines)
                    file.flush()
                    os.fsync(file.fileno())
                if mode is not None:
                    os.chmod(partial, mode)
                os.replace(partial, self.path)
            except BaseException:
                if os.path.exists(partial):
                    os.unlink(partial)
                raise
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise CheckpointError(
                f"checkpoint {self.shown!r} cannot be written: {exc.strerror}"
            ) from None

    # -- writing -------------------------------------------------------------------------------

    def record(self, index: int, result: dict[str, Any]) -> None:
        """Append a finished chunk, on the disk before this returns."""
        assert self._file is not None
        self._write(json.dumps({"chunk": index, "result": result}, sort_keys=True))

    def compact(self, indices: set[int], merged: dict[str, Any]) -> None:
        """Replace the file's lines by one snapshot: ``merged`` is every chunk of ``indices``."""
        line = json.dumps({"chunks": _ranges(indices), "merged": merged}, sort_keys=True)
        self._rewrite([line])

    def _write(self, line: str) -> None:
        assert self._file is not None
        try:
            self._file.write(line + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as exc:
            raise CheckpointError(
                f"checkpoint {self.shown!r} cannot be written: {exc.strerror}"
            ) from None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._lock is not None:
            os.close(self._lock)  # releases the lock; the lock file stays (removing it races)
            self._lock = None


def _lines(file: IO[bytes], where: str) -> Iterable[bytes | None]:
    """The file's lines without their ends; ``None`` for a line past :data:`MAX_LINE_BYTES`
    (never read whole)."""
    while True:
        line = file.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while True:  # skip the rest of it
                more = file.readline(MAX_LINE_BYTES)
                if not more or more.endswith(b"\n"):
                    break
            yield None
            continue
        yield line.rstrip(b"\n")


def _ranges(indices: set[int]) -> list[list[int]]:
    """Sorted indices as runs ``[first, last]``."""
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and runs[-1][1] == index - 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return runs


def _indices(runs: object, limit: int) -> set[int]:
    """The chunk indices of a snapshot's ``[first, last]`` runs, each below ``limit``; the runs
    together no longer than ``limit`` (a snapshot's runs are disjoint), so that a damaged line
    costs no more to read than a whole run's indices."""
    if not isinstance(runs, list):
        raise ValueError("chunks")
    found: set[int] = set()
    total = 0
    for run in runs:
        if (
            not isinstance(run, list)
            or len(run) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in run)
            or not 0 <= run[0] <= run[1] < limit
        ):
            raise ValueError("chunks")
        total += run[1] - run[0] + 1
        if total > limit:
            raise ValueError("chunks")
        found.update(range(run[0], run[1] + 1))
    return found


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
