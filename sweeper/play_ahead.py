"""Reconfiguration plays started one configuration ahead.

Starting ``ansible-playbook`` (its imports, the inventory, the playbooks) costs most of what a
reconfiguration play takes on an array that answers at once. When a configuration is built,
the next configuration's play is started first with ``handover.yml``: it waits in the
controller, touching no host, while this configuration is built and measured, until the
sweeper hands it the configuration it chose; then it runs ``reconfigure.yml`` exactly as a
play started then would. Only one play drives the storage at a time: the waiting one starts
to after the previous one ended.

A play that ended before it was needed (it could not start, or its inventory was refused) is
not this configuration's failure: the configuration gets a play of its own, started then.

A configuration's play counts as done at its recap: ``ansible-playbook`` then touches no host
and only exits, which takes about 0.2 s that measuring need not wait for. It is waited for
before the next configuration is handed over, and when the sweep ends.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sweeper.ansible import (
    HANDOVER_PLAYBOOK,
    PlayResult,
    StartedPlay,
    finish_exiting_plays,
    start_playbook,
)


class PlaysAhead:
    """The reconfiguration plays of one sweep: ``reconfigure`` a configuration, ``start`` the
    next one's play while measuring, ``close`` when the sweep ends."""

    def __init__(self, inventory: Path, cancel: Callable[[], bool]) -> None:
        self._inventory = inventory
        self._cancel = cancel
        self._waiting: StartedPlay | None = None
        self._closing = False

    def start(self) -> None:
        """Start the next configuration's play now, unless one waits or the sweep stops; return
        once its process runs (``StartedPlay.wait_spawned``)."""
        if self._waiting is None and not self._closing and not self._cancel():
            self._waiting = start_playbook(
                HANDOVER_PLAYBOOK, self._inventory, {}, cancel=self._stopping
            )
            self._waiting.wait_spawned()

    def reconfigure(self, extravars: dict[str, Any], *, ahead: bool = False) -> PlayResult:
        """Build a configuration: through the waiting play if one waits, else a new play.
        ``ahead``: first start the next configuration's play, which waits while this one is
        built and measured (started here, no play starts while the configuration is measured)."""
        finish_exiting_plays()  # the last configuration's play has exited before this one
        play, self._waiting = self._waiting, None
        if play is not None and play.done():
            play.result()  # ended unused: its folder goes, its outcome is not this one's
            play = None
        if ahead:
            self.start()
        if play is not None:
            play.hand_over(extravars)
        else:
            play = start_playbook(
                "reconfigure.yml", self._inventory, extravars, cancel=self._cancel
            )
        return play.result(at_recap=True)

    def close(self) -> None:
        """End the waiting play, if any, and wait for it and for the last one to exit."""
        self._closing = True
        finish_exiting_plays()
        play, self._waiting = self._waiting, None
        if play is not None:
            play.abandon()
            play.result()

    def _stopping(self) -> bool:
        return self._closing or self._cancel()
