"""The project's vocabulary: the values, columns and name patterns every layer spells alike.

A leaf module: it imports nothing of the project, so the spec, the configurations, the
platforms, the store and the recommender all take their names from here without an import
cycle. Every pattern is matched whole (``re.fullmatch``): ``$`` would let a trailing newline
through.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Final

#: the RAID levels a configuration can have
RAID_LEVELS: Final = ("raid0", "raid1", "raid5", "raid6", "raid10")
#: how a volume lies on the ranks: one rank, striped by the host, or spread by the array
LAYOUTS: Final = ("single_rank", "host_stripe", "pool_stripe")
#: the layouts that spread a volume over several ranks (they have ranks and stripe_kib)
MULTI_RANK_LAYOUTS: Final = ("host_stripe", "pool_stripe")
#: write-back or write-through, with or without read-ahead
CACHE_POLICIES: Final = ("wb-ra", "wb-nora", "wt-ra", "wt-nora")
#: the kinds of drive media a limit or a hardware description names
MEDIA: Final = ("hdd", "flash")

#: the columns of a configuration, in the order the store keeps them, with the type of their
#: values (``ranks`` and ``stripe_kib`` are empty for a single-rank layout)
CONFIGURATION_COLUMN_TYPES: Final = MappingProxyType(
    {
        "raid_level": str,
        "layout": str,
        "ranks": int,
        "stripe_kib": int,
        "cache_policy": str,
        "snapshots": bool,
        "data_reduction": bool,
    }
)
#: the configuration columns, in order
CONFIGURATION_COLUMNS: Final = tuple(CONFIGURATION_COLUMN_TYPES)
#: the columns only multi-rank layouts have
MULTI_RANK_COLUMNS: Final = ("ranks", "stripe_kib")
#: the optional dimensions: off unless a spec lists ``true`` (and the platform has them)
OPTIONAL_COLUMNS: Final = ("snapshots", "data_reduction")

#: a name that may become a file or folder name (sweep, worker)
NAME_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: a configuration key, e.g. ``raid10/pool_stripe/ranks4/stripe1g/wb-ra/snap/dr``, with the
#: dimensions a platform declares last, by name (``…/wb-ra/chunk_kib=64/health=degraded``)
CONFIGURATION_KEY_RE: Final = re.compile(
    r"(?P<raid>raid\d+)/(?P<layout>[a-z_]+)(?:/ranks(?P<ranks>\d{1,4})/stripe(?P<stripe>\d{1,9})(?P<unit>[kmg]))?"
    r"/(?P<cache>w[bt]-(?:no)?ra)(?P<snap>/snap)?(?P<dr>/dr)?"
    r"(?P<dims>(?:/[a-z][a-z0-9_]{0,31}=-?[A-Za-z0-9][A-Za-z0-9._-]{0,63})*)"
)
#: a run id: the start of the hash of a run's address
RUN_ID_RE: Final = re.compile(r"[0-9a-f]{24}")
# Ansible group names are identifiers; host names are DNS names or addresses. Both keep
# shell and path metacharacters out of everything that names a host.
#: an Ansible inventory group name
INVENTORY_GROUP_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
#: an inventory host name: a DNS name or an IPv4 or IPv6 address
INVENTORY_HOST_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,252}")
#: a device by its stable id: the names udev gives under by-id (wwn-0x…, nvme-eui.…,
#: ata-Model_Serial, usb-…-0:0); no other character, so nothing in a device name can be read
#: as syntax anywhere (the playbooks' modules, which run on the storage host without
#: raidsweep, keep a copy)
STABLE_DEVICE_RE: Final = re.compile(r"/dev/disk/by-id/[A-Za-z0-9][A-Za-z0-9._:+@\\-]{0,200}")
#: a latency metric a workload class may limit, when the store keeps its ``<metric>_ms``
#: column (a limit on a metric that is not stored would silently never apply)
LIMIT_METRIC_RE: Final = re.compile(r"(read|write|sync)_lat_(mean|p50|p95|p99|p999|p9999)")
