"""fio job files and fio JSON output."""

from sweeper.fio.jobfile import render_job
from sweeper.fio.parse import parse_fio_output
from sweeper.fio.results import (
    DirectionStats,
    FioParseError,
    FioResult,
    FioRunError,
    StreamResult,
    SyncStats,
)

__all__ = [
    "DirectionStats",
    "FioParseError",
    "FioResult",
    "FioRunError",
    "StreamResult",
    "SyncStats",
    "parse_fio_output",
    "render_job",
]
