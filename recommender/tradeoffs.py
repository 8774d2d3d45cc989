"""Trade-offs beside performance: usable capacity, rebuild exposure and cost per configuration.

For a configuration of ``n`` ranks of a RAID level whose group has ``d`` data and ``r``
redundancy drives (RAID 10: d mirrored pairs, r = d), on drives of ``G`` GB:

    drives        = n · (d + r)
    usable GB     = n · d · G;   usable share = d / (d + r)
    rebuild hours = T = G·10⁹ / (rebuild rate · 2²⁰) / 3600   (one drive onto a spare)
    p             = AFR · T / 8760, the chance that one given drive fails during a rebuild
    P(loss | one failure) = P(at least r more of the d + r − 1 others fail during T)
                            (binomial); RAID 10: the one mirror partner fails, p; RAID 0: 1
    data-loss risk per year = drives · AFR · P(loss | one failure)

The last is the rebuild exposure: how often, on average, a rebuild would end in lost data —
the figure behind "RAID 5 on large drives is a risk". It ignores unrecoverable read errors
and correlated failures, which only make every level worse, not reorder them. With prices:
cost = fixed + drives · per-drive price; cost per usable GB; per class, cost per unit of the
class metric (IOPS or MB/s of the score). Pure functions over tables. Where the sweep
varies the drives of a RAID group (a declared ``drives_per_rank``), each configuration's
group follows its own width, not the platform's one figure.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from pydantic import Field, model_validator
from scipy import stats

from sweeper.configuration import Configuration
from sweeper.dimensions import WIDTH, raid_group
from sweeper.models import StrictModel
from sweeper.platforms import get_platform
from sweeper.spec import Hardware
from sweeper.vocabulary import RAID_LEVELS

HOURS_PER_YEAR = 8760.0
TRADEOFF_COLUMNS = [
    "config_key",
    "raid_level",
    "drives",
    "usable_gb",
    "usable_share",
    "rebuild_h",
    "survives_during_rebuild",
    "loss_risk_per_year",
    "cost",
    "cost_per_usable_gb",
]
TRADEOFF_FORMULA = (
    "usable share = data drives / drives of a RAID group; rebuild = drive size / rebuild rate; "
    "loss risk per year = drives × AFR × P(a rebuild ends in data loss), where P is the chance "
    "that more drives than the group still tolerates fail during the rebuild (RAID 10: the "
    "mirror partner); cost = fixed + drives × price per drive"
)


class RecordedGroup(StrictModel):
    """A RAID group as a platform states it: a platform's own may hold no data drive (RAID 6
    over linux_md's two ``rank_devices``), never no drive at all."""

    data: int = Field(ge=0)
    redundancy: int = Field(ge=0)

    @model_validator(mode="after")
    def _drives(self) -> RecordedGroup:
        if self.data + self.redundancy == 0:
            raise ValueError("a RAID group of no drives")
        return self


class HardwareFacts(Hardware):
    """The hardware facts a sweep's record holds (its ``hardware``, recorded at registration):
    the platform's, with the spec's (``Hardware``) over them (``merge_hardware``)."""

    raid_groups: dict[Literal[RAID_LEVELS], RecordedGroup] = Field(default_factory=dict)  # type: ignore[valid-type]


def hardware_facts(record: dict[str, Any]) -> dict[str, Any]:
    """The sweep's hardware facts: recorded at registration, else from its platform and spec."""
    if record.get("hardware"):
        return dict(record["hardware"])
    spec = record.get("spec") or {}
    try:
        platform = get_platform(
            spec.get("platform", "sim"), spec.get("platform_options") or {}, Path(".")
        )
        facts = platform.hardware()
    except Exception:  # noqa: BLE001 - an old or foreign record: no facts rather than no page
        facts = {}
    return merge_hardware(facts, spec.get("hardware") or {})


def hardware_text(facts: dict[str, Any]) -> list[str]:
    """The hardware facts in words, one ``name value`` per fact: RAID groups as data+redundancy
    drives (``raid5 7+1``), any other mapping as its pairs, numbers without trailing zeros."""

    def value(key: str, v: Any) -> str:
        if key == "raid_groups" and isinstance(v, dict):
            return ", ".join(
                f"{level} {g.get('data', '?')}+{g.get('redundancy', '?')}"
                if isinstance(g, dict)
                else f"{level} {g}"
                for level, g in v.items()
            )
        if isinstance(v, dict):
            return ", ".join(f"{k} {value(str(k), x)}" for k, x in v.items())
        if isinstance(v, list | tuple):
            return ", ".join(value(key, x) for x in v)
        if isinstance(v, float):
            return f"{v:g}"
        return str(v)

    return [f"{k} {value(str(k), v)}" for k, v in facts.items()]


def merge_hardware(platform_facts: dict[str, Any], spec_facts: dict[str, Any]) -> dict[str, Any]:
    """Platform facts, overridden by every fact the spec gives."""
    out = dict(platform_facts)
    for key, value in spec_facts.items():
        if value is None or value == {}:
            continue
        if key == "raid_groups":
            out["raid_groups"] = {**out.get("raid_groups", {}), **value}
        else:
            out[key] = value
    out.setdefault("afr_pct", 1.0)
    return out


def loss_given_failure(level: str, data: int, redundancy: int, p: float) -> float:
    """Chance that a rebuild after one drive failure ends in data loss (see module doc)."""
    if redundancy == 0:
        return 1.0
    if level in ("raid1", "raid10"):
        return p  # only the failed drive's mirror partner matters
    others = data + redundancy - 1
    return float(stats.binom.sf(redundancy - 1, others, p))


def tradeoffs(
    config_keys: list[str], hardware: dict[str, Any], prices: dict[str, Any] | None = None
) -> pd.DataFrame:
    """One row per configuration; figures are NaN where the hardware facts lack what they need."""
    groups = hardware.get("raid_groups") or {}
    drive_gb = hardware.get("drive_gb")
    rate = hardware.get("rebuild_mib_s")
    afr = float(hardware.get("afr_pct", 1.0)) / 100
    rows = []
    for key in config_keys:
        config = Configuration.from_key(key)
        row: dict[str, Any] = {"config_key": key, "raid_level": config.raid_level}
        width = config.dimension(WIDTH)
        group = (
            raid_group(config.raid_level, int(width))
            if width is not None
            else groups.get(config.raid_level)
        )
        if group is None:
            rows.append(row)
            continue
        d, r = int(group["data"]), int(group["redundancy"])
        drives = config.rank_count * (d + r)
        row |= {
            "drives": drives,
            "usable_share": d / (d + r),
            "survives_during_rebuild": max(r - 1, 0)
            if config.raid_level not in ("raid1", "raid10")
            else 0,
        }
        if drive_gb:
            row["usable_gb"] = config.rank_count * d * float(drive_gb)
        if drive_gb and rate and r > 0:
            hours = float(drive_gb) * 1e9 / (float(rate) * 2**20) / 3600
            p = -math.expm1(-afr * hours / HOURS_PER_YEAR)
            row["rebuild_h"] = hours
            row["loss_risk_per_year"] = (
                drives * afr * loss_given_failure(config.raid_level, d, r, p)
            )
        elif r == 0:
            row["loss_risk_per_year"] = drives * afr  # any failure loses data
        if prices:
            cost = float(prices.get("fixed", 0.0)) + drives * float(prices["per_drive"])
            row["cost"] = cost
            if row.get("usable_gb"):
                row["cost_per_usable_gb"] = cost / row["usable_gb"]
        rows.append(row)
    return pd.DataFrame(rows, columns=TRADEOFF_COLUMNS)


def with_tradeoffs(
    ranked: pd.DataFrame, hardware: dict[str, Any], prices: dict[str, Any] | None = None
) -> pd.DataFrame:
    """The ranked table with each configuration's trade-offs, and cost per unit of score."""
    if ranked.empty:
        return ranked.assign(**{c: pd.Series(dtype=float) for c in TRADEOFF_COLUMNS[1:]})
    table = tradeoffs(sorted(set(ranked["config_key"])), hardware, prices)
    out = ranked.merge(table, on="config_key", how="left")
    out["cost_per_unit"] = out["cost"] / out["score"].where(out["score"] > 0)
    return out


def pareto_tradeoffs(part: pd.DataFrame) -> pd.Series:
    """For one class's rows (with trade-offs): True where no other configuration is at least as
    good in score, usable share and data-loss risk, and better in one. Limit breakers never
    enter the set while any configuration keeps the limits."""
    rows = part
    if part["meets_limits"].any():
        rows = part[part["meets_limits"]]
    cols = ["score", "usable_share", "loss_risk_per_year"]
    known = rows.dropna(subset=cols)
    keep = pd.Series(False, index=part.index)
    if known.empty:
        return keep
    # Maximise score and usable share; minimise risk (negated so all are "higher is better").
    values = known[cols].to_numpy(dtype=float) * [1.0, 1.0, -1.0]
    for i, idx in enumerate(known.index):
        row = values[i]
        dominated = ((values >= row).all(axis=1) & (values > row).any(axis=1)).any()
        keep[idx] = not dominated
    return keep
