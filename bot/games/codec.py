"""Turn frozen engine dataclasses into JSON-ready dicts and back, driven by their type hints.

One codec serves every engine, so a new game only declares its state types; the stored JSON
stays plain (lists, numbers, strings) and readable in the database.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

T = TypeVar("T")


def dump(value: Any) -> Any:
    """A JSON-ready copy of a dataclass tree (tuples and frozensets become lists)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [dump(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted(dump(v) for v in value)
    if isinstance(value, Mapping):
        return {str(k): dump(v) for k, v in value.items()}
    return value


def load(cls: type[T], data: Any) -> T:
    """Rebuild ``cls`` from what :func:`dump` produced."""
    return typing.cast(T, _load(cls, data))


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """A dataclass's resolved field types; resolving them is a third of a move's CPU."""
    return get_type_hints(cls)


def _load(tp: Any, data: Any) -> Any:
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = _hints(tp)
        kwargs = {
            f.name: _load(hints[f.name], data[f.name])
            for f in dataclasses.fields(tp)
            if f.name in data
        }
        return tp(**kwargs)
    origin, args = get_origin(tp), get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        return _load(next(a for a in args if a is not type(None)), data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(args[0], v) for v in data)
        return tuple(_load(a, v) for a, v in zip(args, data, strict=True))
    if origin is frozenset:
        return frozenset(_load(args[0], v) for v in data)
    if origin in (dict, Mapping):
        return {k: _load(args[1], v) for k, v in data.items()}
    return data
