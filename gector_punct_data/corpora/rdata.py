"""Data out of an R package without R: its lazy-load database (``data/Rdata.rdb`` + ``.rdx``) and R's binary
serialisation format ("X\\n", XDR, versions 2 and 3), as far as data sets need it.

``lazy_load(rdx_path) -> {name: value}`` (values unserialised on access through ``LazyDB.get``) and
``unserialize(data) -> value``: character vectors -> list of str (NA -> None), integer / logical / double
vectors -> lists, lists -> lists, pairlists -> dict by tag; attributes (names, class, dim) are kept in the
``attributes`` dict of the returned ``RList``. Symbols come back as ``Symbol``. Environments, closures,
byte code and external pointers are refused (ValueError): a data set does not hold them.
The .rdx is gzip-compressed serialisation of list(variables = list(NAME = c(offset, length)), references,
compressed); each .rdb blob is a 4-byte big-endian length and a zlib stream (or, for compressed = 2 or 3,
a type byte Z / 2 / X / 0 first).
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import struct
import zlib

NIL, SYM, LIST, CLO, ENV, PROM, LANG, CHAR, LGL, INT, REAL, CPLX, STR, DOT, VEC, EXPR, RAW, S4 = (
    0, 1, 2, 3, 4, 5, 6, 9, 10, 13, 14, 15, 16, 17, 19, 20, 24, 25)
ALTREP, ATTRLIST, ATTRLANG, BASEENV, EMPTYENV, NAMESPACE, PACKAGE, PERSIST = 238, 239, 240, 241, 242, 249, 248, 247
SPECIAL = {254: None, 253: "<globalenv>", 252: "<unbound>", 251: "<missing>", 250: "<basenamespace>",
           BASEENV: "<baseenv>", EMPTYENV: "<emptyenv>"}
NA_INT = -2 ** 31


class Symbol(str):
    """An R symbol (a name), as opposed to a character string."""


class RList(list):
    """An R vector or list; ``attributes`` holds its attributes by name (``names``, ``class``, ...)."""

    def __init__(self, items=(), attributes=None):
        super().__init__(items)
        self.attributes = attributes or {}


class Reader:
    def __init__(self, data: bytes):
        self.data, self.pos, self.refs = data, 0, []

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("R serialisation: unexpected end of data")
        self.pos += n
        return self.data[self.pos - n: self.pos]

    def int(self) -> int:
        return struct.unpack(">i", self.take(4))[0]

    def length(self) -> int:
        n = self.int()
        if n == -1:  # long vector: two more ints
            upper, lower = self.int(), self.int()
            n = (upper << 32) + (lower & 0xFFFFFFFF)
        return n

    def header(self) -> None:
        if self.take(2) != b"X\n":
            raise ValueError("not R's XDR serialisation (no 'X\\n' header; ASCII and native formats unsupported)")
        version = self.int()
        self.int(), self.int()  # writer's R version, oldest reader's R version
        if version == 3:
            self.take(self.int())  # native encoding name
        elif version != 2:
            raise ValueError(f"R serialisation version {version} unsupported")

    def item(self):
        flags = self.int()
        kind, has_attr, has_tag = flags & 0xFF, flags & (1 << 9), flags & (1 << 10)
        if kind in SPECIAL:
            return SPECIAL[kind]
        if kind == 255:  # reference to an earlier symbol or environment
            index = (flags >> 8) or self.int()
            return self.refs[index - 1]
        if kind in (PERSIST, NAMESPACE, PACKAGE):
            self.int()  # 0
            value = Symbol(":".join(self.item_char() for _ in range(self.int())))
            self.refs.append(value)
            return value
        if kind == SYM:
            value = Symbol(self.item())
            self.refs.append(value)
            return value
        if kind in (LIST, LANG, ATTRLIST, ATTRLANG, DOT):
            return self.pairlist(has_attr, has_tag)
        if kind == CHAR:
            return self.char(flags)
        if kind == ALTREP:
            return self.altrep()
        value = self.vector(kind)
        if has_attr:
            value.attributes = self.item()
        return value

    def item_char(self):
        return self.char(self.int())

    def char(self, flags: int):
        n = self.int()
        if n == -1:
            return None  # NA_character_
        raw = self.take(n)
        latin1 = flags & (1 << 14) and not flags & (1 << 15)  # LATIN1_MASK << 12 without UTF8
        return raw.decode("latin-1" if latin1 else "utf-8", errors="replace")

    def pairlist(self, has_attr, has_tag) -> dict:
        out = {}
        while True:
            attributes = self.item() if has_attr else None
            tag = self.item() if has_tag else None
            out[tag if tag is not None else len(out)] = self.item()
            if attributes:
                out.setdefault("__attributes__", attributes)
            flags = self.int()
            kind, has_attr, has_tag = flags & 0xFF, flags & (1 << 9), flags & (1 << 10)
            if kind == 254:
                return out
            if kind not in (LIST, LANG, ATTRLIST, ATTRLANG, DOT):
                self.pos -= 4  # a cdr that is not a pairlist cell (rare): read it as an item
                out["__cdr__"] = self.item()
                return out

    def vector(self, kind: int) -> RList:
        if kind in (STR, VEC, EXPR):
            return RList(self.item() for _ in range(self.length()))
        n = self.length()
        if kind in (INT, LGL):
            ints = struct.unpack(f">{n}i", self.take(4 * n))
            return RList(None if i == NA_INT else (bool(i) if kind == LGL else i) for i in ints)
        if kind == REAL:
            return RList(struct.unpack(f">{n}d", self.take(8 * n)))
        if kind == CPLX:
            pairs = struct.unpack(f">{2 * n}d", self.take(16 * n))
            return RList(complex(pairs[i], pairs[i + 1]) for i in range(0, 2 * n, 2))
        if kind == RAW:
            return RList(self.take(n))
        if kind in (NIL, S4):
            return RList()
        raise ValueError(f"R serialisation: SEXP type {kind} unsupported (not data)")

    def altrep(self) -> RList:
        info, state, attributes = self.item(), self.item(), self.item()
        name = info.get(0)
        if name == "compact_intseq" or name == "compact_realseq":
            n, start, step = (int(x) for x in state) if name == "compact_intseq" else state
            value = RList(start + i * step for i in range(int(n)))
        elif str(name).startswith("wrap_"):
            value = RList(state[0])
        else:
            raise ValueError(f"R serialisation: ALTREP class {name} unsupported")
        value.attributes = attributes if isinstance(attributes, dict) else {}
        return value


def unserialize(data: bytes):
    reader = Reader(data)
    reader.header()
    return reader.item()


class LazyDB:
    """An R lazy-load database: ``names()`` and ``get(name)`` (unserialised on demand)."""

    def __init__(self, rdx_path: str):
        if not rdx_path.endswith(".rdx"):
            raise ValueError(f"{rdx_path}: expected an .rdx file")
        with open(rdx_path, "rb") as f:
            raw = f.read()
        index = unserialize(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else zlib.decompress(raw[4:]))
        fields = dict(zip(index.attributes.get("names", []), index))
        self.variables = dict(zip(fields["variables"].attributes.get("names", []), fields["variables"]))
        self.compressed = fields.get("compressed", [True])[0]
        self.rdb_path = rdx_path[:-4] + ".rdb"

    def names(self) -> list:
        return list(self.variables)

    def get(self, name: str):
        offset, length = (int(x) for x in self.variables[name])
        with open(self.rdb_path, "rb") as f:
            f.seek(offset)
            blob = f.read(length)
        return unserialize(decompress_blob(blob, self.compressed))


def decompress_blob(blob: bytes, compressed) -> bytes:
    if compressed in (2, 3):
        kind, body = blob[4:5], blob[5:]
        return {b"Z": zlib.decompress, b"2": bz2.decompress, b"X": lzma.decompress, b"0": bytes}[kind](body)
    return zlib.decompress(blob[4:]) if compressed else blob[4:]
