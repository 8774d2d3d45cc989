"""Safe YAML loading that remembers where each value sits, so errors can name the line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from sweeper.errors import InputError

Loc = Sequence[str | int]
M = TypeVar("M", bound=BaseModel)


class YamlSource:
    """A YAML document loaded with ``safe_load`` plus its node tree for line numbers."""

    def __init__(self, text: str, name: str):
        self.name = name
        try:
            self.data: Any = yaml.safe_load(text)
            self._root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}" if mark is not None else "document"
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise InputError(name, [f"{where}: not valid YAML: {problem}"]) from None

    @classmethod
    def from_path(cls, path: Path | str) -> YamlSource:
        path = Path(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise InputError(str(path), ["file not found"]) from None
        except IsADirectoryError:
            raise InputError(str(path), ["is a directory, not a YAML file"]) from None
        except OSError as exc:
            raise InputError(str(path), [f"cannot be read: {exc.strerror}"]) from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                str(path), [f"byte {exc.start}: not UTF-8 text ({exc.reason})"]
            ) from None
        return cls(text, str(path))

    def line_of(self, loc: Loc) -> int | None:
        """1-based line of the value at ``loc``; the nearest existing parent if it is missing."""
        node = self._root
        line = node.start_mark.line + 1 if node is not None else None
        for part in loc:
            child = None
            if isinstance(node, yaml.MappingNode):
                for key_node, value_node in node.value:
                    if key_node.value == part:
                        child = value_node
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if 0 <= part < len(node.value):
                    child = node.value[part]
            if child is None:
                break
            node = child
            line = node.start_mark.line + 1
        return line


def load_model(path: Path | str, model: type[M], what: str) -> M:
    """Load a YAML file into a pydantic model; problems name their line and path."""
    source = YamlSource.from_path(path)
    if not isinstance(source.data, dict):
        raise InputError(source.name, [f"line 1: {what} must be a mapping"])
    try:
        return model.model_validate(source.data)
    except ValidationError as exc:
        raise InputError(source.name, pydantic_problems(exc, source)) from None


def format_loc(loc: Loc) -> str:
    """``('matrix', 'block_sizes', 2)`` -> ``matrix.block_sizes[2]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def pydantic_problems(exc: Any, source: YamlSource, prefix: Loc = ()) -> list[str]:
    """Turn a pydantic ValidationError into ``line N: path: message`` lines."""
    problems = []
    for err in exc.errors(include_url=False):
        loc = [*prefix, *(p for p in err["loc"] if not _is_union_tag(p))]
        msg = err["msg"]
        for lead in ("Value error, ", "Assertion failed, "):
            if msg.startswith(lead):
                msg = msg[len(lead) :]
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        elif err["type"] == "missing":
            msg = "required key is missing"
        line = source.line_of(loc)
        where = f"line {line}: " if line else ""
        problems.append(f"{where}{format_loc(loc)}: {msg}")
    return problems


def _is_union_tag(part: Any) -> bool:
    # pydantic puts validator names such as 'function-after[...]' into locations
    return isinstance(part, str) and ("[" in part and part.endswith("]"))
