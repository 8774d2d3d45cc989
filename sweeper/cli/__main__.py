"""``python -m sweeper.cli``: the ``raidsweep`` command."""

from sweeper.cli import main

main()
