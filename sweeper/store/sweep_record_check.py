"""Whether a sweep's record (``<root>/<sweep>/sweep.json``) may be used: a mapping naming
the sweep of the folder it lies in, that folder's name a sweep name, a spec in it; and, when
not, what is wrong in words a reader can act on."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from sweeper.errors import StoreError
from sweeper.store.wholeness import RESTORE
from sweeper.untrusted import is_name


def sweep_record(path: Path, record: Any) -> dict[str, Any]:
    """The record of ``<root>/<sweep>/sweep.json`` (its JSON document, ``record``): a
    mapping, naming the sweep of the folder it lies in; anything else is a StoreError naming
    the file (a crafted record must not send a report, or anything else, outside the store)."""
    if not isinstance(record, dict):
        raise StoreError(f"{path}: damaged (not a sweep's record){RESTORE}")
    folder = path.parent.name
    named = record.get("sweep_id")
    if named is None:
        raise StoreError(f"{path}: damaged (names no sweep: no sweep_id){RESTORE}")
    if named != folder:
        raise StoreError(
            f"{path}: names sweep {named!r} but lies in the folder {folder!r}"
            f"{_normalisation(named, folder)}; it is not used{RESTORE}"
        )
    if not is_name(folder):
        raise StoreError(
            f"{path}: the folder {folder!r} is not a sweep name: {name_problem(folder)}; it "
            f"is not used; {NAME_RULE} (rename the folder and the record's sweep_id alike)"
        )
    problem = _spec_problem(record.get("spec"))
    if problem is not None:
        raise StoreError(f"{path}: damaged ({problem}){RESTORE}")
    return record


#: what a sweep's name may be (``sweeper.vocabulary.NAME_RE``): it names the sweep's folder
NAME_RULE = (
    "a sweep name is 1 to 64 ASCII letters, digits, '.', '_' and '-', beginning with a "
    "letter or a digit"
)


def name_problem(name: str) -> str:
    """Which rule of ``NAME_RULE`` ``name`` breaks (``is_name`` is false of it)."""
    if not name:
        return "it is empty"
    if len(name) > 64:
        return f"it is {len(name)} characters long, more than 64"
    others = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "._-"))})
    if others:
        listed = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in others)
        return f"it holds {listed}, not an ASCII letter, digit, '.', '_' or '-'"
    return f"it begins with {name[0]!r}, not a letter or a digit"


def _normalisation(named: Any, folder: str) -> str:
    """Why a record's name and its folder's that read alike differ: the same letters in
    another Unicode normalisation (é as one code point, NFC, or as e and a combining
    accent, NFD), which the eye cannot tell apart; else nothing."""
    if not isinstance(named, str) or unicodedata.normalize("NFC", named) != (
        unicodedata.normalize("NFC", folder)
    ):
        return ""
    forms = [
        next((f for f in ("NFC", "NFD") if unicodedata.is_normalized(f, n)), "neither NFC nor NFD")
        for n in (named, folder)
    ]
    return (
        f" (they read alike but are written in different Unicode normalisations: the "
        f"record's is {forms[0]}, the folder's {forms[1]})"
    )


def _spec_problem(spec: Any) -> str | None:
    """Why a record holds no spec to read back, or None. What is in it is the spec's own to
    judge (``sweeper.spec``), where a command reads it."""
    return None if isinstance(spec, dict) else "no spec"
