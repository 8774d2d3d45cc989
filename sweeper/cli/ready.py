"""``raidsweep ready``: the operator's answer to a manual sweep, from any terminal."""

from __future__ import annotations

from typing import Annotated

import typer

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, console, fail

#: where each problem the answer has is named, as the command's arguments name it
PLACES = {"target": "--target", "note": "--note", "configuration": "CONFIGURATION"}


def ready(
    sweep: Annotated[str, typer.Argument(help="The manual sweep's name.")],
    configuration: Annotated[
        str, typer.Argument(help="The configuration built (the key the sweep asked for).")
    ],
    target: Annotated[
        str,
        typer.Option(
            "--target", help="The LUN as this host sees it, e.g. /dev/disk/by-id/wwn-0x…."
        ),
    ],
    note: Annotated[
        str, typer.Option("--note", help="What was built, in your words (kept with the runs).")
    ] = "",
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Tell a waiting manual sweep that CONFIGURATION is built and fio may write to --target.

    The target is checked now by the same rules the sweep applies (a stable id or
    allow-listed, not mounted or held, no foreign signature, large enough); a refused answer
    exits with status 2 and leaves nothing for the sweep."""
    from sweeper.cli.opening import latest_sweep
    from sweeper.errors import InputError
    from sweeper.platforms.manual import answer_waiting_sweep
    from sweeper.spec import Matrix
    from sweeper.store import open_store

    results = open_store(store)
    record = latest_sweep(results, sweep)
    spec = record.get("spec") or {}
    try:
        working_set = Matrix.model_validate(spec.get("matrix") or {}).working_set
    except ValueError:
        working_set = None  # a record of an older raidsweep: the sweep checks the size itself
    waiting, problems = answer_waiting_sweep(
        results.sweep_dir(record["sweep_id"]),
        spec,
        configuration,
        target,
        note,
        "ready",
        working_set,
    )
    if problems:
        place = PLACES.get(problems[0][0], f"sweep {sweep!r}")
        fail(InputError(place, [msg for _, msg in problems]))
    assert waiting is not None
    console.print(
        f"answered: sweep {sweep} measures {configuration} on {target} as soon as it sees this "
        f"({waiting.position} of {waiting.total})",
        highlight=False,
    )
