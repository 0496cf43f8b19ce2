"""ASR-like noise on training lines: word substitutions, deletions and insertions with the labels kept aligned
(Alam et al. 2020, "Punctuation restoration using transformer models for high- and low-resource languages":
training on such noise gained 2.7 F1 on recognisers' transcripts).

In: an ``Instance`` (a tagged training line), the ``AsrNoise`` settings and the confusion table
(``confusions()``: ``lexicon/asr_confusions.txt``, written by ``utils/data/build_confusions.py``: an English
word -> the frequent words that sound like it, a phone apart at most). Out: ``noised_copy`` -> a new instance,
or None. The copy is made on the line's *written target* (``tags.written_forms``), which is edited word by
word as an editor would still accept it, and its source and tags are made again from it by the project's
own alignment (``tags.make_source``, ``tags.tags_from_pair``), so the labels are aligned by construction:

* substitution (``asr_substitution``, per word): the word becomes one that sounds like it, written with the
  original's capitals (first letter, or all of them) and marks;
* deletion (``asr_deletion``, per word): the word goes; its trailing marks move to the word before, where a
  sentence end (``sentences.ends_sentence``) wins over a pause mark; when it opened a sentence (first in the
  line, or capitalised after a sentence end) the next word takes the capital. A line's only word stays, and
  so do words with leading marks, words whose marks (or those of the word before) are not plain ``, . ? ! ; :``
  and words with, or after, an own period (``U.S.``, ``Mr.``);
* insertion (``asr_insertion``, per gap): a short function word (``INSERTED``), lower-case, goes between two
  words of which the first carries no mark.

Only a line that is its target's ASR-like source (``make_source`` of the target gives its words: no kept
disfluency, no marks or capitals in the input) and has no continuous-script unit gets a copy. A case-unknown
line (``$CASE_UNKNOWN``) stays case-unknown and takes no capitals. Everything is decided by ``random.Random``
seeded with ``asr_noise_seed`` and the line's target words (``line_seed``), never by where the line stands:
the same line with the same settings gives the same copy in any file (a share, a reshuffle), in the trainer
and in the soft-label writer alike (``soft_labels.label_file``), whose student finds a copy's labels by its
words. Whether a line gets a copy at all (``asr_noise_share``) is decided alike, by a hash of the same seed and
words (``gets_copy``). A copy whose edits changed nothing is not made. The rates are chances per word (per
gap for insertions); a word drawn for deletion that may not go stays as it is.
"""
from __future__ import annotations

import hashlib
import os
import random
from dataclasses import dataclass, replace
from functools import lru_cache

from gector_punct.options.flags import Settings, flag
from gector_punct.text.alignment import AlignmentError
from gector_punct.text.files import InputError, read_lines
from gector_punct.text.sentences import ends_sentence, ends_sentence_after, own_period
from gector_punct.text.tags import CASE_UNKNOWN, make_source, tags_from_pair, written_forms
from gector_punct.text.units import is_continuous, join_units, split_edges, split_units

CONFUSIONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "text", "lexicon",
                          "asr_confusions.txt")
# What recognisers insert: short function words heard in a pause or a slur (no filler such as "uh").
INSERTED = ("the", "a", "an", "and", "to", "of", "in", "is", "it", "that", "so")
PLAIN_MARKS = frozenset(",.?!;:")  # the trailing marks a deletion moves (no quotes, brackets, dashes)
NOISED = " (noised)"  # added to a copy's origin


@dataclass(kw_only=True)
class AsrNoise(Settings):
    asr_noise_share: float = flag(0.0, "share of the training lines that also train as one ASR-like noised copy "
                                       "(words swapped for ones that sound alike, dropped, inserted; labels kept "
                                       "aligned; English; 0: none)", min=0.0, max=1.0)
    asr_substitution: float = flag(0.05, "in a noised copy, each word's chance of being swapped for a word that "
                                         "sounds like it", min=0.0, max=1.0)
    asr_deletion: float = flag(0.02, "in a noised copy, each word's chance of being dropped", min=0.0, max=1.0)
    asr_insertion: float = flag(0.02, "in a noised copy, each gap's chance of a short function word inserted",
                                min=0.0, max=1.0)
    asr_noise_seed: int = flag(1, "seed of the noise: with the line's words it decides every edit, so the same "
                                  "line and settings give the same copy in the trainer and the labeller")

    @property
    def on(self) -> bool:
        return self.asr_noise_share > 0

    def record(self) -> dict:
        """The settings and the confusion table they read, as a manifest records them."""
        return {"share": self.asr_noise_share, "substitution": self.asr_substitution,
                "deletion": self.asr_deletion, "insertion": self.asr_insertion, "seed": self.asr_noise_seed,
                "confusions_sha256": confusions_digest()}


@lru_cache(maxsize=4)
def confusions(path: str = CONFUSIONS) -> dict[str, tuple[str, ...]]:
    """The confusion table: ``word<TAB>candidate candidate ...`` per line (``#`` lines are comments)."""
    table = {}
    for number, line in read_lines(path):
        if not line.strip() or line.startswith("#"):
            continue
        word, tab, candidates = line.rstrip("\n").partition("\t")
        if not tab or not candidates.split():
            raise InputError(f"{path}:{number}: expected word<TAB>candidates")
        table[word] = tuple(candidates.split())
    return table


@lru_cache(maxsize=4)
def confusions_digest(path: str = CONFUSIONS) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def line_seed(settings: AsrNoise, words: list[str]) -> int:
    """The line's noise seed: a hash of the settings' seed and its target words."""
    text = f"{settings.asr_noise_seed}\x1e" + "\x1f".join(words)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def gets_copy(settings: AsrNoise, words: list[str]) -> bool:
    """Whether the line is in the noised share (its own hash, apart from the edits' random stream)."""
    text = f"share\x1e{settings.asr_noise_seed}\x1e" + "\x1f".join(words)
    value = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    return value < settings.asr_noise_share * 2.0 ** 64


def noised_copy(instance, settings: AsrNoise, table: dict[str, tuple[str, ...]] | None = None):
    """The instance's noised copy (see the module), or None: a line outside the share, not ASR-like, or
    unchanged by its edits. ``table``: the confusions (default: ``confusions()``)."""
    target = target_forms(instance)
    if target is None or not gets_copy(settings, target):
        return None
    forms = noised_forms(target, settings, confusions() if table is None else table)
    if forms == target:
        return None
    text = join_units(forms)
    words = split_units(make_source(text))
    try:
        tags = tags_from_pair(words, text, cased=not any(t.case == CASE_UNKNOWN for t in instance.tags))
    except AlignmentError:
        return None  # a word the alignment reads otherwise than it was written: no copy rather than a wrong one
    return replace(instance, words=words, tags=tags, origin=instance.origin + NOISED)


def target_forms(instance) -> list[str] | None:
    """The instance's written target words when the instance is its ASR-like source, else None."""
    if any(t.deletes for t in instance.tags):
        return None
    forms = written_forms(instance.words, instance.tags)
    if any(is_continuous(ch) for form in forms for ch in form):
        return None
    if split_units(make_source(join_units(forms))) != instance.words:
        return None
    return forms


def noised_forms(forms: list[str], settings: AsrNoise, table: dict[str, tuple[str, ...]]) -> list[str]:
    """The written words after the edits, each word drawing its fate from the line's own random stream (a
    case-unknown line's words are lower-case: they pass no capital on)."""
    rng = random.Random(line_seed(settings, forms))
    out: list[str] = []
    capital_next = False
    for k, form in enumerate(forms):
        fate, gap = rng.random(), rng.random()
        if fate < settings.asr_deletion:
            if deletable(form, out, last=k == len(forms) - 1):
                capital_next |= opens_sentence_here(form, out)
                if out:
                    out[-1] = with_marks_of(out[-1], form)
                continue
        elif fate < settings.asr_deletion + settings.asr_substitution:
            form = substituted(form, table, rng)
        if capital_next:
            form, capital_next = capitalised(form), False
        out.append(form)
        if gap < settings.asr_insertion and k < len(forms) - 1 and not split_edges(form)[2]:
            out.append(INSERTED[rng.randrange(len(INSERTED))])
    return out


def deletable(form: str, out: list[str], last: bool) -> bool:
    """Whether a recogniser's deletion of the word leaves a text an editor accepts (see the module)."""
    lead, core, trail = split_edges(form)
    if lead or not core or (last and not out) or own_period(core, trail) or not set(trail) <= PLAIN_MARKS:
        return False
    if not out:
        return True
    _, before, before_trail = split_edges(out[-1])
    return set(before_trail) <= PLAIN_MARKS and not own_period(before, before_trail)


def opens_sentence_here(form: str, out: list[str]) -> bool:
    """Whether the word opened a sentence: capitalised, first in the line or after a sentence end."""
    first = next((ch for ch in form if ch.isalpha()), "")
    return first.isupper() and (not out or ends_sentence_after(out[-1], form))


def with_marks_of(before: str, deleted: str) -> str:
    """The word before a deleted one, with the stronger of their trailing marks (a sentence end wins)."""
    lead, core, trail = split_edges(before)
    moved = split_edges(deleted)[2]
    if moved and (not trail or (ends_sentence(moved) and not ends_sentence(trail))):
        trail = moved
    return lead + core + trail


def substituted(form: str, table: dict[str, tuple[str, ...]], rng: random.Random) -> str:
    """The word swapped for one that sounds like it, with the original's capitals and marks (or as it was)."""
    lead, core, trail = split_edges(form)
    candidates = table.get(core.lower())
    if not candidates:
        return form
    new = candidates[rng.randrange(len(candidates))]
    if len(core) > 1 and core.isupper():
        new = new.upper()
    elif core[:1].isupper():
        new = new[:1].upper() + new[1:]
    return lead + new + trail


def capitalised(form: str) -> str:
    lead, core, trail = split_edges(form)
    return lead + core[:1].upper() + core[1:] + trail
