"""Pydantic validation errors turned into problems that name their place: ``line N: path:
message``, the path written as a user reads it (``matrix.block_sizes[2]``) and the line taken
from the document the values came from."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

Loc = Sequence[str | int]
M = TypeVar("M", bound=BaseModel)


class LocatedDocument(Protocol):
    """A loaded document that knows the line of each of its values (a ``YamlSource``)."""

    data: Any

    def line_of(self, loc: Loc) -> int | None: ...


def validated(
    model: type[M],
    source: LocatedDocument,
    problems: list[str],
    context: dict[str, Any] | None = None,
) -> M | None:
    """``source``'s document as ``model``, or None with its problems added to ``problems``
    (each naming its line and path); ``context`` is handed to the model's validators."""
    try:
        return model.model_validate(source.data, context=context)
    except ValidationError as exc:
        problems += pydantic_problems(exc, source)
    except RecursionError:
        problems.append("document: nested too deeply to validate")
    return None


def format_loc(loc: Loc) -> str:
    """``('matrix', 'block_sizes', 2)`` -> ``matrix.block_sizes[2]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def pydantic_problems(exc: Any, source: LocatedDocument, prefix: Loc = ()) -> list[str]:
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
        elif err["type"] in _NUMBER_TYPES and _looks_numeric(err.get("input")):
            msg += (
                f" (YAML reads {err['input']} as text: an exponent needs a point and a sign, "
                "as in 1.0e+6)"
            )
        line = source.line_of(loc)
        where = f"line {line}: " if line else ""
        problems.append(f"{where}{format_loc(loc)}: {msg}")
    return problems


#: pydantic's errors for a value that is not a number where one is wanted
_NUMBER_TYPES = frozenset({"float_type", "int_type", "float_parsing", "int_parsing"})
#: what reads as a number to a user but as text to YAML 1.1 (``1e6``, ``2.5E3``, ``1e+06``)
_EXPONENT_TEXT = re.compile(r"[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+")


def _looks_numeric(value: Any) -> bool:
    return isinstance(value, str) and _EXPONENT_TEXT.fullmatch(value) is not None


def _is_union_tag(part: Any) -> bool:
    # pydantic puts validator names such as 'function-after[...]' into locations
    return isinstance(part, str) and ("[" in part and part.endswith("]"))
