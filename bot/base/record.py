"""A small stand-in for dataclasses on the diagnosis path.

`import dataclasses` and generating each class's methods cost about 10 ms, a fifth of a CLI call's
budget (the cold-start target is 1.5x `python -c "import yaml, rapidfuzz"`). Records declare
fields as annotations; defaults are class attributes, and `Factory(list)` gives a fresh one.
"""

from __future__ import annotations


class Factory:
    def __init__(self, make):
        self.make = make


class Record:
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        fields: list[str] = []
        for klass in reversed(cls.__mro__):
            for name in klass.__dict__.get("__annotations__", {}):
                if name not in fields and not name.startswith("__"):
                    fields.append(name)
        cls._fields = tuple(f for f in fields if f != "_fields")

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__} takes {len(self._fields)} fields")
        for name, value in zip(self._fields, args):
            setattr(self, name, value)
        for name in self._fields[len(args):]:
            if name in kwargs:
                value = kwargs.pop(name)
            else:
                default = type(self).__dict__.get(name, _MISSING)
                if default is _MISSING:
                    raise TypeError(f"{type(self).__name__}: missing field '{name}'")
                value = default.make() if isinstance(default, Factory) else default
            setattr(self, name, value)
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unknown field(s) {sorted(kwargs)}")

    def __repr__(self) -> str:
        body = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields if not n.startswith("_"))
        return f"{type(self).__name__}({body})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and all(getattr(self, n) == getattr(other, n) for n in self._fields)

    def to_dict(self) -> dict:
        return {n: _plain(getattr(self, n)) for n in self._fields if not n.startswith("_")}


_MISSING = object()


def _plain(value):
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
