"""The study's objectives carry the classes' names and units, as optuna-dashboard shows them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from optuna_dashboard import wsgi

from sweeper.spec import load_spec
from sweeper.study import open_sweep_study
from tests.support.paths import QUICK


def _get(app: Any, path: str) -> Any:
    """One GET through the dashboard's own WSGI application (no server, no mock)."""
    status: list[str] = []
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": io.StringIO(),
    }
    body = b"".join(app(environ, lambda s, h, *a: status.append(s)))
    assert status and status[0].startswith("200"), (path, status, body[:300])
    return json.loads(body)


def test_optuna_dashboard_names_each_objective_by_class_and_unit(tmp_path: Path) -> None:
    spec, _ = load_spec(QUICK)
    spec = spec.model_copy(update={"classes": ["redo_log", "dss_scan"]})
    sweep = open_sweep_study(spec, tmp_path)
    app = wsgi(sweep.storage)
    (study,) = _get(app, "/api/studies")["study_summaries"]
    assert study["study_name"] == spec.name
    detail = _get(app, f"/api/studies/{study['study_id']}")
    assert detail["objective_names"] == ["redo_log (IOPS)", "dss_scan (MB/s)"]
    # Opened again (a resumed sweep, a second worker): the names stay, written once.
    again = open_sweep_study(spec, tmp_path)
    assert again.study.metric_names == ["redo_log (IOPS)", "dss_scan (MB/s)"]
