"""How many ranks a multi-rank layout spreads a volume over, as a config space gives them.

Three forms, told apart by their keys (RAID levels and layouts are disjoint names):

- one list for every level and layout: ``ranks: [4]``;
- one list per multi-rank layout: ``ranks: {host_stripe: [2, 4], pool_stripe: [4]}``;
- one entry per RAID level, since a level's ranks are built from the drives the array has
  for it (the reference study: two RAID 10 ranks of 8 drives, four each of RAID 5 and 6):
  ``ranks: {raid10: [2], raid5: [4], raid6: [4]}``; a level's entry is a list for both
  layouts or, nested, one list per layout: ``raid10: {host_stripe: [2], pool_stripe: [2, 4]}``.

Each form has its own Optuna parameter names (one parameter keeps one set of choices):
``ranks``, ``ranks_<layout>``, ``ranks_<level>`` and ``ranks_<level>_<layout>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

from sweeper.vocabulary import MULTI_RANK_LAYOUTS, RAID_LEVELS

RankList = list[Annotated[int, Field(ge=2, le=64)]]
PerLayout = dict[Literal[MULTI_RANK_LAYOUTS], RankList]  # type: ignore[valid-type]

# The tags read like pydantic's own union names, which error locations leave out.
_LIST, _PER_LAYOUT, _PER_LEVEL = "list[int]", "dict[layout]", "dict[level]"


def _list_or_layouts(v: Any) -> str:
    return _PER_LAYOUT if isinstance(v, dict) else _LIST


def _form(v: Any) -> str:
    if not isinstance(v, dict):
        return _LIST
    return _PER_LEVEL if v and all(k in RAID_LEVELS for k in v) else _PER_LAYOUT


LevelRanks = Annotated[
    Annotated[RankList, Tag(_LIST)] | Annotated[PerLayout, Tag(_PER_LAYOUT)],
    Discriminator(_list_or_layouts),
]
PerLevel = dict[Literal[RAID_LEVELS], LevelRanks]  # type: ignore[valid-type]
Ranks = Annotated[
    Annotated[RankList, Tag(_LIST)]
    | Annotated[PerLayout, Tag(_PER_LAYOUT)]
    | Annotated[PerLevel, Tag(_PER_LEVEL)],
    Discriminator(_form),
]


def form_problem(v: Any) -> str | None:
    """Why a mapping of ranks is neither per layout nor per RAID level (keys of both kinds,
    or a key of neither), before its values are read; None when it is one of them."""
    if not isinstance(v, dict):
        return None
    levels = [k for k in v if k in RAID_LEVELS]
    layouts = [k for k in v if k in MULTI_RANK_LAYOUTS]
    other = [k for k in v if k not in levels and k not in layouts]
    if other:
        return (
            f"{other[0]!r} is neither a RAID level ({', '.join(RAID_LEVELS)}) nor a multi-rank "
            f"layout ({', '.join(MULTI_RANK_LAYOUTS)})"
        )
    if levels and layouts:
        return (
            f"keys mix RAID levels ({', '.join(levels)}) and layouts ({', '.join(layouts)}): "
            "give ranks per RAID level, each level a list or one list per layout "
            f"({levels[0]}: {{{layouts[0]}: [...]}})"
        )
    return None


def per_level(v: Any) -> bool:
    return isinstance(v, dict) and _form(v) == _PER_LEVEL


def lists(v: Any) -> Iterator[tuple[str, list[int]]]:
    """Every value list of ``v`` (any form, or a stripe_kib value), with its place:
    ``""``, ``"host_stripe"``, ``"raid10"`` or ``"raid10.host_stripe"``."""
    if not isinstance(v, dict):
        yield "", v
        return
    for key, inner in v.items():
        if isinstance(inner, dict):
            yield from ((f"{key}.{layout}", values) for layout, values in inner.items())
        else:
            yield str(key), inner


def missing(v: Any, levels: list[str], layouts: list[str]) -> list[str]:
    """The entries ``v`` lacks for the space's RAID ``levels`` and multi-rank ``layouts``,
    each with the list that asks for it: ``"RAID level raid6, which raid_level lists"``."""
    if not isinstance(v, dict) or not layouts:
        return []
    if not per_level(v):
        return [f"layout {lay}, which layout lists" for lay in layouts if lay not in v]
    out = []
    for level in levels:
        if level not in v:
            out.append(f"RAID level {level}, which raid_level lists")
        elif isinstance(v[level], dict):
            out += [
                f"layout {lay} of {level}, which layout lists"
                for lay in layouts
                if lay not in v[level]
            ]
    return out


def _entry(v: Any, layout: str, level: str | None) -> tuple[str, list[int]] | None:
    """The parameter name and values of ``layout`` on RAID ``level``; None: ``v`` is per
    level and no level is named (or the named one has none)."""
    if isinstance(v, list):
        return "", list(v)
    if not per_level(v):
        return f"_{layout}", list(v[layout])
    if level is None or level not in v:
        return None
    inner = v[level]
    if isinstance(inner, dict):
        return f"_{level}_{layout}", list(inner[layout])
    return f"_{level}", list(inner)


def values(v: Any, layout: str, level: str | None = None) -> list[int]:
    """The values ``layout`` sweeps on RAID ``level``; without a level, every value any
    level sweeps for it (in first-seen order)."""
    entry = _entry(v, layout, level)
    if entry is not None:
        return entry[1]
    seen: list[int] = []
    for lvl in v:
        seen += [n for n in _entry(v, layout, lvl)[1] if n not in seen]  # type: ignore[index]
    return seen


def parameter(dim: str, v: Any, layout: str, level: str) -> str:
    """The Optuna parameter that chooses ``dim`` (``v`` its value) for ``layout`` on
    ``level``: ``ranks``, ``ranks_host_stripe``, ``ranks_raid10``, ``ranks_raid10_host_stripe``."""
    entry = _entry(v, layout, level)
    if entry is None:
        raise ValueError(f"{dim} has no values for RAID level {level}")
    return dim + entry[0]


def parameter_names(dim: str, layout: str, level: str) -> tuple[str, ...]:
    """Every name the parameter of ``dim`` for ``layout`` on ``level`` can have, whatever the
    form (for reading a trial's parameters back)."""
    return (dim, f"{dim}_{layout}", f"{dim}_{level}", f"{dim}_{level}_{layout}")
