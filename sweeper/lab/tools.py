"""The host's programs the lab runs: refused by name and Debian package when missing, and a
failure reported with the last lines of what the program said."""

from __future__ import annotations

import shutil
import subprocess

from sweeper.lab.errors import LabError


def require_tools(tools: dict[str, str]) -> None:
    missing = {tool: pkg for tool, pkg in tools.items() if not shutil.which(tool)}
    if missing:
        names = ", ".join(missing)
        packages = " ".join(sorted(set(missing.values())))
        raise LabError(
            f"{names} not found: install the Debian package(s) {packages} "
            f"(apt-get install {packages}; scripts/bootstrap-system.sh does)"
        )


def run_tool(args: list[str], what: str, timeout: float | None = None, **kw) -> str:
    try:
        proc = subprocess.run(
            args, capture_output=True, text=True, timeout=timeout, check=False, **kw
        )
    except subprocess.TimeoutExpired as exc:
        raise LabError(f"{what}: no answer within {timeout:.0f}s") from exc
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise LabError(f"{what} failed (exit {proc.returncode}):\n{tail}")
    return proc.stdout
