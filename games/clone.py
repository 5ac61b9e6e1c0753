"""The one way to copy a game state: :func:`clone`, a copy made field by field from the
state type's own declaration.

A game's ``decide`` copies the state when it must simulate a chain of events (``evolve``
may update a state in place, see :mod:`games.protocol`), a searching bot copies it once
per simulation, and the platform copies a state for snapshots and undo. States are
msgspec Structs, so their declared field types say exactly what must be copied: the
first clone of a type generates one plain function for it (``exec`` of straight-line
source, no per-field loop or type test at run time), which copies every mutable
container and mutable Struct and shares everything immutable (ints, strings, tuples and
*frozen* Structs: events, commands and steps are values the rules never change). It
needs no per-game code that drifts when a field is added, and it costs a fraction of the
msgpack round trip it replaces (``orrery bench rules`` prints both). A field of a type
this does not know how to copy (``Any``, a union mixing mutable Structs with other
kinds) makes the whole type fall back to that exact round trip.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
import msgspec.inspect as mi

S = TypeVar("S", bound=msgspec.Struct)

_encoder = msgspec.msgpack.Encoder()
_cloners: dict[type[Any], Callable[[Any], Any]] = {}

# Value kinds shared as they are: immutable, so a copy may hold the very object.
_IMMUTABLE = (
    mi.IntType,
    mi.FloatType,
    mi.StrType,
    mi.BoolType,
    mi.NoneType,
    mi.BytesType,
    mi.LiteralType,
    mi.EnumType,
    mi.DecimalType,
    mi.DateTimeType,
    mi.DateType,
    mi.TimeType,
    mi.TimeDeltaType,
    mi.UUIDType,
)


class _Unsupported(Exception):
    """A field type the generated copy does not handle (the round trip does)."""


def clone(state: S) -> S:
    """An independent copy of ``state`` (nothing shared but immutable values)."""
    cloner = _cloners.get(type(state))
    if cloner is None:
        cloner = cloner_for(type(state))
    copied: S = cloner(state)
    return copied


def cloner_for(kind: type[S]) -> Callable[[S], S]:
    """The copy function of Struct type ``kind`` (made once, then cached)."""
    cloner = _cloners.get(kind)
    if cloner is None:
        try:
            cloner = _generate(kind)
        except _Unsupported:
            cloner = _round_trip(kind)
        _cloners[kind] = cloner
    return cloner


def round_trip_clone(state: S) -> S:
    """The same copy through a msgpack encode + decode of ``state``'s own type (the
    reference :func:`clone` is tested against)."""
    copied: S = _round_trip(type(state))(state)
    return copied


def _round_trip(kind: type[S]) -> Callable[[S], S]:
    decode = msgspec.msgpack.Decoder(kind).decode
    encode = _encoder.encode

    def copy(state: S) -> S:
        copied: S = decode(encode(state))
        return copied

    return copy


def _is_frozen(cls: type[Any]) -> bool:
    return bool(cls.__struct_config__.frozen)


def _immutable(t: mi.Type) -> bool:
    if isinstance(t, _IMMUTABLE):
        return True
    if isinstance(t, mi.StructType):
        return _is_frozen(t.cls)
    if isinstance(t, (mi.TupleType, mi.VarTupleType, mi.FrozenSetType)):
        items = t.item_types if isinstance(t, mi.TupleType) else (t.item_type,)
        return all(_immutable(i) for i in items)
    if isinstance(t, mi.UnionType):
        return all(_immutable(i) for i in t.types)
    return False


class _Source:
    """The generated module: one function per mutable Struct type met."""

    def __init__(self) -> None:
        self.defs: list[str] = []
        self.tables: list[str] = []  # run after every def: they name the functions
        self.names: dict[type[Any], str] = {}
        self.namespace: dict[str, Any] = {
            "_other": _other,
            "_replace": msgspec.structs.replace,
            "_list_copy": list.copy,
            "_dict_copy": dict.copy,
        }
        self.counter = 0

    def temp(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def struct(self, cls: type[Any]) -> str:
        """The name of the copy function of mutable Struct ``cls`` (generated once)."""
        name = self.names.get(cls)
        if name is not None:
            return name
        name = self.names[cls] = f"clone_{len(self.names)}_{cls.__name__}"
        info = mi.type_info(cls)
        assert isinstance(info, mi.StructType)
        # One C call with the copied fields: msgspec's ``replace`` sets them on its own
        # shallow copy (cheaper than ``__copy__`` and an attribute store per field)
        fields = [
            f"{f.name}={self.expr(f.type, f's.{f.name}')}"
            for f in info.fields
            if not _immutable(f.type)
        ]
        if fields:
            self.defs.extend([f"def {name}(s):", f"    return _replace(s, {', '.join(fields)})"])
        else:  # nothing to copy inside: the Struct's own shallow copy (C, no frame)
            self.namespace[name] = cls.__copy__
        return name

    def function(self, t: mi.Type) -> str | None:
        """The name of a one-argument function copying a value of type ``t``, if one
        is at hand (to ``map`` over a container's items without a Python frame each)."""
        if isinstance(t, mi.ListType) and _immutable(t.item_type):
            return "_list_copy"
        if isinstance(t, mi.DictType) and _immutable(t.key_type) and _immutable(t.value_type):
            return "_dict_copy"
        if isinstance(t, mi.StructType) and not _immutable(t):
            return self.struct(t.cls)
        return None

    def expr(self, t: mi.Type, value: str) -> str:
        """A Python expression copying ``value`` (a name or attribute) of type ``t``."""
        if _immutable(t):
            return value
        if isinstance(t, mi.ListType):
            item = t.item_type
            if _immutable(item):
                return f"{value}.copy()"  # cheaper than ``[:]`` (no slice object)
            # An empty list is a new empty list (no map or frame made for no items, and
            # many per-seat lists are empty: no automated opponents, no pending choice);
            # ``[*map(...)]`` spares ``list``'s lookup and call.
            function = self.function(item)
            if function is not None:
                return f"([*map({function}, {value})] if {value} else [])"
            v = self.temp()
            return f"([{self.expr(item, v)} for {v} in {value}] if {value} else [])"
        if isinstance(t, mi.SetType) and _immutable(t.item_type):
            return f"{value}.copy()"
        if isinstance(t, mi.DictType) and _immutable(t.key_type):
            if _immutable(t.value_type):
                return f"{value}.copy()"
            k, v = self.temp(), self.temp()
            return f"{{{k}: {self.expr(t.value_type, v)} for {k}, {v} in {value}.items()}}"
        if isinstance(t, mi.VarTupleType):
            v = self.temp()
            return f"tuple({self.expr(t.item_type, v)} for {v} in {value})"
        if isinstance(t, mi.StructType):
            return f"{self.struct(t.cls)}({value})"
        if isinstance(t, mi.UnionType):
            return self.union(t, value)
        raise _Unsupported(repr(t))

    def union(self, t: mi.UnionType, value: str) -> str:
        # Only ``X | None`` and unions of Structs (tagged): a copy function per type.
        mutable = [u for u in t.types if not _immutable(u)]
        if not all(isinstance(u, mi.StructType) for u in mutable):
            raise _Unsupported(repr(t))
        table = self.temp()
        self.namespace[table] = {u.cls: self.struct(u.cls) for u in mutable}  # type: ignore[attr-defined]
        self.tables.append(f"{table} = {{k: globals()[n] for k, n in {table}.items()}}")
        return f"{table}.get(type({value}), _other)({value})"


def _other(value: Any) -> Any:
    """A union's member of no listed mutable type: an immutable one (``None``, a frozen
    Struct, a scalar) as it is, anything else (a subclass) copied all the same."""
    if isinstance(value, msgspec.Struct) and not _is_frozen(type(value)):
        return clone(value)
    return value


def _generate(kind: type[S]) -> Callable[[S], S]:
    if not issubclass(kind, msgspec.Struct) or _is_frozen(kind):
        raise _Unsupported("not a mutable Struct")
    source = _Source()
    entry = source.struct(kind)
    code = "\n".join(source.defs + source.tables) + "\n"
    namespace = dict(source.namespace)
    exec(compile(code, f"<clone of {kind.__qualname__}>", "exec"), namespace)
    copy: Callable[[S], S] = namespace[entry]
    return copy
