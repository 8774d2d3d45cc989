"""``environment``: what a sweep's reader needs and raidsweep cannot gather, stated in the spec.

A vendor's rebuttal of a published benchmark (``STUDIES.md`` §5) could not repeat it because
the publication left out seven things: how many load hosts, which tool, which OS, which
switches, which multipath software, whether there was a ramp-up and how long the measurement
was. raidsweep records five of them itself; the fabric and, outside the platforms that read
it, the multipath software it cannot see. The spec states them as plain text:

    environment:
      fabric: two Brocade G620 (FOS 9.1.1), 16 Gb/s, single-initiator zoning
      multipath: AIX SDDPCM 2.7, round_robin, 4 paths per LUN
      hba: 2 x Emulex LPe32002, firmware 12.8, queue depth 32

Keys are lower-case names (``fabric``, ``multipath``, ``hba``, ``array_firmware``, or any other
of the user's); values are one line of text. They are shown in the disclosure and the report
and never evaluated; they do not change the sweep's fingerprint.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, StringConstraints

from sweeper.ansible_vars import secret_name

#: the keys the reproducibility checklist reads (any other key is shown as given)
FABRIC_KEYS = ("fabric", "switches")
MULTIPATH_KEYS = ("multipath",)
#: at most this many facts, each of at most ``VALUE_MAX`` characters
ENTRIES_MAX, VALUE_MAX = 50, 500


_KEY = re.compile(r"[a-z][a-z0-9_]{0,39}")


def _key(value: str) -> str:
    if not _KEY.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a name for a fact (lower-case letters, digits and '_', "
            "starting with a letter; at most 40)"
        )
    if secret_name(value):
        raise ValueError(
            f"{value!r} names a secret: the spec is stored with the results and shown in "
            "reports; state no secrets in it"
        )
    return value


# one line of text: a control character anywhere in a spec is refused by the spec's own check
Key = Annotated[str, AfterValidator(_key)]
Value = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=VALUE_MAX)]
