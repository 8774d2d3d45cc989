"""Helpers shared by the tests, each defined once.

- ``paths``: the repository's folders and files the tests read (``ROOT``, ``EXAMPLES``, …);
- ``specs``: specs derived from examples/quick.yaml, spec files written for a test;
- ``sweeps``: a sweep run in the test's process;
- ``cli``: raidsweep run as a real process, and its output;
- ``processes``: raidsweep started in the background and finished;
- ``net``, ``devices``: a free port, loop and zram devices;
- ``campaign``: the fault campaign's figures, printed at the end of the run;
- ``vcsim``, ``lab``: the vSphere simulator and the lab VM, as fixtures (tests/conftest.py);
- ``contracts``: tests written once and run against every implementation.
"""
