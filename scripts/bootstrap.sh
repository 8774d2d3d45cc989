#!/usr/bin/env bash
# Builds .venv from pyproject.toml (and the system packages it needs) when it is missing or stale.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
EXTRAS="${1:-}"
STAMP="$VENV/.raidsweep-installed${EXTRAS:+-$EXTRAS}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing system packages: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
}

PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "raidsweep needs Python 3.11 or newer; $PY is $("$PY" --version 2>&1)" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PY" -m venv "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"
    apt_install python3-venv
    "$PY" -m venv "$VENV"
  fi
fi
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
  echo "installing raidsweep and its dependencies into .venv ..."
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e "$ROOT${EXTRAS:+[$EXTRAS]}"
  touch "$STAMP"
fi
