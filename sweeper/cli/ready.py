"""``raidsweep ready``: the operator's answer to a manual sweep, from any terminal."""

from __future__ import annotations

from typing import Annotated

import typer

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, console, fail


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
    from sweeper.platforms import operator
    from sweeper.platforms.manual import answer_problems, manual_options
    from sweeper.spec import Matrix
    from sweeper.store import open_store
    from sweeper.untrusted import control_problem

    for place, text in (("--note", note), ("--target", target)):
        problem = control_problem(text)
        if problem:
            fail(InputError(place, [f"{text!r} {problem}"]))
    results = open_store(store)
    record = latest_sweep(results, sweep)
    spec = record.get("spec") or {}
    if spec.get("platform") != "manual":
        why = f"runs on platform {spec.get('platform')!r}: only manual sweeps wait for an operator"
        fail(InputError(f"sweep {sweep!r}", [why]))
    room = operator.room(results.sweep_dir(record["sweep_id"]) / "array")
    waiting = operator.waiting_in(room)
    if waiting is None:
        fail(InputError(f"sweep {sweep!r}", ["is not waiting for the operator"]))
    if waiting.config_key != configuration:
        fail(
            InputError(
                "CONFIGURATION",
                [f"sweep {sweep!r} waits for {waiting.config_key}, not {configuration}"],
            )
        )
    opts = manual_options(spec.get("platform_options") or {})
    working_set = Matrix.model_validate(spec.get("matrix") or {}).working_set
    problems = answer_problems(target, opts, working_set)
    if problems:
        fail(InputError("--target", problems))
    operator.give(room, operator.Answer(configuration, target, note, via="ready"))
    console.print(
        f"answered: sweep {sweep} measures {configuration} on {target} as soon as it sees this "
        f"({waiting.position} of {waiting.total})",
        highlight=False,
    )
