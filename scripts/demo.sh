#!/usr/bin/env bash
# The main job: a sweep of examples/quick.yaml on the simulated array, the ranking, the
# HTML report, then the browser app on localhost (Ctrl-C stops it; RAIDSWEEP_NO_APP=1 skips it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/bootstrap.sh
RS=".venv/bin/raidsweep"
STORE="${RAIDSWEEP_STORE:-raidsweep-data}"
export RAIDSWEEP_STORE="$STORE"
"$RS" run examples/quick.yaml
"$RS" recommend quick
"$RS" report quick --output "$STORE/quick/report.html"
if [ "${RAIDSWEEP_NO_APP:-0}" = 1 ]; then
  echo "start the app with: $RS app"
else
  exec "$RS" app
fi
