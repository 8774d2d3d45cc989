"""Loading a spec file: the models' validation, then the checks across the spec, its
inventory, its platform and its classes, every problem named by its line."""

from __future__ import annotations

import os
from pathlib import Path

from recommender.classes import class_problems, resolve_class
from sweeper.configuration import Configuration, in_space
from sweeper.errors import InputError, SpecError
from sweeper.inventory import inventory_problems, platform_inventory_problems
from sweeper.lab import Lab
from sweeper.platforms import PLATFORMS, platform_problems
from sweeper.spec.matrix import SPEC_FILE
from sweeper.spec.models import SweepSpec
from sweeper.untrusted import control_problem, strings, text_control_problem
from sweeper.yamlsource import YamlSource, format_loc, validated

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent

#: the one field whose text may span lines (a newline or tab anywhere else is refused)
_FREE_TEXT = (["description"],)


def seed_problems(spec: SweepSpec) -> list[tuple[list[str | int], str]]:
    """Each of ``study.seed_configurations`` must be a configuration key of the config space
    (a bad one once left the study broken until its folder was deleted)."""
    problems: list[tuple[list[str | int], str]] = []
    seen: dict[str, int] = {}
    for i, key in enumerate(spec.study.seed_configurations):
        loc: list[str | int] = ["study", "seed_configurations", i]
        try:
            config = Configuration.from_key(key)
        except ValueError as exc:
            message = str(exc) if repr(key) in str(exc) else f"{key!r}: {exc}"
            problems.append((loc, message))
            continue
        if not in_space(config, spec.config_space):
            problems.append((loc, f"{key!r} is not a configuration of config_space"))
        elif config.key in seen:
            problems.append((loc, f"{key!r} repeats seed_configurations[{seen[config.key]}]"))
        seen.setdefault(config.key, i)
    return problems


def _control_problems(source: YamlSource) -> list[tuple[list[str | int], str]]:
    """A control character in a name, path, device, host or option value could start a new
    line of a job file or a command: refused everywhere. The description may have line
    breaks and tabs, nothing else (it is printed and written into reports)."""
    return [
        (loc, problem)
        for loc, text in strings(source.data)
        if (problem := (text_control_problem if loc in _FREE_TEXT else control_problem)(text))
    ]


def load_spec(path: Path | str) -> tuple[SweepSpec, Path]:
    """Validate a spec file; returns the spec and the resolved inventory path.

    Every problem is collected and raised together as a SpecError naming its place.
    """
    try:
        source = YamlSource.from_path(path)
    except InputError as exc:
        raise SpecError(exc.source, exc.problems) from None
    if not isinstance(source.data, dict):
        kind = type(source.data).__name__ if source.data is not None else "empty"
        raise SpecError(source.name, [f"line 1: the spec must be a mapping, not {kind}"])
    # Every user string is data: template syntax anywhere (keys too, every section) and
    # control characters outside the description are refused before the models see them.
    control = _control_problems(source)
    # A NUL no path can hold (the platform's checks look paths up): refused now, wherever
    nul = {tuple(loc) for loc, text in strings(source.data) if "\x00" in text}
    problems = source.template_problems() + [
        f"line {source.line_of(loc)}: {format_loc(loc)}: {msg}"
        for loc, msg in control
        # platform options: after the platform's own, more precise checks
        if loc[0] != "platform_options" or tuple(loc) in nul
    ]
    spec = validated(SweepSpec, source, problems, {SPEC_FILE: True})
    if spec is None or problems:
        raise SpecError(source.name, problems)

    inventory = resolve_inventory(spec.inventory, Path(path).parent)
    if inventory is None:
        line = source.line_of(["inventory"])
        missing = (
            "is the lab VM's, and the lab is not running (start it: raidsweep lab up)"
            if spec.inventory == LAB_INVENTORY
            else "does not exist"
        )
        problems.append(f"line {line}: inventory: {spec.inventory!r} {missing}")
    else:
        line = source.line_of(["inventory"])
        found = inventory_problems(inventory) or platform_inventory_problems(
            inventory, spec.platform
        )
        problems += [f"line {line}: inventory: {p}" for p in found]

    # Class files are named relative to the spec, like its inventory.
    spec_dir = Path(path).resolve().parent
    spec = spec.model_copy(update={"classes": [resolve_class(c, spec_dir) for c in spec.classes]})
    platform = PLATFORMS.get(spec.platform)
    if platform is not None and isinstance(spec.platform_options, dict):
        options = platform.resolved_options(spec.platform_options, spec_dir)
        spec = spec.model_copy(update={"platform_options": options})

    found = (
        platform_problems(spec)
        + class_problems(spec)
        + seed_problems(spec)
        + data_profile_problems(spec)
    )
    named = {tuple(loc) for loc, _ in found}
    found += [(loc, msg) for loc, msg in control if tuple(loc) not in named]
    for loc, msg in found:
        line = source.line_of(loc)
        problems.append(f"line {line}: {format_loc(loc)}: {msg}")
    if problems:
        raise SpecError(source.name, problems)
    assert inventory is not None
    return spec.read_from(source), inventory


def data_profile_problems(spec: SweepSpec) -> list[tuple[list[str | int], str]]:
    """A sweep that compares data reduction on and off must say what data it writes: fio's
    default (random, incompressible, never repeated) is the worst case for data reduction,
    so the feature's cost would be measured on data no customer has."""
    if len(set(spec.config_space.data_reduction)) > 1 and spec.matrix.data_profile is None:
        return [
            (
                ["config_space", "data_reduction"],
                "compares data reduction on and off, but the matrix has no data_profile: fio "
                "would write random, incompressible, never repeated data, the worst case for "
                "data reduction; add matrix.data_profile, e.g. "
                "[{compress_pct: 50, dedupe_pct: 20}] (your data's ratios)",
            )
        ]
    return []


#: ``inventory: lab`` names the inventory ``raidsweep lab up`` wrote for the lab VM
LAB_INVENTORY = "lab"


def resolve_inventory(text: str, spec_dir: Path) -> Path | None:
    """An inventory path is taken relative to the spec's folder, then to the project."""
    candidate = Path(text)
    if text == LAB_INVENTORY and not (spec_dir / candidate).exists():
        lab = Lab().inventory_path
        return lab if lab.exists() else None
    # lexists: a link that loops or leads to a FIFO is taken, and refused by name when read
    if candidate.is_absolute():
        return candidate if os.path.lexists(candidate) else None
    for base in (spec_dir, PROJECT_ROOT):
        p = Path(os.path.abspath(base / candidate))
        if os.path.lexists(p):
            return p
    return None
