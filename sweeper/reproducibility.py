"""Can a reader repeat the sweep? The seven things a vendor's rebuttal of a published benchmark
found missing (``STUDIES.md`` §5): how many load hosts, which tool, which OS, which switches,
which multipath software, whether there was a ramp-up, and how long the measurement interval
was — each answered from the sweep's disclosure record, with where the answer comes from, or
said to be missing with where to state it.

Pure functions of the record ``sweeper.disclosure.sweep_disclosure`` builds.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sweeper.spec.environment import FABRIC_KEYS, MULTIPATH_KEYS

#: the questions, in the rebuttal's order
QUESTIONS = (
    "how many load hosts",
    "which tool",
    "which OS",
    "which switches",
    "which multipath software",
    "was there a ramp-up",
    "how long was the measurement interval",
)
RECORDED, STATED, MISSING, NOT_APPLICABLE = "recorded", "stated in the spec", "missing", "n/a"


def _row(question: str, answer: str, source: str) -> dict[str, str]:
    return {"question": question, "answer": answer, "source": source}


def _stated(environment: Mapping[str, str], keys: tuple[str, ...]) -> str:
    return "; ".join(f"{environment[k]}" for k in keys if environment.get(k))


def _found(facts: Any, key: str) -> Iterator[Any]:
    """Every non-empty value under ``key`` in nested facts."""
    if isinstance(facts, Mapping):
        for k, v in facts.items():
            if k == key and v:
                yield v
            else:
                yield from _found(v, key)
    elif isinstance(facts, list):
        for v in facts:
            yield from _found(v, key)


def checklist(disclosure: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row per question: the answer and its source (``recorded`` by raidsweep, ``stated in
    the spec``, ``missing`` with where to state it, or ``n/a`` for the simulated array)."""
    spec = disclosure.get("spec") or {}
    environment = spec.get("environment") or {}
    simulated = disclosure.get("platform") == "sim"
    hosts = [h for h in disclosure.get("load_hosts") or [] if isinstance(h, Mapping)]
    measurement = disclosure.get("measurement") or {}
    tool = disclosure.get("tool") or {}
    rows = []

    def recorded(question: str, answer: str, missing: str = "no run stored yet") -> None:
        rows.append(
            _row(question, answer, RECORDED) if answer else _row(question, missing, MISSING)
        )

    names = ", ".join(str(h.get("hostname", "?")) for h in hosts)
    recorded(QUESTIONS[0], f"{len(hosts)} ({names})" if hosts else "")
    tool_name = f"{tool['name']} {tool.get('version') or ''}".strip() if tool.get("name") else ""
    recorded(QUESTIONS[1], tool_name)
    recorded(
        QUESTIONS[2],
        "; ".join(sorted({f"{h.get('os', '?')} ({h.get('kernel', '?')})" for h in hosts})),
    )

    def stated_or(question: str, keys: tuple[str, ...], found: str = "") -> dict[str, str]:
        if text := _stated(environment, keys):
            return _row(question, text, STATED)
        if found:
            return _row(question, found, RECORDED)
        if simulated:
            return _row(question, "none: the array is simulated", NOT_APPLICABLE)
        return _row(question, f"state it as environment.{keys[0]} in the spec", MISSING)

    rows.append(stated_or(QUESTIONS[3], FABRIC_KEYS))
    maps = [
        f
        for c in disclosure.get("configurations") or []
        for f in _found(c.get("facts"), "multipath")
    ]
    rows.append(
        stated_or(
            QUESTIONS[4],
            MULTIPATH_KEYS,
            f"multipath map in {len(maps)} configuration(s)' facts" if maps else "",
        )
    )
    ramp, interval = measurement.get("ramp"), measurement.get("measurement_interval")
    recorded(
        QUESTIONS[5],
        f"{ramp} before each run's measurement" if ramp is not None else "",
        "not in the spec",
    )
    recorded(QUESTIONS[6], f"{interval} per run" if interval is not None else "", "not in the spec")
    return rows
