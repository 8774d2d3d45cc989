"""The ``manual`` platform: an operator in the loop, for arrays nothing can drive.

raidsweep orders the configurations by rebuild cost as for any platform and, for each, tells
the operator what to build (in the spec's words and in plain ones), then waits. The answer
names the LUN as this host sees it (a new LUN each time, if the array gives one); it comes
from the interactive prompt of ``raidsweep run``, from ``raidsweep ready`` anywhere, or from
the app. Before anything is written, the target is checked by the local platform's safety
rules: a stable id (``/dev/disk/by-id/…``) or allow-listed, not mounted, not held, no
foreign signature unless allowed, at least as large as the working set. The manual role then
records what the host sees of it (lsblk, SCSI vendor, model, serial and VPD pages where
readable, multipath, queue settings) with the operator's words, and fio measures it here.
A sweep can wait for days; a resumed sweep continues at the configuration waited for.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from sweeper import operator_room as operator
from sweeper.configuration import Configuration
from sweeper.fio.jobfile import check_filename
from sweeper.fio.runner import FioMissingError, find_fio
from sweeper.load import (
    FioDriver,
    FioLoad,
    LoadDriver,
    LocalFio,
)
from sweeper.load.purge import nvme_format_problem, purge_plan
from sweeper.load.settings import FioTargetOptions
from sweeper.locking import LockHeld, hold, lock_record, target_locks
from sweeper.platforms.base import BuildRequest, Platform
from sweeper.platforms.instructions import build_instructions
from sweeper.target import inspect_target, target_problems
from sweeper.target_identity import local_identity
from sweeper.untrusted import control_problem
from sweeper.vocabulary import CACHE_POLICIES, LAYOUTS, RAID_LEVELS, STABLE_DEVICE_RE

#: how often the waiting sweep looks for an answer
POLL_S = 0.5


#: the longest note an operator may keep with a configuration (``--note``, a spec's ``note``)
NOTE_MAX = 500


class ManualOptions(FioTargetOptions):
    """``platform_options`` of the manual platform."""

    #: a line shown with every configuration (the array's name, who to call, a runbook)
    note: str = Field(default="", max_length=NOTE_MAX)


def manual_options(options: dict[str, Any]) -> ManualOptions:
    return ManualOptions.model_validate(options)


def answer_problems(target: str, opts: ManualOptions, working_set: int | None) -> list[str]:
    """Why fio must not write to ``target`` (empty if it may): the local platform's rules,
    with a stable id counting as the operator's confirmation."""
    if not isinstance(target, str) or not target.startswith("/"):
        return [f"{target!r} is not an absolute path"]
    try:
        check_filename(target)
    except ValueError as exc:
        return [str(exc)]
    found = inspect_target(target)
    if found.kind != "block":
        kind = {
            "missing": "does not exist",
            "file": "is a file",
            "unreachable": f"cannot be looked at ({found.facts.get('reason')})",
        }.get(found.kind, "is no disk")
        return [f"{target} {kind}: the answer names the LUN as this host sees it, a block device"]
    allow = [*opts.allow, target] if STABLE_DEVICE_RE.fullmatch(target) else opts.allow
    found_problems = target_problems(
        target, allow=allow, file_size=None, overwrite_signatures=opts.overwrite_signatures
    )
    stable = "platform_options.allow (or name it by its stable id under /dev/disk/by-id/)"
    problems = [msg.replace("platform_options.allow", stable) for _, msg in found_problems]
    if opts.purge == "nvme-format" and (problem := nvme_format_problem(target)) is not None:
        problems.append(problem)
    if working_set and found.size and working_set > found.size:
        problems.append(
            f"{target} holds {found.size} bytes, less than the working set ({working_set} bytes)"
        )
    return problems


class ManualPlatform(Platform):
    name = "manual"
    options_model = ManualOptions
    supported = {"raid_level": RAID_LEVELS, "layout": LAYOUTS, "cache_policy": CACHE_POLICIES}
    checks_ignore = ("cache_policy",)
    operator_builds = True

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        super().__init__(options, state_dir, inventory)
        self.opts = manual_options(options)
        self.answer: operator.Answer | None = None
        self.working_set: int | None = None
        self._device_lock = contextlib.ExitStack()

    @classmethod
    def option_problems(cls, options: dict[str, Any]) -> list[tuple[list[str | int], str]]:
        problems = super().option_problems(options)
        if problems:
            return problems
        try:
            find_fio(manual_options(options).fio)
        except FioMissingError as exc:
            return [(["platform_options", "fio"], str(exc))]
        return []

    @property
    def room(self) -> Path:
        return operator.room(self.state_dir)

    def pending_configuration(self) -> str | None:
        waiting = operator.waiting_in(self.room)
        return waiting.config_key if waiting is not None else None

    def wait_until_built(
        self, request: BuildRequest, stop: threading.Event, prompt: operator.OperatorPrompt | None
    ) -> bool:
        """Tell the operator what to build and wait for a target that passes the safety
        rules; False when asked to stop while waiting (the sweep resumes here)."""
        self._device_lock.close()
        self.answer = None
        config = request.config
        self.working_set = getattr(request.matrix, "working_set", None)
        lines = build_instructions(config, request.previous)
        if self.opts.note:
            lines.append(self.opts.note)
        waiting = operator.Waiting(
            config.key,
            request.position,
            request.total,
            lines,
            time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        )
        operator.post(self.room, waiting)
        if prompt is not None:
            prompt.show([waiting.headline, *lines, _PROMPT_HELP.format(key=config.key)])
        while not stop.is_set():
            answer = operator.take(self.room)
            if answer is None and prompt is not None:
                typed = prompt.line(POLL_S)
                if typed and typed.strip():
                    target, _, note = typed.strip().partition(" ")
                    answer = operator.Answer(config.key, target, note.strip(), via="prompt")
            elif answer is None:
                stop.wait(POLL_S)
            if answer is None:
                continue
            refusal = self._refusal(answer, config)
            if refusal is None:
                self.answer = answer
                operator.clear(self.room)
                return True
            waiting = dataclasses.replace(waiting, refused=[*waiting.refused, refusal])
            operator.post(self.room, waiting)
            if prompt is not None:
                prompt.show([f"refused: {refusal}", "still waiting"])
        return False

    def _refusal(self, answer: operator.Answer, config: Configuration) -> str | None:
        if answer.config_key != config.key:
            return f"the answer is for {answer.config_key}, but the sweep waits for {config.key}"
        problems = answer_problems(answer.target, self.opts, self.working_set)
        if problems:
            return "; ".join(problems)
        try:
            self._device_lock.enter_context(
                hold(target_locks(local_identity(answer.target)), lock_record("manual sweep"))
            )
        except LockHeld as exc:
            return exc.render()
        return None

    def extravars(self, config: Configuration) -> dict[str, Any]:
        assert self.answer is not None, "await_configuration() takes the operator's answer"
        return {
            "raidsweep_platform": "manual",
            "manual_target": self.answer.target,
            "manual_note": self.answer.note,
            "manual_via": self.answer.via,
            "manual_configuration": config.key,
        }

    def teardown_extravars(self) -> dict[str, Any]:
        self._device_lock.close()
        return {"raidsweep_platform": "manual"}

    def fio_versions(self) -> dict[str, str]:
        try:
            return {"": find_fio(self.opts.fio).version}
        except FioMissingError:  # the spec's check names it (platform_options.fio)
            return {}

    def load_driver(self, config: Configuration, matrix: Any, seed: int) -> LoadDriver:
        assert self.answer is not None, "await_configuration() takes the operator's answer"
        o = self.opts
        load = FioLoad(self.answer.target, o.fio, o.fill, o.precondition, o.hang_grace_s, o.purge)
        return FioDriver(load, self.state_dir, matrix, LocalFio())

    def plan_lines(self, matrix: Any) -> list[str]:
        return [
            "asks the operator to build each configuration on the array and waits (at the "
            "prompt, or for `raidsweep ready SWEEP CONFIGURATION --target /dev/disk/by-id/…`)",
            "fio then writes to the LUN the operator names; its contents are destroyed",
            *([purge_plan(self.opts.purge, "each LUN", None)] if self.opts.purge else []),
        ]


_PROMPT_HELP = (
    "type the LUN as this host sees it (e.g. /dev/disk/by-id/wwn-0x…), optionally followed "
    "by a note, or run: raidsweep ready SWEEP {key} --target DEVICE"
)


def answer_waiting_sweep(
    sweep_dir: Path,
    spec: dict[str, Any],
    config_key: str,
    target: str,
    note: str = "",
    via: str = "ready",
    working_set: int | None = None,
) -> tuple[operator.Waiting | None, list[tuple[str, str]]]:
    """The operator's answer to the manual sweep in ``sweep_dir`` (its stored ``spec``, its
    matrix's ``working_set``), from ``raidsweep ready`` or the app: checked now by the
    sweep's own rules and left for it; else (place, problem) pairs and nothing left. Returns
    what the sweep waited for."""
    if len(note) > NOTE_MAX:
        said = f"is {len(note):,} characters: at most {NOTE_MAX}, as a spec's note"
        return None, [("note", said)]
    for place, text in (("note", note), ("target", target)):
        problem = control_problem(text)
        if problem:
            return None, [(place, f"{text!r} {problem}")]
    if spec.get("platform") != "manual":
        why = f"runs on platform {spec.get('platform')!r}: only manual sweeps wait for an operator"
        return None, [("sweep", why)]
    rooms = operator.waiting_rooms(sweep_dir)
    if not rooms:
        return None, [("sweep", "is not waiting for the operator")]
    asked = [(room, waiting) for room, waiting in rooms if waiting.config_key == config_key]
    if not asked:
        waited = " and ".join(waiting.config_key for _, waiting in rooms)
        return rooms[0][1], [("configuration", f"the sweep waits for {waited}, not {config_key!r}")]
    room, waiting = asked[0]
    opts = manual_options(spec.get("platform_options") or {})
    problems = answer_problems(target, opts, working_set)
    if problems:
        return waiting, [("target", p) for p in problems]
    operator.give(room, operator.Answer(config_key, target, note, via=via))
    return waiting, []
