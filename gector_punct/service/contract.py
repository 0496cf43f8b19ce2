"""What clients may send, checked: each ``read_*`` turns a request's parts into typed options or raises
``ClientError(status, message)`` with the 4xx status and a one-line reason (the service answers
``{"error": message}``).

``/v1/restore`` body: a JSON object ``{"lines": [str, ...], "tasks": "punc", "existing": "keep",
"fragments": false, "numbers": "words", "words": false}``; only ``lines`` is required, the rest are ``predict.py``'s flags of the
same names, with the same defaults (``words``: each line answered as ``predict.py --format jsonl`` writes it). A line holds no line break (``predict.py`` would read two lines). Too many lines:
413. ``/v1/stream`` query: ``lookahead`` (default 8, as ``predict.py --lookahead``), ``tasks``,
``existing``, ``fragments``, ``numbers``, ``words`` (``true``/``false``). A stream message: ``{"words": "new words"}``,
``{"end": true}`` or, first and only without an Authorization header, ``{"token": "..."}``.

JSON is read strictly: whatever ``json`` cannot turn into values (nesting too deep for it, an integer of
thousands of digits, ``NaN``, a key given twice, bad syntax) is a 400 with a one-line reason; a boolean
of a body is a JSON ``true`` / ``false``, never a string (only a query's ``fragments`` is text).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from gector_punct.prediction.settings import DEFAULTS
from gector_punct.text.existing import MODES
from gector_punct.text.files import excerpt
from gector_punct.text.numbers.spans import NUMBERS
from gector_punct.text.tasks import DEFAULT_TASKS, format_tasks, parse_tasks

DEFAULT_LOOKAHEAD = DEFAULTS.lookahead  # predict.py's --lookahead


class ClientError(Exception):
    """A request the service refuses: ``status`` (4xx) and a one-line ``message``."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass(frozen=True)
class Reading:
    """How lines are read and their numbers written: ``Punctuator.reading``'s arguments."""
    tasks: frozenset[str] = DEFAULT_TASKS
    existing: str = "keep"
    fragments: bool = False
    numbers: str = DEFAULTS.numbers


@dataclass(frozen=True)
class RestoreRequest:
    lines: list[str]
    reading: Reading
    words: bool = False  # each line as an object with its words' confidence (restored.RestoredLine)


@dataclass(frozen=True)
class StreamRequest:
    lookahead: int
    reading: Reading
    words: bool = False  # each final message with its words' confidence


def read_json(raw: bytes) -> object:
    """A body or message as JSON: 400 when it is not UTF-8 or not JSON."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ClientError(400, f"the body is not valid UTF-8 ({err.reason} at byte {err.start})") from None
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as err:
        raise ClientError(400, f"not JSON: {err.msg} at character {err.pos}") from None
    except RecursionError:
        raise ClientError(400, "not JSON this service reads: nested too deeply") from None
    except ValueError as err:  # an integer longer than int() converts
        raise ClientError(400, f"not JSON this service reads: {str(err).splitlines()[0]}") from None


def _no_constant(name: str) -> object:
    raise ClientError(400, f"not JSON: {name} is not a JSON value")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise ClientError(400, "not JSON this service reads: an object names a key twice")
    return fields


def check_text(text: object, what: str) -> str:
    """``text`` if it is a string that UTF-8 can carry (JSON's \\ud800 escapes make lone surrogates), else 422."""
    if not isinstance(text, str):
        raise ClientError(422, f"{what} must be a string, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ClientError(422, f"{what} holds a lone surrogate, which is no text") from None
    return text


def kind_of(value: object) -> str:
    """What a JSON value (or a query's text) is, in a message: 'the string "yes"', 'a list' ..."""
    if isinstance(value, str):
        return f"the string {json.dumps(value[:40])}"
    return {type(None): "null", list: "a list", dict: "an object"}.get(type(value), "a number")


def read_reading(fields: dict[str, object]) -> Reading:
    """``tasks`` / ``existing`` / ``fragments`` (a JSON boolean) / ``numbers`` of a body or a query: 422 when
    bad."""
    tasks = check_text(fields.get("tasks", format_tasks(DEFAULT_TASKS)), "tasks")
    existing = check_text(fields.get("existing", "keep"), "existing")
    numbers = check_text(fields.get("numbers", DEFAULTS.numbers), "numbers")
    fragments = read_flag(fields, "fragments")
    try:
        task_set = parse_tasks(tasks)
    except ValueError as err:
        raise ClientError(422, str(err)) from None
    if existing not in MODES:
        raise ClientError(422, f"unknown existing mode {existing!r} (one of {', '.join(MODES)})")
    if numbers not in NUMBERS:
        raise ClientError(422, f"unknown numbers mode {excerpt(numbers, 20)!r} (one of {', '.join(NUMBERS)})")
    return Reading(task_set, existing, fragments, numbers)


def read_flag(fields: dict[str, object], name: str) -> bool:
    """A boolean field (default false): 422 when it is not a JSON boolean."""
    value = fields.get(name, False)
    if not isinstance(value, bool):
        raise ClientError(422, f"{name} must be true or false (a JSON boolean), not {kind_of(value)}")
    return value


def read_restore(raw: bytes, max_lines: int) -> RestoreRequest:
    body = read_json(raw)
    if not isinstance(body, dict):
        raise ClientError(422, f"the body must be a JSON object, not {type(body).__name__}")
    unknown = sorted(set(body) - {"lines", "tasks", "existing", "fragments", "numbers", "words"})
    if unknown:
        raise ClientError(422, f"unknown field {unknown[0]!r} (fields: lines, tasks, existing, fragments, numbers, "
                               "words)")
    if "lines" not in body:
        raise ClientError(422, "the body needs 'lines': a list of strings")
    lines = body["lines"]
    if not isinstance(lines, list):
        raise ClientError(422, f"'lines' must be a list of strings, not {type(lines).__name__}")
    if len(lines) > max_lines:
        raise ClientError(413, f"{len(lines)} lines: at most {max_lines} in one request")
    for i, line in enumerate(lines):
        if "\n" in check_text(line, f"lines[{i}]") or "\r" in line:
            raise ClientError(422, f"lines[{i}] holds a line break: give each line as its own string")
    return RestoreRequest(lines, read_reading(body), read_flag(body, "words"))


def read_stream_query(query: dict[str, str], max_lookahead: int) -> StreamRequest:
    unknown = sorted(set(query) - {"lookahead", "tasks", "existing", "fragments", "numbers", "words"})
    if unknown:
        raise ClientError(422, f"unknown parameter {unknown[0]!r} (lookahead, tasks, existing, fragments, numbers, "
                               "words)")
    text = query.get("lookahead", str(DEFAULT_LOOKAHEAD))
    # The length first: int() refuses (ValueError) a text of more than 4,300 digits.
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(max_lookahead))) or int(text) > max_lookahead:
        raise ClientError(422, f"lookahead must be a whole number from 0 to {max_lookahead}, not {excerpt(text, 20)}")
    fields: dict[str, object] = dict(query)
    for name in ("fragments", "words"):  # a query's values are text
        if name in query:
            fields[name] = {"true": True, "false": False}.get(query[name], query[name])
    return StreamRequest(int(text), read_reading(fields), read_flag(fields, "words"))


def read_stream_message(text: str) -> tuple[str, object]:
    """One text frame: ("words", [word, ...]), ("end", None) or ("token", str); 400/422 when it is none."""
    message = read_json(text.encode("utf-8", "surrogatepass"))
    if not isinstance(message, dict) or len(message) != 1:
        raise ClientError(422, 'a message is one of {"words": "..."}, {"end": true}, {"token": "..."}')
    (key, value), = message.items()
    if key == "words":
        return "words", check_text(value, "words").split()
    if key == "end" and value is True:
        return "end", None
    if key == "token":
        return "token", check_text(value, "token")
    raise ClientError(422, 'a message is one of {"words": "..."}, {"end": true}, {"token": "..."}')
