"""``raidsweep``: run a sweep, watch it, rank its configurations, write the report, open the app."""

from sweeper.cli.commands import app, main

__all__ = ["app", "main"]
