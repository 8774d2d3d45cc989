"""Dimensions a platform declares beyond the built-in configuration columns.

A platform (or a role of the user's, through its argument spec) declares each further
dimension it can sweep with the type of its values, the values it takes and what changing it
costs on the storage: ``format`` (the RAID groups are built anew), ``volume`` (the volume or
filesystem on them is built anew) or ``setting`` (a setting is flipped). A spec sweeps one by
listing it in ``config_space`` like a built-in dimension; every configuration's key then
carries it as ``/<name>=<value>`` (keys of configurations without one are as they were).

A leaf of the project besides the vocabulary: the configurations, the spec, the platforms and
the recommender all read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from sweeper.vocabulary import CONFIGURATION_COLUMNS

#: what changing a dimension costs, most expensive first
COST_CLASSES: Final = ("format", "volume", "setting")
CostClass = Literal["format", "volume", "setting"]
#: a declared dimension's name (also its Optuna parameter and its key segment)
DIMENSION_NAME_RE: Final = re.compile(r"[a-z][a-z0-9_]{0,31}")
#: a text value of a declared dimension (it becomes part of a key and a variable's value)
TEXT_VALUE_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,63}")
_INT_RE: Final = re.compile(r"-?\d{1,12}")
#: the Optuna parameter prefixes of per-layout built-in values
_RESERVED_PREFIXES: Final = ("ranks_", "stripe_kib_")
#: the drives of one RAID group, as the trade-offs read it from a configuration
WIDTH: Final = "drives_per_rank"
#: the built-in value types, as a declaration names them
KINDS: Final = {"int": int, "str": str, "bool": bool}


@dataclass(frozen=True)
class Dimension:
    """A dimension a platform declares: its values' type, the values it can build (``None``:
    any of the type), and what changing it costs."""

    name: str
    kind: Literal["int", "str", "bool"]
    choices: tuple[Any, ...] | None
    cost: CostClass
    description: str = ""


def name_problem(name: Any) -> str | None:
    """Why ``name`` cannot name a declared dimension, or None."""
    if not isinstance(name, str) or not DIMENSION_NAME_RE.fullmatch(name):
        return f"{name!r} is not a dimension name (lower-case letters, digits, '_'; at most 32)"
    if name in CONFIGURATION_COLUMNS or name.startswith(_RESERVED_PREFIXES):
        return f"{name!r} is a built-in configuration dimension's name"
    return None


def value_text(value: Any) -> str:
    """A value as a key spells it: ``true``/``false``, ``64``, ``xfs``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def value_of(text: str) -> Any:
    """A key's spelling back to the value (the inverse of ``value_text``)."""
    if text in ("true", "false"):
        return text == "true"
    return int(text) if _INT_RE.fullmatch(text) else text


def value_problem(dim: Dimension, value: Any) -> str | None:
    """Why ``value`` is not a value ``dim`` takes, or None."""
    kind = KINDS[dim.kind]
    if type(value) is not kind:
        return f"{value!r} is not of {dim.name}'s type ({dim.kind})"
    if kind is str and (not TEXT_VALUE_RE.fullmatch(value) or value in ("true", "false")):
        return f"{value!r} cannot be a value of {dim.name} (a word: letters, digits, '._-')"
    if dim.choices is not None and value not in dim.choices:
        shown = ", ".join(value_text(c) for c in dim.choices)
        return f"{value_text(value)} is not among {dim.name}'s values ({shown})"
    return None


def listing_problems(
    given: Mapping[str, Any], declared: Mapping[str, Dimension], platform: str, elsewhere: str = ""
) -> list[tuple[list[str | int], str]]:
    """(location, problem) of the dimensions a spec's ``config_space`` lists beyond the
    built-in ones, against what the platform declares. ``elsewhere``: a sentence saying which
    other platform has a dimension this one lacks (by name; empty when none)."""
    problems: list[tuple[list[str | int], str]] = []
    for name, values in given.items():
        where: list[str | int] = ["config_space", name]
        dim = declared.get(name)
        if dim is None:
            offered = ", ".join(declared) or "none"
            problems.append(
                (
                    where,
                    f"{name!r} is not a dimension platform {platform!r} can sweep "
                    f"(built-in: {', '.join(CONFIGURATION_COLUMNS)}; {platform} declares: "
                    f"{offered}){'; ' + elsewhere if elsewhere else ''}",
                )
            )
            continue
        if not isinstance(values, list) or not values:
            problems.append((where, "give the values to sweep as a non-empty list"))
            continue
        seen: set[Any] = set()
        for i, value in enumerate(values):
            problem = value_problem(dim, value)
            if problem is None and (type(value), value) in seen:
                problem = f"repeats the value {value_text(value)}"
            seen.add((type(value), value))
            if problem:
                problems.append(([*where, i], problem))
    return problems


def most_expensive(changed: Iterable[str], declared: Mapping[str, Dimension]) -> str | None:
    """The costliest class among the declared dimensions ``changed`` (None: none changed)."""
    classes = {declared[n].cost for n in changed if n in declared}
    return next((c for c in COST_CLASSES if c in classes), None)


def raid_group(level: str, drives: int) -> dict[str, int]:
    """Data and redundancy drives of one RAID group of ``drives`` drives (RAID 10: mirrored
    pairs; RAID 1: a mirror of them all, one drive of data)."""
    if level == "raid0":
        return {"data": drives, "redundancy": 0}
    if level == "raid1":
        return {"data": 1, "redundancy": drives - 1}
    if level == "raid5":
        return {"data": drives - 1, "redundancy": 1}
    if level == "raid6":
        return {"data": drives - 2, "redundancy": 2}
    return {"data": drives // 2, "redundancy": drives - drives // 2}
