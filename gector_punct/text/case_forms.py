"""Case forms: how a word is written when it is not lower-case, learnt from cased training text.

The case head decides *whether* a word is lower-case; this lexicon decides *how* it is written when it is
not. A tagger that reads lower-case ASR words sees ``iphone`` and ``okay`` as bare subwords and guesses the
shape of their capitals (``Iphone``, ``OKAY``); a cased corpus says how people write them (``iPhone``,
``Okay``). Model card 002 predicts casing per character for the same reason.

In: target lines of cased text (``CaseForms.count``). Out: ``case_forms.tsv.gz`` (gzipped text) in a model
folder, one line per word: ``form<TAB>share``, where ``form`` is the word's commonest written form away
from a sentence start among those that are not lower-case (``Capitalised`` when it never is; its lower-case
is the word), and ``share`` (0-100) how often it is not lower-case there. Only positions that are not a
sentence start count (``sentences.ends_sentence_after``: after ``Mr.`` none starts): a capital there says
nothing about the word.

Rule (``apply``), for each word that arrives all lower-case and that the tags write with any capital:
inside a sentence it becomes ``form``; at a sentence start it becomes ``form`` when the word is mostly
written that way (share >= 50: ``IBM``; its first letter upper-case, ``IPhone``: a sentence still starts
with a capital), else it is just capitalised (``Okay``). A word written with a capital at least 99% of
the time (``I``, ``IBM``) takes its form even where the tags leave it lower-case. A word the lexicon does
not know keeps the tagger's decision; a dotted acronym (``$ACRONYM``) is left alone unless the word is listed.

One written form per line: a word of the lexicon that the tags write with capitals more than once in a line is
written the same way every time, as most of those occurrences inside a sentence were (``ACME`` twelve times
and ``A.C.M.E.`` three times: ``ACME`` fifteen times); whether it takes capitals stays each occurrence's
decision (``the president``, ``President Obama``).

Every lexicon also holds the package's ``lexicon/written_forms.txt`` (brands with inner capitals and
initialisms said as letters: ``iPhone``, ``YouTube``, ``PDF``, ``OK``; names that are no ordinary word:
``Siri``, ``Celsius``), always applied and taking precedence over a model's counts and over a dotted
acronym, so that such a word is written the same way in every line and by every model; its lower-case rows
are common nouns that the models capitalise where an editor does not (``stroma``): written lower-case
inside a sentence. A form that begins lower-case (``iPhone``, ``eBay``) keeps it at a sentence start too.
``lexicon/app_names.txt`` lists apps whose names are also words (``Slack``, ``Zoom``): written as the name
where the word before says an app is used (``on slack``, ``via zoom``: ``APP_BEFORE``) or the word after is
one of an app's things (``slack channel``, ``zoom call``: ``APP_AFTER``), lower-case elsewhere as decided
(``cut me some slack``). ``may``, ``march`` and ``august`` are the month where a time is meant (``in may``,
``march third``: ``CONTEXT_MONTHS``), as decided elsewhere (``you may``, ``we march``). ``lexicon/names.txt``
lists names of several ordinary words (``French Revolution``, ``White House``): where its words arrive
lower-case one after the other, each is written as the name writes it (a lower-case one, ``of`` in ``Statue of
Liberty``, stays so inside a sentence).
"""
from __future__ import annotations

import gzip
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, replace

from gector_punct.text.files import atomic_write
from gector_punct.text.sentences import ends_sentence_after
from gector_punct.text.speech import NUMBER_WORDS
from gector_punct.text.tags import KEEP, LOWER, Tag, capitalize, case_tag
from gector_punct.text.units import split_edges, split_units, starts_lower

FILE_NAME = "case_forms.tsv.gz"  # gzipped: shipped model folders stay under 10 MiB
NAME_SHARE = 50  # at or above: the form is the word's own (a name), also at a sentence start
ALWAYS_SHARE = 99  # at or above: written so even where the tagger leaves it lower-case (I, I'm, York)
WRITTEN_FORMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lexicon", "written_forms.txt")
APP_NAMES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lexicon", "app_names.txt")
NAMES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lexicon", "names.txt")
APP_BEFORE = frozenset("on in via over through into using from".split())
APP_AFTER = frozenset("""channel channels chat message messages call calls meeting meetings workspace thread app account
link invite file files sheet spreadsheet inbox""".split())
# Months whose names are also ordinary words (may, march, august): the month where the word before says a time
# is meant (in may, since march, early august) or a day's ordinal follows (march third); as decided elsewhere.
CONTEXT_MONTHS = {"may": "May", "march": "March", "august": "August"}
MONTH_BEFORE = frozenset("in of since until till from by early late mid during through".split())
ORDINALS = frozenset(w for w in NUMBER_WORDS if w.endswith("th") or w in ("first", "second", "third"))


@dataclass(frozen=True)
class CaseForm:
    form: str
    share: int  # percent of its (not sentence-initial) occurrences that are not lower-case
    listed: bool = False  # from lexicon/written_forms.txt: written so over a dotted acronym too


class CaseForms:
    """``CaseForms.count(lines)`` -> lexicon; ``save(folder)`` / ``load(folder)`` (None without a file);
    ``apply(words, tags) -> tags``."""

    def __init__(self, forms: dict[str, CaseForm], apps: dict[str, str] | None = None,
                 names: dict[tuple[str, ...], tuple[str, ...]] | None = None):
        self.forms = forms
        self.apps = listed_apps() if apps is None else apps  # lower-case word -> the app's name
        self.names = listed_names() if names is None else names  # lower-case words -> the name's words
        self._names_from: dict[str, list[tuple[str, ...]]] = defaultdict(list)  # first word -> keys, longest first
        for key in sorted(self.names, key=len, reverse=True):
            self._names_from[key[0]].append(key)

    @classmethod
    def count(cls, lines, min_count: int = 5) -> CaseForms:
        """Cased target lines -> the forms of every word seen ``min_count`` times inside a sentence."""
        seen: dict[str, Counter] = defaultdict(Counter)
        for line in lines:
            if line.upper() == line:  # a shouted or headline line says nothing about case
                continue
            previous = None  # the unit before (None: the line's first unit)
            for unit in split_units(line):
                core = split_edges(unit)[1]
                if previous is not None and not ends_sentence_after(previous, unit) and _is_word(core):
                    seen[core.lower()][core] += 1
                previous = unit
        forms = {}
        for key, counts in seen.items():
            total = sum(counts.values())
            if total < min_count:
                continue
            capitals = [(n, form) for form, n in counts.items() if form != key]
            form = max(capitals)[1] if capitals else capitalize(key)  # the commonest; ties: the last by name
            forms[key] = CaseForm(form, round(100 * sum(n for n, _ in capitals) / total))
        return cls(forms)

    def apply(self, words: list[str], tags: list[Tag], closes: bool = False) -> list[Tag]:
        """The tags with each word's case written as the module docstring says. ``closes``: the line is a
        whole utterance, so a dotted acronym ending it ended a sentence with its period (kept as a mark when
        a listed form takes its dots away: ``hr`` -> ``H.R.`` -> ``HR.``)."""
        kept = [k for k, t in enumerate(tags) if not t.deletes]
        cores = {k: split_edges(words[k])[1] for k in kept}
        out, starts = list(tags), {}
        for i, k in enumerate(kept):
            tag, core = tags[k], cores[k]
            starts[k] = i == 0 or ends_sentence_after(tags[kept[i - 1]].apply(words[kept[i - 1]]))
            known = self._known(core, cores.get(kept[i - 1]) if i else None,
                                cores.get(kept[i + 1]) if i + 1 < len(kept) else None)
            written = split_edges(tag.apply(words[k]))[1]
            always = known is not None and known.share >= ALWAYS_SHARE and tag.case in (KEEP, LOWER)
            if known is not None and (not tag.acronym or known.listed) and (written != written.lower() or always):
                form = known.form if not starts[k] or known.share >= NAME_SHARE else capitalize(core)
                form = form if not starts[k] or _brand_case(form) else form[:1].upper() + form[1:]
                out[k] = replace(tag, case=case_tag(core, form), acronym=False)
                if tag.acronym and closes and not tag.append and i == len(kept) - 1:
                    out[k] = replace(out[k], append=".")
        return self._one_form_per_line(words, self._write_names(kept, cores, out, starts), cores, starts)

    def _write_names(self, kept: list[int], cores: dict[int, str], tags: list[Tag],
                     starts: dict[int, bool]) -> list[Tag]:
        """The tags with each listed name of several words (``lexicon/names.txt``) whose words arrive lower-case
        one after the other written as the name writes them (a lower-case word of it capitalised at a
        sentence start); the longest name first where two begin at one word."""
        out, i = list(tags), 0
        while i < len(kept):
            keys = self._names_from.get(cores[kept[i]])  # most words begin no name: nothing more to read
            following = tuple(cores[k] for k in kept[i:i + MAX_NAME_WORDS]) if keys else ()
            key = next((key for key in keys if following[:len(key)] == key), None) if keys else None
            if key is None:
                i += 1
                continue
            for k, form in zip(kept[i:i + len(key)], self.names[key]):
                form = capitalize(form) if starts[k] and form == form.lower() else form
                out[k] = replace(tags[k], case=case_tag(cores[k], form), acronym=False)
            i += len(key)
        return out

    def _known(self, core: str, before: str | None, after: str | None) -> CaseForm | None:
        """The word's form: an app's name or a month where its neighbours say so (module docstring), else the
        lexicon's (only an all-lower-case word is a key)."""
        before, after = (before or "").lower(), (after or "").lower()
        name = self.apps.get(core)
        if name and (before in APP_BEFORE or after in APP_AFTER):
            return CaseForm(name, 100, listed=True)
        month = CONTEXT_MONTHS.get(core)
        if month and (before in MONTH_BEFORE or after in ORDINALS):
            return CaseForm(month, 100, listed=True)
        return self.forms.get(core)

    def _one_form_per_line(self, words: list[str], tags: list[Tag], cores: dict[int, str],
                           starts: dict[int, bool]) -> list[Tag]:
        """Each word of the lexicon that the tags write with capitals more than once in a line, written each
        time as most of those occurrences inside a sentence were (dotted or not, its form; ties: the first so
        written). Whether it has capitals at all stays each occurrence's decision (``the president`` and
        ``President Obama``)."""
        places: dict[str, list[int]] = defaultdict(list)
        for k, core in cores.items():
            if core in self.forms and not starts_lower(tags[k].apply(words[k])):
                places[core].append(k)
        out = list(tags)
        for core, ks in places.items():
            inside = [(tags[k].case, tags[k].acronym) for k in ks if not starts[k]]
            if len(ks) < 2 or not inside:
                continue
            case, acronym = Counter(inside).most_common(1)[0][0]
            for k in ks:
                out[k] = replace(tags[k], case=case, acronym=acronym)
        return out

    def save(self, folder: str) -> None:
        rows = [f"{f.form}\t{f.share}\n" for _, f in sorted(self.forms.items())]
        with atomic_write(os.path.join(folder, FILE_NAME), "wb") as f:
            f.write(gzip.compress("".join(rows).encode("utf-8"), mtime=0))

    @classmethod
    def load(cls, folder: str) -> CaseForms:
        """The folder's ``case_forms.tsv.gz`` (none: an empty lexicon) with the written forms on top."""
        path = os.path.join(folder, FILE_NAME)
        forms = cls._read(path) if os.path.exists(path) else {}
        forms.update(listed_forms())
        return cls(forms)

    @staticmethod
    def _read(path: str) -> dict[str, CaseForm]:
        forms = {}
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for n, row in enumerate(f, 1):
                parts = row.rstrip("\n").split("\t")
                if len(parts) != 2 or not parts[1].isdigit() or not _is_word(parts[0]):
                    raise ValueError(f"{path}:{n}: expected 'Form<TAB>share (0-100)', got {row.rstrip()!r}")
                forms[parts[0].lower()] = CaseForm(parts[0], int(parts[1]))
        return forms


def _rows(path: str) -> list[str]:
    """A lexicon file's rows: one word each, ``#`` comments and blank lines skipped."""
    with open(path, encoding="utf-8") as f:
        rows = [row.strip() for row in f if row.strip() and not row.startswith("#")]
    for row in rows:
        if not _is_word(row) or len(row.split()) != 1:
            raise ValueError(f"{path}: {row!r} is not a written form (one word)")
    return rows


def listed_forms(path: str = WRITTEN_FORMS) -> dict[str, CaseForm]:
    """The package's always-applied forms (module docstring): lower-case word -> its form, listed, at share
    100 (a form with a capital) or 0 (a lower-case common noun)."""
    return {row.lower(): CaseForm(row, 0 if row == row.lower() else 100, listed=True) for row in _rows(path)}


def listed_apps(path: str = APP_NAMES) -> dict[str, str]:
    """The apps whose names are also words (module docstring): lower-case word -> the name."""
    rows = _rows(path)
    for row in rows:
        if row == row.lower():
            raise ValueError(f"{path}: {row!r} is not a name (it has no capital)")
    return {row.lower(): row for row in rows}


MAX_NAME_WORDS = 4


def listed_names(path: str = NAMES) -> dict[tuple[str, ...], tuple[str, ...]]:
    """The names of several words (module docstring): their lower-case words -> the name's words."""
    with open(path, encoding="utf-8") as f:
        rows = [row.split() for row in f if row.strip() and not row.startswith("#")]
    for row in rows:
        if not 1 < len(row) <= MAX_NAME_WORDS or not all(_is_word(w) for w in row):
            raise ValueError(f"{path}: {' '.join(row)!r} is not a name of 2 to {MAX_NAME_WORDS} words")
    return {tuple(w.lower() for w in row): tuple(row) for row in rows}


def _brand_case(form: str) -> bool:
    """A form that starts lower-case on purpose (iPhone, eBay): it does so at a sentence start too."""
    return form[:1].islower()


def _is_word(core: str) -> bool:
    """A word whose case means something: it has a letter, and lower-casing keeps its length."""
    return any(c.isalpha() for c in core) and len(core.lower()) == len(core)
