"""Command-line flags made from dataclass fields: the one flag system of the scripts.

A settings class is a dataclass (``Settings`` as its base) whose fields are declared with ``flag(default,
help, ...)``: the field's type annotation, default, help text and checks (``min`` / ``max`` inclusive,
``above`` exclusive, ``choices``, ``parse`` for a value with its own syntax) are its one home.
``add_flags(parser, cls)`` makes one flag per field on a ``FlagParser``: ``--NAME VALUE``; a list field
takes several values (``--model_path a b``); a ``bool`` field is a switch, ``--NAME`` / ``--no-NAME``, also
spelt ``--NAME 1`` / ``--NAME 0`` (the training recipes' ``--resume 1``); the help text ends with the
default and the bounds. ``reused(cls, name)`` declares a field of another settings class with the same
default, help and checks.

Values are checked alike wherever they come from: a flag (its text), a JSON preset or Python
(``Settings.__post_init__``). A bad value is refused with one line: ``FlagParser`` prints ``error:
argument --NAME: must be at least 1, not 0`` and exits with status 2, with no usage block; a settings
object raises ``ValueError("NAME: must be at least 1, not 0")``.
"""
from __future__ import annotations

import argparse
import difflib
import json
import math
import sys
import types
import typing
from dataclasses import MISSING, Field, dataclass, field, fields

SWITCH_SPELLINGS = {"1": True, "true": True, "0": False, "false": False}


class FlagValueError(ValueError):
    """A value a field cannot take; the message says what it must be (``must be at least 1, not 0``)."""


def flag(default=MISSING, help: str = "", *, min=None, max=None, above=None, choices=None, parse=None,
         default_text: str | None = None, short: str | None = None, allow_empty: bool = False,
         bare=None) -> Field:
    """A settings field: its ``default`` (MISSING: a required flag; a list is copied for each object),
    ``help`` text and checks: ``min`` / ``max`` (inclusive) and ``above`` (exclusive) bounds on a number,
    ``choices`` (the allowed values), ``parse`` (text -> value, raising ValueError with the reason).
    ``default_text`` says in the help what the default means (``the model's``; or a function of the field);
    ``short``: a one-letter spelling of the flag besides ``--NAME`` (``-s``); ``allow_empty``: a list flag
    may be given without values (an empty list); ``bare``: the value of the flag given without one."""
    metadata = {"help": help, "min": min, "max": max, "above": above, "choices": choices, "parse": parse,
                "default_text": default_text, "short": short, "allow_empty": allow_empty, "bare": bare}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def reused(cls, name: str, help: str | None = None, default=MISSING) -> Field:
    """A new field with the default, help and checks of ``cls``'s field ``name`` (``help`` replaces its text;
    ``default``, given, its default: where the same setting serves another purpose, e.g. the service's turns)."""
    original = next(f for f in fields(cls) if f.name == name)
    metadata = dict(original.metadata, help=help or original.metadata["help"])
    if default is not MISSING:
        return flag(default, **{k: v for k, v in metadata.items()})
    if original.default_factory is not MISSING:
        return field(default_factory=original.default_factory, metadata=metadata)
    return field(default=original.default, metadata=metadata)


@dataclass
class Settings:
    """The base of a settings dataclass: after construction every field's value is normalised (``1`` ->
    True for a switch, ``"a,b"`` -> a tuple, a JSON object -> its settings class) and checked."""

    def __post_init__(self):
        hints = typing.get_type_hints(type(self))
        for f in fields(self):
            try:
                setattr(self, f.name, checked(f, hints[f.name], getattr(self, f.name)))
            except FlagValueError as err:
                raise ValueError(f"{f.name}: {err}") from None

    @classmethod
    def field_names(cls) -> set[str]:
        return {f.name for f in fields(cls)}


def value_type(annotation) -> type:
    """The type a field holds when given: ``int`` for ``int | None``, ``list`` for ``list[str] | None``."""
    return typing.get_origin(_given(annotation)) or _given(annotation)


def item_type(annotation) -> type:
    """The type of a list or tuple field's items (``int`` for ``list[int]``); str when unsaid."""
    args = [a for a in typing.get_args(_given(annotation)) if a is not Ellipsis]
    return args[0] if args else str


def _given(annotation):
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return next(a for a in typing.get_args(annotation) if a is not type(None))
    return annotation


def checked(f: Field, annotation, value):
    """``value`` for field ``f`` normalised and checked (raises FlagValueError); None stays None. A list or
    tuple is checked item by item (``"a,b"`` is a tuple's two items, a lone text a list's one)."""
    if value is None:
        return None
    kind, parse = value_type(annotation), f.metadata.get("parse")
    if kind in (list, tuple):
        if isinstance(value, str):
            value = [p.strip() for p in value.split(",") if p.strip()] if kind is tuple else [value]
        return kind(checked(f, item_type(annotation), item) for item in value)
    if parse is not None and isinstance(value, str):
        value = _parsed(parse, value)
    elif kind is bool:
        if isinstance(value, float) or value not in (0, 1):
            raise FlagValueError(f"must be a switch (true/false or 1/0), not {value!r}")
        value = bool(value)
    elif kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise FlagValueError(f"must be {'a whole number' if kind is int else 'a finite number'}, not {value!r}")
        if kind is int and value != int(value):
            raise FlagValueError(f"must be a whole number, not {value!r}")
        value = kind(value)
    elif kind is frozenset and parse is not None:
        value = _parsed(parse, ",".join(value) or "none")
    elif isinstance(value, dict) and hasattr(kind, "from_json"):
        value = kind.from_json(value)
    elif kind is str and not isinstance(value, str):
        raise FlagValueError(f"must be text, not {value!r}")
    _check_range(f.metadata, value)
    return value


def _parsed(parse, text: str):
    try:
        return parse(text)
    except ValueError as err:
        raise FlagValueError(str(err)) from None


def _check_range(metadata, value) -> None:
    choices = metadata.get("choices")
    if choices is not None and value not in choices:
        raise FlagValueError(f"must be one of {', '.join(map(str, choices))}, not {value!r}")
    low, high, above = metadata.get("min"), metadata.get("max"), metadata.get("above")
    if (low is not None and value < low) or (high is not None and value > high) or (above is not None and value <= above):
        raise FlagValueError(f"must be {bounds_text(metadata)}, not {value!r}")


def bounds_text(metadata) -> str:
    """A field's bounds in words (``between 0 and 1``, ``at least 1``, ``more than 0``); '' when it has none."""
    low, high, above = metadata.get("min"), metadata.get("max"), metadata.get("above")
    if low is not None and high is not None:
        return f"between {low} and {high}"
    if above is not None:
        return f"more than {above}" + (f" and at most {high}" if high is not None else "")
    return f"at least {low}" if low is not None else f"at most {high}" if high is not None else ""


def from_text(f: Field, annotation, text: str):
    """A flag's text as field ``f``'s value, checked (raises FlagValueError)."""
    kind = value_type(annotation)
    if f.metadata.get("parse") is not None or kind in (str, tuple):
        return checked(f, annotation, text)
    if kind in (int, float):
        try:
            number = kind(text)
        except ValueError:
            raise FlagValueError(f"must be {'a whole number' if kind is int else 'a number'}, not {text!r}") from None
        return checked(f, annotation, number)
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None  # (refused below, with the text)
    if not isinstance(value, dict):
        raise FlagValueError(f"must be a JSON object, not {text!r}")
    return checked(f, annotation, value)


def shown_default(f: Field) -> str:
    """What the help text says the default is (`` 32``, `` on``, ``: the model's``)."""
    text = f.metadata.get("default_text")
    if text:
        return ": " + (text(f) if callable(text) else text)
    default = f.default_factory() if f.default_factory is not MISSING else f.default
    if isinstance(default, bool):
        return " on" if default else " off"
    if isinstance(default, (list, tuple)):
        return " " + (" ".join(map(str, default)) or "none")
    return " none" if default in (None, "") else f" {default}"


def help_text(f: Field) -> str:
    """A field's help with its default and bounds, as ``--help`` shows it."""
    extra = [] if f.default is MISSING and f.default_factory is MISSING else [f"default{shown_default(f)}"]
    extra += [bounds_text(f.metadata)] if bounds_text(f.metadata) else []
    text = f"{f.metadata['help']} ({'; '.join(extra)})" if extra else f.metadata["help"]
    return text.replace("%", "%%")  # argparse formats help with %


class FlagParser(argparse.ArgumentParser):
    """argparse as the scripts use it: the description shown as written, switches also spelt ``--NAME 1``
    / ``--NAME 0``, and every error one line, ``error: ...``, with exit status 2 (no usage block)."""

    def __init__(self, description: str | None = None, **options):
        options.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(description=description, **options)
        self.switches: set[str] = set()

    def error(self, message: str) -> typing.NoReturn:
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)

    def parse_known_args(self, args=None, namespace=None):
        args = sys.argv[1:] if args is None else list(args)
        return super().parse_known_args(switch_spellings(args, self.switches), namespace)

    def parse_args(self, args=None, namespace=None):
        """argparse's, but a misspelt flag is named first (argparse said only which required flags were
        missing: ``--in_file x`` gave "required: --input_file, --output_file"), with the nearest ones."""
        args = sys.argv[1:] if args is None else list(args)
        known = list(self._option_string_actions)
        for arg in args:
            if arg == "--":
                break
            name = arg.partition("=")[0]
            if name.startswith("--") and not any(option.startswith(name) for option in known):
                near = difflib.get_close_matches(name, known, n=2)
                self.error(f"unknown flag {name}" + (f" (did you mean {' or '.join(near)}?)" if near else ""))
        return super().parse_args(args, namespace)

    def settings(self, cls, namespace: argparse.Namespace, **values):
        """A ``cls`` from the namespace's attributes named like its fields (and ``values``); a value it
        refuses is a flag error."""
        given = {name: getattr(namespace, name) for name in cls.field_names() if hasattr(namespace, name)}
        try:
            return cls(**given, **values)
        except ValueError as err:
            self.error(str(err))


def switch_spellings(argv: list[str], switches: set[str]) -> list[str]:
    """``--NAME 1`` / ``--NAME 0`` (and ``=1`` / ``=0``, ``true`` / ``false``) of a switch as ``--NAME`` /
    ``--no-NAME``; anything else is left for argparse to read or refuse."""
    out, i = [], 0
    while i < len(argv):
        name, eq, value = argv[i].partition("=")
        if name in switches and not eq and i + 1 < len(argv) and argv[i + 1].lower() in SWITCH_SPELLINGS:
            value, eq, i = argv[i + 1], "=", i + 1
        if name in switches and eq and value.lower() in SWITCH_SPELLINGS:
            out.append(name if SWITCH_SPELLINGS[value.lower()] else "--no-" + name[2:])
        else:
            out.append(argv[i])
        i += 1
    return out


def add_flags(parser: FlagParser, cls, only: typing.Iterable[str] | None = None, skip: typing.Iterable[str] = (),
              given_only: bool = False, title: str | None = None) -> None:
    """One flag per field of the settings class ``cls`` (those in ``only``, if given, less those in
    ``skip``), in a group of ``--help`` headed ``title`` if one is given; ``given_only``: a flag left out
    is absent from the parsed namespace (not set to its default)."""
    hints = typing.get_type_hints(cls)
    group = parser.add_argument_group(title) if title else parser
    wanted = None if only is None else set(only)
    for f in fields(cls):
        if (wanted is not None and f.name not in wanted) or f.name in skip:
            continue
        kind, name = value_type(hints[f.name]), f"--{f.name}"
        names = [f.metadata["short"], name] if f.metadata.get("short") else [name]
        options = {"help": help_text(f), "dest": f.name}
        if given_only:
            options["default"] = argparse.SUPPRESS
        elif f.default is MISSING and f.default_factory is MISSING:
            options["required"] = True
        else:
            options["default"] = f.default_factory() if f.default_factory is not MISSING else f.default
        if kind is bool:
            parser.switches.add(name)
            group.add_argument(*names, action=argparse.BooleanOptionalAction, **options)
            continue
        if kind is list:
            options["nargs"] = "*" if f.metadata.get("allow_empty") else "+"
        elif f.metadata.get("bare") is not None:
            options.update(nargs="?", const=f.metadata["bare"])
        if f.metadata.get("choices") is not None:
            options["metavar"] = "{" + ",".join(map(str, f.metadata["choices"])) + "}"
        annotation = item_type(hints[f.name]) if kind is list else hints[f.name]  # a list: one value per item
        group.add_argument(*names, type=_flag_type(f, annotation, f.name), **options)


def _flag_type(f: Field, annotation, name: str):
    def read(text: str):
        try:
            return from_text(f, annotation, text)
        except FlagValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    read.__name__ = name  # argparse names the type in some messages
    return read
