"""Helpers shared by the tests, each defined once.

- ``paths``: the repository's folders and files the tests read (``ROOT``, ``QUICK``, …);
- ``specs``: specs derived from examples/quick.yaml, a spec written to a file;
- ``sweeps``: a spec swept in the test's process, the quick sweep run in the background,
  what a store holds of a sweep;
- ``locks``: a lock folder private to a test, waiting until a process holds a lock, another
  process holding what a script locks, the local platform's lock identity of a target;
- ``cli``: the installed raidsweep run as a real process, to its end or in the background;
- ``net``: free loopback ports, and whether something listens on one;
- ``devices``: loop and zram devices made for a test, a loop device over a file it has, a
  bind mount;
- ``files``: a file's SHA-256, to show it untouched;
- ``reports``: a report's set of files as the tests write it, and what writers left aside;
- ``charts``: frames the chart tests draw;
- ``processes``: a server started in the background, stopped at the test's end;
- ``postgres``, ``vcsim``, ``lab``: PostgreSQL, the vSphere simulator and the lab VM, as
  fixtures (tests/integration/conftest.py registers them);
- ``campaign``: the fault campaign's figures, printed at the end of the run.

Contracts written once and run against every implementation stay beside their tests, as
classes over a parametrized fixture: tests/test_store.py (``TestStoreContract``, every
results store) and tests/test_platform_contract.py (``TestPlatformContract``, every platform).
"""
