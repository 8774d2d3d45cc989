#!/usr/bin/env bash
# The whole test suite on a fresh machine: system packages, .venv, linters, pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/bootstrap-system.sh
scripts/bootstrap.sh test
export PATH="$ROOT/.venv/bin:$PATH"
ruff check sweeper recommender tests app.py app_pages benchmarks playbooks
ruff format --check sweeper recommender tests app.py app_pages benchmarks playbooks
ansible-lint -q playbooks/
ansible-lint -q -c examples/roles/.ansible-lint examples/roles/
pytest -q --durations=40 "$@"
