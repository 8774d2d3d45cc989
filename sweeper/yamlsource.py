"""Safe YAML loading that remembers where each value sits, so errors can name the line.

Every file a user hands raidsweep (spec, class file, inventory, array profile) is read through
one bounded loader: a regular file of at most ``MAX_BYTES``, read without following it into a
FIFO or a device; nesting at most ``MAX_DEPTH`` levels, aliases included; at most ``MAX_NODES``
values once aliases are expanded (a few hundred bytes of nested aliases otherwise expand to
billions); no alias that refers to the collection holding it; and no key written twice in one
mapping (YAML would keep the last silently). Each refusal is a problem naming file and line.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel

from sweeper.errors import InputError
from sweeper.untrusted import template_problems
from sweeper.validation_problems import Loc, format_loc, validated
from sweeper.validation_problems import pydantic_problems as pydantic_problems  # re-exported

M = TypeVar("M", bound=BaseModel)

#: the largest spec, class file, inventory or profile read (the largest shipped is ~10 KiB)
MAX_BYTES = 1024 * 1024
#: the deepest nesting of collections (a spec is 4 levels deep, an inventory about 8)
MAX_DEPTH = 64
#: the most values a document may hold with its aliases expanded
MAX_NODES = 100_000
#: the longest integer read (a 64-bit integer has 20 digits)
MAX_NUMBER_CHARS = 100
_MERGE = "tag:yaml.org,2002:merge"
_NOT_REGULAR = "is not a regular file (a FIFO, device or socket); refused without reading it"


class _Refused(yaml.constructor.ConstructorError):
    """Valid YAML whose value raidsweep will not read (said without "not valid YAML")."""


class BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses nesting deeper than ``MAX_DEPTH`` while composing (so a
    deep document is a clean problem, not a RecursionError), and reads a character written
    as its UTF-16 escapes (``"\\ud83d\\ude80"``, as JSON writers do) as that character."""

    def __init__(self, stream: Any):
        super().__init__(stream)
        self._depth = 0

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        # A tag the value does not fit (``!!int secret``, ``!!timestamp soon``, ``!!bool x``)
        # fails inside PyYAML's constructor with Python's own ValueError, KeyError or
        # AttributeError, whose text holds the value: refused here naming the line and the
        # tag, never the value (it may be a password).
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError, IndexError, OverflowError):
            raise _Refused(
                None,
                None,
                f"a value tagged {_short_tag(node.tag)} that is not one (the value is not "
                "shown; untag it or write it as the tag reads)",
                node.start_mark,
            ) from None

    def construct_yaml_int(self, node: Any) -> Any:
        # Python refuses to read more than 4,300 digits (a ValueError, not YAML's), and reads
        # YAML 1.1's base-60 integers (1:00:00) in time quadratic in their length
        if isinstance(node.value, str) and len(node.value) > MAX_NUMBER_CHARS:
            raise _Refused(
                None,
                None,
                f"a number of {len(node.value):,} characters: more than any setting takes "
                f"(at most {MAX_NUMBER_CHARS})",
                node.start_mark,
            )
        _no_base_60(node)
        _no_octal(node)
        return super().construct_yaml_int(node)

    def construct_yaml_null(self, node: Any) -> Any:
        # PyYAML reads ``!!null anything`` as None, silently dropping the text
        if isinstance(node.value, str) and node.value not in _NULLS:
            raise ValueError(node.tag)
        return super().construct_yaml_null(node)

    def construct_yaml_float(self, node: Any) -> Any:
        _no_base_60(node)
        return super().construct_yaml_float(node)

    def construct_scalar(self, node: Any) -> Any:
        value = super().construct_scalar(node)
        if isinstance(value, str) and _SURROGATE.search(value):
            return _joined(value, node)
        return value

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_DEPTH} levels", mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


#: the spellings of null (YAML 1.1)
_NULLS = ("", "~", "null", "Null", "NULL")


def _short_tag(tag: str) -> str:
    """A YAML tag as written: ``!!int`` for the standard ones."""
    standard = "tag:yaml.org,2002:"
    return "!!" + tag[len(standard) :] if tag.startswith(standard) else tag


def _no_base_60(node: Any) -> None:
    """Refuse YAML 1.1's base-60 numbers: ``1:30`` reads as 90 (``repetitions: 1:30`` would
    be 90 repetitions), which no one writing a setting means."""
    if isinstance(node.value, str) and ":" in node.value and node.tag.startswith("tag:yaml"):
        raise _Refused(
            None,
            None,
            "a base-60 number to YAML 1.1 (1:30 reads as 90): write the number itself, or "
            "quote it to mean text",
            node.start_mark,
        )


#: an integer YAML 1.1 reads as octal: a 0 and more digits (``010`` is 8), signed or not
_OCTAL = re.compile(r"[-+]?0[0-9_]*[0-9][0-9_]*")


def _no_octal(node: Any) -> None:
    """Refuse YAML 1.1's octal integers: ``010`` reads as 8 (``repetitions: 010`` would be 8
    repetitions), which someone writing a leading zero seldom means. Hexadecimal (``0x10``)
    and binary (``0b10``) are written on purpose and read as they say."""
    if isinstance(node.value, str) and _OCTAL.fullmatch(node.value):
        raise _Refused(
            None,
            None,
            f"{node.value} is an octal number to YAML 1.1 (010 reads as 8): write the number "
            "without its leading zero, or quote it to mean text",
            node.start_mark,
        )


#: half of a UTF-16 surrogate pair: PyYAML keeps each ``\\uXXXX`` escape of a pair as a code
#: point of its own, which no UTF-8 text (a report, a terminal, the app) can hold
_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _joined(value: str, node: yaml.Node) -> str:
    """``value`` with each surrogate pair joined into its character; a half without its
    partner is refused (it stands for no character)."""
    joined = _PAIR.sub(
        lambda m: m.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le"), value
    )
    half = _SURROGATE.search(joined)
    if half is not None:
        raise _Refused(
            None,
            None,
            f"holds {half.group()!r} (half of a UTF-16 surrogate pair) without its other "
            "half: it stands for no character",
            node.start_mark,
        )
    return joined


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_yaml_int)
BoundedLoader.add_constructor("tag:yaml.org,2002:float", BoundedLoader.construct_yaml_float)
BoundedLoader.add_constructor("tag:yaml.org,2002:null", BoundedLoader.construct_yaml_null)


class _TreeProblem(Exception):
    def __init__(self, node: yaml.Node, problem: str):
        super().__init__(problem)
        self.line = node.start_mark.line + 1
        self.problem = problem


def _key_text(node: yaml.Node) -> str:
    return node.value if isinstance(node, yaml.ScalarNode) else f"<{node.id}>"


def check_tree(root: yaml.Node | None, loader: type[yaml.SafeLoader] = BoundedLoader) -> None:
    """Refuse a composed document that expands beyond ``MAX_NODES`` values or ``MAX_DEPTH``
    levels through its aliases, holds an alias to a collection containing it, or writes a
    key twice in one mapping. Linear in the document's distinct nodes (aliases are not
    followed twice). Raises ``_TreeProblem``."""
    if root is None:
        return
    keys = loader("")  # constructs scalar keys as the real load will (true == 1, 0x10 == 16)
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    open_: set[int] = set()

    def visit(node: yaml.Node, depth: int, path: tuple[str | int, ...]) -> None:
        nid = id(node)
        if nid in size:
            if depth + height[nid] > MAX_DEPTH:
                raise _TreeProblem(node, f"aliases nest it deeper than {MAX_DEPTH} levels")
            return
        if nid in open_:
            raise _TreeProblem(
                node, "an alias refers to the collection that holds it (a structure without end)"
            )
        if depth > MAX_DEPTH:
            raise _TreeProblem(node, f"aliases nest it deeper than {MAX_DEPTH} levels")
        children: list[tuple[yaml.Node, tuple[str | int, ...]]] = []
        if isinstance(node, yaml.SequenceNode):
            children = [(child, (*path, i)) for i, child in enumerate(node.value)]
        elif isinstance(node, yaml.MappingNode):
            _duplicates(node, path, keys)
            for key_node, value_node in node.value:
                children.append((key_node, path))
                children.append((value_node, (*path, _key_text(key_node))))
        open_.add(nid)
        total, tallest = 1, 0
        for child, where in children:
            visit(child, depth + 1, where)
            total += size[id(child)]
            tallest = max(tallest, height[id(child)] + 1)
            if total > MAX_NODES:
                raise _TreeProblem(
                    node,
                    f"aliases expand the document beyond {MAX_NODES:,} values (refused "
                    "without expanding them: an alias bomb?)",
                )
        open_.discard(nid)
        size[nid], height[nid] = total, tallest

    try:
        visit(root, 1, ())
    finally:
        keys.dispose()


def _duplicates(node: yaml.MappingNode, path: tuple[str | int, ...], keys: Any) -> None:
    seen: dict[Any, yaml.Node] = {}
    merges = [k for k, _ in node.value if k.tag == _MERGE]
    if len(merges) > 1:
        # YAML has one merge key per mapping (several mappings merge as a list); PyYAML
        # would apply both, the second silently over the first
        raise _TreeProblem(
            merges[1],
            f"{format_loc(path) if path else 'a mapping'}: '<<' twice (first at line "
            f"{merges[0].start_mark.line + 1}); merge several mappings with one '<<: [*a, *b]'",
        )
    for key_node, _ in node.value:
        if key_node.tag == _MERGE or not isinstance(key_node, yaml.ScalarNode):
            continue  # merged keys may be overridden; complex keys fail to construct anyway
        try:
            key = keys.construct_object(key_node)
        except yaml.YAMLError:
            continue  # the real construction reports it
        if key in seen:
            first = seen[key].start_mark.line + 1
            where = format_loc([*path, _key_text(key_node)])
            raise _TreeProblem(
                key_node,
                f"{where}: duplicate key {key_node.value!r} (first at line {first}); "
                "YAML would silently keep the last one",
            )
        seen[key] = key_node


def load_text(
    text: str, name: str, loader: type[yaml.SafeLoader] = BoundedLoader
) -> tuple[Any, yaml.Node | None]:
    """The data of one YAML document and its node tree, loaded by ``loader`` (a
    ``BoundedLoader``) within the bounds above; any problem is an InputError naming ``name``
    and the line."""
    try:
        reader = loader(text)
        try:
            root = reader.get_single_node()
            check_tree(root, loader)
            data = reader.construct_document(root) if root is not None else None
        finally:
            reader.dispose()
    except _TreeProblem as exc:
        raise InputError(name, [f"line {exc.line}: {exc.problem}"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "document"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        said = problem if isinstance(exc, _Refused) else f"not valid YAML: {problem}"
        raise InputError(name, [f"{where}: {said}"]) from None
    except RecursionError:
        raise InputError(name, ["document: nested too deeply to read"]) from None
    return data, root


def read_text(path: Path | str, *, max_bytes: int = MAX_BYTES, kind: str = "YAML input") -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``. What is not a regular file
    (a FIFO, a device such as /dev/zero, a socket, a folder) is refused without reading it;
    ``kind`` words what the file should be in the messages."""
    name = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(name, [_not_found(path)]) from None
    except OSError as exc:
        raise InputError(name, [f"cannot be read: {exc.strerror}"]) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(name, [f"is a directory, not a {kind}"])
    if not stat.S_ISREG(st.st_mode):
        raise InputError(name, [_NOT_REGULAR])
    try:
        # O_NONBLOCK: a FIFO swapped in after the stat opens without waiting for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(name, [f"cannot be read: {exc.strerror}"]) from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise InputError(name, [_NOT_REGULAR])
        if st.st_size > max_bytes:
            raise InputError(
                name, [f"is {st.st_size:,} bytes, more than the {max_bytes:,} a {kind} may be"]
            )
        try:
            raw = fh.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(name, [f"cannot be read: {exc.strerror}"]) from None
    if len(raw) > max_bytes:
        raise InputError(name, [f"is more than the {max_bytes:,} bytes a {kind} may be"])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(name, [f"byte {exc.start}: not UTF-8 text ({exc.reason})"]) from None


def _not_found(path: Path | str) -> str:
    """Why a file is not there: none by that name, or a link to a file that is not."""
    try:
        target = os.readlink(path)
    except OSError:
        return "file not found"
    return f"a link to {target!r}, which does not exist"


class YamlSource:
    """A YAML document loaded by the bounded safe loader, with its node tree for line numbers."""

    def __init__(self, text: str, name: str):
        self.name = name
        self.data, self._root = load_text(text, name)

    @classmethod
    def from_path(cls, path: Path | str) -> YamlSource:
        return cls(read_text(path), str(path))

    def template_problems(self) -> list[str]:
        """``line N: path: problem`` for every string (key or value) holding template syntax."""
        return [
            f"line {self.line_of(loc)}: {format_loc(loc)}: {problem}"
            for loc, problem in template_problems(self.data)
        ]

    def line_of(self, loc: Loc) -> int | None:
        """1-based line of the value at ``loc``; the nearest existing parent if it is missing."""
        node = self._root
        line = node.start_mark.line + 1 if node is not None else None
        for part in loc:
            child = None
            if isinstance(node, yaml.MappingNode):
                for key_node, value_node in node.value:
                    if key_node.value == part:
                        child = value_node  # the last: merged keys come before their override
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if 0 <= part < len(node.value):
                    child = node.value[part]
            if child is None:
                break
            node = child
            line = node.start_mark.line + 1
        return line


def load_model(path: Path | str, model: type[M], what: str) -> M:
    """Load a YAML file into a pydantic model; problems name their line and path. Template
    syntax in any string of the file (keys too) is refused, with the model's own problems."""
    source = YamlSource.from_path(path)
    if not isinstance(source.data, dict):
        raise InputError(source.name, [f"line 1: {what} must be a mapping"])
    problems = source.template_problems()
    result = validated(model, source, problems)
    if result is None or problems:
        raise InputError(source.name, problems)
    return result
