"""fio's JSON document: finding it among the lines fio prints around it, and a job's options
as the document records them.

fio prints notes and error lines on stdout around the JSON document (e.g. ``note: both
iodepth >= 1 and synchronous I/O engine are selected...``); they are skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from sweeper.fio.results import FioParseError

#: a document starts a line, or follows the carriage return of fio's ETA line (``--eta=always``
#: writes ``Jobs: 1 (f=1)\r{``)
_JSON_START = re.compile(r"^\{|(?<=\r)\{", re.MULTILINE)


def find_document(text: str) -> dict[str, Any]:
    """The JSON document in fio's output (which may have lines of its own around it).

    With ``--status-interval`` fio prints a whole report at every interval, each cumulative,
    and the last is the run's result: the last document is returned, and one cut short after
    the earlier ones is an error, never a silent fall back to an interim report."""
    if not isinstance(text, str):
        raise FioParseError(f"fio output must be text, not {type(text).__name__}")
    if not text.strip():
        raise FioParseError("fio output is empty")
    start = _JSON_START.search(text)
    if start is None:
        first = text.strip().splitlines()[0][:200]
        raise FioParseError(f"fio output contains no JSON object (it begins {first!r})")
    decoder = json.JSONDecoder()
    documents: list[Any] = []
    while start is not None:
        try:
            document, end = decoder.raw_decode(text, start.start())
        except json.JSONDecodeError as exc:
            where = f" (its report {len(documents) + 1})" if documents else ""
            raise FioParseError(f"fio JSON output is truncated or invalid{where}: {exc}") from exc
        documents.append(document)
        start = _JSON_START.search(text, end)
    document = documents[-1]
    if not isinstance(document, dict):
        raise FioParseError("fio JSON output is not an object")
    return document


def job_options(document: Mapping[str, Any], job: Mapping[str, Any]) -> dict[str, str]:
    """A job's options as fio ran it: the document's global options, then the job's own."""
    options = {str(k): str(v) for k, v in (document.get("global options") or {}).items()}
    options.update({str(k): str(v) for k, v in (job.get("job options") or {}).items()})
    return options
