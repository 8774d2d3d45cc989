"""Recognising raidsweep's own Parquet files by their footers' first bytes: a reader of
just enough of the footer's Thrift compact encoding to tell a file of raidsweep's columns."""

from __future__ import annotations

import functools
import os
import stat

import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.store.records import CONFIG_SCHEMA, RUN_SCHEMA

# Arrow takes 0.25 ms to parse a run file's footer (12 KB: 100 columns' metadata and the Arrow
# schema) and as long again to make its schema: 1,500 run files cost 0.7 s before DuckDB
# reads them. A Parquet file's footer is a Thrift struct (``FileMetaData``) that begins with
# its format version and its columns (field 2, ``schema``: every column's name, physical and
# logical type, repetition), serialised the same way by the same writer whatever the rows: a
# footer whose first bytes are those of a file this raidsweep writes holds exactly its
# columns, which is all the check asks of it. Any other footer (another writer, another
# raidsweep's columns, damage) is parsed by Arrow as before. What follows the columns (the row
# groups) is parsed by whoever reads the rows: DuckDB, or Arrow, each of which names a file it
# cannot read (``unreadable_files``).

#: the schemas raidsweep writes its files with, recognised by their footers' first bytes
_OWN_SCHEMAS = (RUN_SCHEMA, CONFIG_SCHEMA)
_MAGIC = b"PAR1"
#: the longest footer read to recognise a file (a run file's is some 12 KB)
_FOOTER_MAX = 1 << 20


def _recognised(path: str) -> pa.Schema | None:
    """The schema of the Parquet file at ``path`` when its footer begins as a file of one of
    ``_OWN_SCHEMAS`` written by this process's Arrow does; None when it does not, or the
    file cannot be read here (Arrow then judges it, and says why)."""
    try:
        footer = _footer(path)
    except OSError:
        return None
    if footer is None:
        return None
    return next((s for s in _OWN_SCHEMAS if footer.startswith(_columns_prefix(s))), None)


def _footer(path: str) -> bytes | None:
    """The footer of the Parquet file at ``path`` (between its length and the closing magic
    bytes), if it is framed as one: the magic bytes at both ends, a length that fits."""
    # Not blocking: a regular file a moment ago may be a FIFO now, which must not hang this.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        size = st.st_size
        if not stat.S_ISREG(st.st_mode) or size < 12 or os.pread(fd, 4, 0) != _MAGIC:
            return None
        tail = os.pread(fd, 8, size - 8)
        length = int.from_bytes(tail[:4], "little")
        if tail[4:] != _MAGIC or length > min(size - 12, _FOOTER_MAX):
            return None
        footer = os.pread(fd, length, size - 8 - length)
    finally:
        os.close(fd)
    return footer if len(footer) == length else None


@functools.lru_cache(maxsize=8)
def _columns_prefix(schema: pa.Schema) -> bytes:
    """The first bytes of the footer of a file of ``schema`` that this process's Arrow
    writes: its format version and its columns (``FileMetaData`` fields 1 and 2)."""
    sink = pa.BufferOutputStream()
    pq.write_table(schema.empty_table(), sink)
    data = sink.getvalue().to_pybytes()
    footer = data[-8 - int.from_bytes(data[-8:-4], "little") : -8]
    # Field 1 (an i32, the header 0x15) then field 2 (a list, 0x19), as Arrow writes them.
    if footer[:1] != b"\x15":
        return b"\x00"  # another layout than this reading knows: never a prefix (0 is STOP)
    _, pos = _varint(footer, 1)
    if footer[pos : pos + 1] != b"\x19":
        return b"\x00"
    return footer[: _skip(footer, pos + 1, _LIST)]


_LIST, _STRUCT = 9, 12


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _skip(data: bytes, pos: int, kind: int) -> int:
    """Where the Thrift compact-protocol value of type ``kind`` at ``pos`` ends (only ever of
    a footer this process wrote: ``_columns_prefix``)."""
    if kind in (1, 2):  # a bool: in the field's header
        return pos
    if kind == 3:
        return pos + 1
    if kind in (4, 5, 6):
        return _varint(data, pos)[1]
    if kind == 7:
        return pos + 8
    if kind == 8:
        length, pos = _varint(data, pos)
        return pos + length
    if kind in (_LIST, 10):
        header = data[pos]
        pos += 1
        count, item = header >> 4, header & 0x0F
        if count == 15:
            count, pos = _varint(data, pos)
        for _ in range(count):
            pos = pos + 1 if item in (1, 2) else _skip(data, pos, item)
        return pos
    if kind == 11:
        count, pos = _varint(data, pos)
        if count:
            types = data[pos]
            pos += 1
            for _ in range(count):
                pos = _skip(data, _skip(data, pos, types >> 4), types & 0x0F)
        return pos
    if kind == _STRUCT:
        while (header := data[pos]) != 0:
            pos += 1
            if header >> 4 == 0:  # the field's id in full, not as a delta
                pos = _varint(data, pos)[1]
            pos = _skip(data, pos, header & 0x0F)
        return pos + 1
    raise ValueError(f"not a Thrift compact-protocol type: {kind}")
