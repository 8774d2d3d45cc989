"""A file as a test compares it before and after what must leave it alone: its bytes'
SHA-256, read a block at a time (a test's image or disk can be large)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def digest(path: Path | str) -> str:
    """The SHA-256 of the bytes of ``path`` (a file or a block device), in hex."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def folder_contents(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` by its place, as the digest of its bytes (a store before
    and after what must leave it unchanged)."""
    return {str(p.relative_to(folder)): digest(p) for p in sorted(folder.rglob("*")) if p.is_file()}
