"""Small file helpers: atomic writes and locating the repository.

Every output file of accelbrake is written atomically: the data goes to a temporary file in the
destination directory, is flushed to disk (``fsync``), and is then renamed over the destination with
:func:`os.replace`, after which the directory is synced too. A reader never sees a half-written
file, and neither an interrupted run nor a power loss leaves partial output under a final name.
The one exception is a sweep's run files, synced after the rename by a :class:`BackgroundSync`:
the sweep checks each run's files before it trusts them, and runs again a run whose files a power
loss left incomplete.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: Prefix of temporary files; anything starting with it in an output directory is a leftover.
TEMP_PREFIX = ".accelbrake-tmp-"


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, sync: BackgroundSync | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success rename it to ``path``.

    The temporary file keeps ``path``'s suffix, so writers that pick a format by extension (pandas,
    matplotlib) behave as for the real name. On error the temporary file is removed and the
    destination is left untouched. With ``sync``, the file and its directory are synced to disk by
    that :class:`BackgroundSync` after the rename instead of here before it.
    """
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=TEMP_PREFIX + dest.stem + ".", suffix=dest.suffix)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        # mkstemp creates 0600 files; give the result the permissions a plain open() would.
        os.chmod(tmp_path, 0o666 & ~_UMASK)
        if sync is None:
            _fsync(tmp_path)
        os.replace(tmp_path, dest)
        if sync is None:
            _fsync(dest.parent, directory=True)
        else:
            sync.add(dest)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp_path.unlink()
        if e.filename is None:
            # A failed write (a full disk, a quota) names no file: name the one being written.
            raise OSError(e.errno, e.strerror or str(e), str(dest)) from e
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            tmp_path.unlink()
        raise


def _fsync(path: Path, *, directory: bool = False) -> None:
    """Flush ``path`` (a file, or a directory's entries) to disk; a no-op where unsupported."""
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


class BackgroundSync:
    """Syncs files to disk (``fsync`` of each, then of their directories) in a thread of its own,
    so that the writer does not wait for the disk: for a sweep's run files (four per run, each
    synced twice: the waits were a few percent of ``reproduce all``'s driver time). A power loss
    can then leave a run's latest files incomplete under their final names; the sweep checks every
    run's files before it trusts them (the document's SHA-256 in the run's index, the Parquet
    footers) and runs such a run again. :meth:`close` returns once everything given is synced."""

    def __init__(self) -> None:
        import queue

        self._queue: queue.SimpleQueue[Path | None] = queue.SimpleQueue()
        self._thread: Any = None

    def add(self, path: Path) -> None:
        """Sync ``path`` and its directory (soon, in the background)."""
        if self._thread is None:
            import threading

            self._thread = threading.Thread(target=self._run, name="accelbrake-fsync", daemon=True)
            self._thread.start()
        self._queue.put(path)

    def _run(self) -> None:
        import queue

        done = False
        while not done:
            batch = [self._queue.get()]
            with contextlib.suppress(queue.Empty):
                while batch[-1] is not None:
                    batch.append(self._queue.get_nowait())
            done = batch[-1] is None
            files = [p for p in batch if p is not None]
            for f in files:
                _fsync(f)
            for d in dict.fromkeys(f.parent for f in files):
                _fsync(d, directory=True)

    def close(self) -> None:
        """Wait until every file given is synced (and end the thread)."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def __enter__(self) -> BackgroundSync:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def atomic_write(path: str | os.PathLike[str], writer: Callable[[Path], Any]) -> Path:
    """Call ``writer(tmp_path)`` and atomically move the result to ``path``; return ``path``."""
    with atomic_path(path) as tmp:
        writer(tmp)
    return Path(path)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def atomic_write_json(
    path: str | os.PathLike[str], obj: Any, *, indent: int | None = 2, sync: BackgroundSync | None = None
) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically (:func:`json_bytes`); ``sync`` as for
    :func:`atomic_path`."""
    return atomic_write_bytes(path, json_bytes(obj, indent=indent), sync=sync)


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, *, sync: BackgroundSync | None = None
) -> Path:
    """Write ``data`` to ``path`` atomically; ``sync`` as for :func:`atomic_path`."""
    with atomic_path(path, sync=sync) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def json_bytes(obj: Any, *, indent: int | None = 2) -> bytes:
    """``obj`` as indented JSON text (NaN/inf become null) and a newline, UTF-8; ``indent=None``
    gives it on one line. By orjson where it is installed (a dependency; NaN/inf become null there
    too; one line or two-space indents), else Python's encoder."""
    if indent is None or indent == 2:
        # orjson's indenting is C too (Python's indenting encoder is pure Python: the largest
        # part of writing a sweep's small run documents).
        fast = _orjson_dumps(obj, indent2=indent == 2)
        if fast is not None:
            return fast + b"\n"
    return (json.dumps(_finite(obj), indent=indent, allow_nan=False) + "\n").encode()


def loads(text: str | bytes) -> Any:
    """``json.loads`` with orjson where it is installed (3-4× faster on the multi-megabyte run
    documents of sweeps with thousands of flows). The same values: both parse floats correctly
    rounded; errors are ``ValueError`` either way (orjson's subclasses ``json.JSONDecodeError``)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a dependency
        return json.loads(text)
    return orjson.loads(text)


def canonical_json(obj: Any) -> bytes:
    """``obj`` as compact JSON with sorted keys (UTF-8 bytes), for hashing: what
    ``json.dumps(obj, sort_keys=True, separators=(",", ":"))`` gives (tuples as lists, non-string
    keys as strings), by orjson where it is installed (tens of times faster on the megabyte-sized
    scenarios of runs with thousands of flows; the text can differ in how a few small floats are
    spelt, e.g. ``1e-05`` against ``0.00001``, and in non-ASCII characters, which orjson writes as
    UTF-8 rather than ``\\u`` escapes: deterministic either way, which is all a hash needs)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a dependency
        return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def json_fragment(text: str | bytes) -> Any:
    """Something to put in an object for :func:`atomic_write_json` with ``indent=None`` that is
    written as ``text`` (JSON already encoded) verbatim: an ``orjson.Fragment``; without orjson,
    the parsed value (encoded again)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a dependency
        return json.loads(text)
    return orjson.Fragment(text)


def dumps_strict(obj: Any) -> str:
    """``json.dumps(obj, allow_nan=False)`` (a ``ValueError`` for NaN or infinity), by orjson when
    its text has no ``null`` (orjson writes NaN as null, so a null sends it to the standard
    encoder, which tells the two apart): for the core's validation of a scenario, whose spacing
    does not matter."""
    fast = _orjson_dumps(obj)
    if fast is not None and b"null" not in fast:
        return fast.decode()
    return json.dumps(obj, allow_nan=False)


def dumps_compact(obj: Any) -> str:
    """``json.dumps(obj)`` without its spaces, by orjson where it is installed (for the scenario
    text a task carries to its worker)."""
    fast = _orjson_dumps(obj)
    return fast.decode() if fast is not None else json.dumps(obj, separators=(",", ":"))


def _orjson_dumps(obj: Any, *, indent2: bool = False) -> bytes | None:
    """``obj`` as compact JSON by orjson (non-finite floats → null, numpy scalars and arrays as
    numbers, non-string keys as strings, as ``json.dumps(_finite(obj))`` gives; with ``indent2``
    indented by two spaces, as ``indent=2``), or ``None`` when orjson is missing or cannot encode
    an object that the standard encoder might."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a dependency
        return None
    option = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
    if indent2:
        option |= orjson.OPT_INDENT_2
    try:
        return orjson.dumps(obj, option=option)
    except TypeError:
        return None


def _finite(obj: Any) -> Any:
    """Replace non-finite floats by ``None`` so the JSON is standard (as the core's summary is)."""
    if isinstance(obj, float):
        return obj if obj == obj and obj not in (float("inf"), float("-inf")) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return _finite(obj.item())
    return obj


def package_dir() -> Path:
    """The directory of the installed ``accelbrake`` package."""
    return Path(__file__).resolve().parent


def find_upwards(relative: str | os.PathLike[str]) -> Path | None:
    """Find ``relative`` in the package directory or one of its ancestors (the repository root)."""
    rel = Path(relative)
    for base in [package_dir(), *package_dir().parents]:
        candidate = base / rel
        if candidate.exists():
            return candidate
    return None


#: Deepest nesting of arrays and objects accepted in a user's JSON or TOML document. Scenario and
#: experiment files need fewer than ten levels; the limit stops a hostile document before the
#: parser or a later recursive walk exhausts Python's stack (a ``RecursionError``) or the core's
#: deserialiser refuses it without naming the file.
MAX_DOCUMENT_DEPTH = 64


class DocumentError(ValueError):
    """A user's JSON or TOML document that cannot be read: the message names the file (``where``)."""


def _depth_exceeds(obj: Any, limit: int) -> bool:
    """Whether ``obj`` nests lists and dicts more than ``limit`` levels deep (walked without
    recursion, so any depth is safe to check)."""
    stack = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def _too_deep(where: str) -> DocumentError:
    return DocumentError(
        f"{where}: nested more than {MAX_DOCUMENT_DEPTH} levels deep (arrays and tables within one "
        "another); no accelbrake document needs that many"
    )


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            # JSON leaves duplicate names undefined (RFC 8259 §4) and Python keeps the last one
            # silently; TOML forbids them. Refuse them here too, so no value is dropped unseen.
            raise DocumentError(f"duplicate key {k!r} in one object")
        out[k] = v
    return out


def parse_json_document(text: str, where: str) -> Any:
    """A user's JSON document (a scenario file): ``json.loads`` that refuses duplicate keys and
    nesting deeper than :data:`MAX_DOCUMENT_DEPTH`. Errors are :class:`DocumentError` (syntax:
    ``json.JSONDecodeError``) naming ``where``."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except RecursionError:
        raise _too_deep(where) from None
    except DocumentError as e:
        raise DocumentError(f"{where}: {e}") from None
    if _depth_exceeds(data, MAX_DOCUMENT_DEPTH):
        raise _too_deep(where)
    return data


def parse_toml_document(text: str, where: str) -> dict[str, Any]:
    """A user's TOML document: ``tomllib.loads`` that refuses nesting deeper than
    :data:`MAX_DOCUMENT_DEPTH`. Syntax errors stay ``tomllib.TOMLDecodeError`` (a ``ValueError``);
    too deep a document is a :class:`DocumentError` naming ``where``."""
    try:
        import tomllib  # Python ≥ 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(where) from None
    if _depth_exceeds(data, MAX_DOCUMENT_DEPTH):
        raise _too_deep(where)
    return data
