"""Where the study lives: a journal file beside the results or the spec's PostgreSQL
database, and why that database cannot be used."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.storages.journal._file import BaseJournalFileLock

from sweeper.errors import SpecError
from sweeper.spec import SweepSpec
from sweeper.study.locks import JournalFlock, _pg_lock

STUDY_FILE = "study.journal"
#: the flock(2) file of the journal's appends (JournalFlock)
JOURNAL_LOCK_FILE = "study.journal.flock"


def _rdb_url(spec: SweepSpec) -> str:
    # SQLAlchemy reads postgresql:// with psycopg (3), the driver raidsweep installs.
    return spec.study.storage or ""


def study_storage(spec: SweepSpec, sweep_dir: Path) -> optuna.storages.BaseStorage:
    """A journal file beside the results, or the spec's PostgreSQL database."""
    if spec.study.storage:
        from sqlalchemy import create_engine

        url = _rdb_url(spec)
        # Two sweepers starting together would both create Optuna's tables: one at a time.
        engine = create_engine(url, poolclass=None)
        try:
            with _pg_lock(engine, "raidsweep-schema"):
                return optuna.storages.RDBStorage(url, engine_kwargs={"pool_pre_ping": True})
        finally:
            engine.dispose()
    sweep_dir.mkdir(parents=True, exist_ok=True)
    lock = cast(BaseJournalFileLock, JournalFlock(sweep_dir / JOURNAL_LOCK_FILE))
    return JournalStorage(JournalFileBackend(str(sweep_dir / STUDY_FILE), lock_obj=lock))


def storage_problem(spec: SweepSpec) -> str | None:
    """Why the spec's PostgreSQL study storage cannot be used (unreachable, login refused,
    no such database), or None; asked before anything is written. For a spec read from its
    file (``load_spec``) the problem is raised as that file's SpecError naming the line of
    ``study.storage``, as every other problem of the spec is named."""
    if not spec.study.storage:
        return None
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    engine = create_engine(_rdb_url(spec), poolclass=None, connect_args={"connect_timeout": 10})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        # where, without the query (nothing secret is let into the spec, but say no more)
        url = make_url(spec.study.storage).set(query={})
        problem = f"cannot use the study database {url.render_as_string()!r}: {reason}"
        source = spec.source
        if source is None:
            return problem
        line = source.line_of(["study", "storage"])
        raise SpecError(source.name, [f"line {line}: study.storage: {problem}"]) from None
    finally:
        engine.dispose()
    return None
