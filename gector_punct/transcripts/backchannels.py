"""Backchannels: a listener's short turn said over, or between the words of, another speaker's sentence
(``mm-hmm``, ``right``, ``wow``). It neither closes nor splits that sentence, its paragraph or its cue.

``marked_backchannels(segments)``: in, a transcript's segments in order (``timed_words.Segment``); out, the same
segments, each word's ``speaker`` carried over from the word before where it has none inside a diarised
transcript (a word the diariser left unlabelled belongs to the turn it is in; after a short turn that may be a
backchannel, to the side of the two that is not saying a listener's token), and ``backchannel`` set on the
words of each short turn that is one: at most ``WORDS`` words said within ``SECONDS``, between two words of one
other speaker that follow each other within ``PAUSE`` (the other speaker keeps the floor), and either said over
that speaker's words (it starts before the word before it ends, or ends after the word after it starts) or made
of a listener's tokens alone (``speech.BACKCHANNELS``, ``BACKCHANNEL_PHRASES``); where the word that ends such a
turn is itself a listener's token and the turn is not, that word is the likelier backchannel. Segments are held
while a turn may still be one (a few words at most).

``placed(words, mode, within_ms)``: in, written words ``(TimedWord, text)`` in transcript order; out, the words
as the subtitle and text writers show them: under ``drop`` without the backchannels; under ``keep`` each
backchannel moved to where the sentence it interrupts ends (before the next sentence, turn or end), so that it
can stand as a dialogue line or a short cue of its own after that sentence; with ``within_ms`` (subtitles) one
whose sentence ends later than that after it was said is left out (``not at all``: a cue that late would
mislead). ``BACKCHANNEL_MODES``: the modes.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from gector_punct.text.sentences import ends_sentence_after
from gector_punct.text.speech import BACKCHANNEL_PHRASES, BACKCHANNELS
from gector_punct.text.units import split_edges
from gector_punct.transcripts.timed_words import Segment, TimedWord

BACKCHANNEL_MODES = ("keep", "drop")
WORDS, SECONDS, PAUSE = 3, 2.0, 2.0  # a backchannel's most words and length; the other speaker's longest gap


def is_listener_token(text: str) -> bool:
    """Whether a word as recognised is a listener's token (``mm-hmm``, ``Right``, ``okay,``)."""
    return split_edges(text)[1].lower() in BACKCHANNELS


def said_by_a_listener(texts: list[str]) -> bool:
    """Whether words as recognised are a listener's tokens alone: each one, or together one phrase (``I see``,
    ``of course``)."""
    cores = tuple(split_edges(text)[1].lower() for text in texts)
    return bool(cores) and (all(core in BACKCHANNELS for core in cores) or cores in BACKCHANNEL_PHRASES)


class _Marker:
    """The state of ``marked_backchannels``: the speaker carried, the word before, the turn that may be one."""

    def __init__(self):
        self.carried: str | None = None  # the speaker of the newest word that had one
        self.previous: TimedWord | None = None  # the newest word with text that is in a turn (no backchannel)
        self.anchor: TimedWord | None = None  # the other speaker's word before the open turn
        self.run: list[TimedWord] = []  # the open turn's words
        self.unlabelled: list[TimedWord] = []  # words without a speaker met while a turn was open
        self.last: TimedWord | None = None  # the newest word with text and a speaker

    @property
    def open(self) -> bool:
        return bool(self.run or self.unlabelled)

    def add(self, word: TimedWord) -> None:
        """``word`` read: a word without a speaker takes the one before, or while a turn may be a backchannel
        waits for the word after and takes the speaker of the two who is not saying a listener's token
        (``8th`` between ``mm-hmm`` and ``district``; ``an`` between ``have`` and ``okay``)."""
        if word.speaker is None and self.run:
            self.unlabelled.append(word)
            return
        if word.speaker is None:
            word.speaker = self.carried
        waiting, self.unlabelled = self.unlabelled, []
        before = self.last
        if waiting and before is not None and before.speaker != word.speaker and not (
                is_listener_token(before.text) and not is_listener_token(word.text)):
            speaker = before.speaker
        else:
            speaker = word.speaker
        for w in waiting:
            w.speaker = speaker
            self._labelled(w)
        self._labelled(word)

    def finish(self) -> None:
        for w in self.unlabelled:  # the transcript's last words: the speaker before
            w.speaker = self.carried

    def _labelled(self, word: TimedWord) -> None:
        self.carried = word.speaker
        if not word.text:
            return
        self.last = word
        if self.run:
            self._continue(word)
            if word.backchannel or self.run:  # (a turn still open: word is in it)
                return
        if self.previous is not None and None not in (word.speaker, self.previous.speaker) \
                and word.speaker != self.previous.speaker:
            self.run, self.anchor = [word], self.previous
            return
        self.previous = word

    def _continue(self, word: TimedWord) -> None:
        """The open turn grows by ``word``, or ends: as a backchannel where ``word`` is the anchor's speaker's
        (the word before stays the anchor: that speaker's turn goes on), else as a turn (its last word is the
        word before)."""
        if word.speaker == self.run[0].speaker:
            self.run.append(word)
            if len(self.run) > WORDS or word.end - self.run[0].start > SECONDS:
                self.previous, self.run = word, []
            return
        anchor, run = self.anchor, self.run
        self.previous, self.run = run[-1], []
        if word.speaker != anchor.speaker or word.start - anchor.end >= PAUSE:
            return
        listener = said_by_a_listener([w.text for w in run])
        if not listener and is_listener_token(word.text):
            return  # the word that ends it is likelier the listener's: "and I" (A) "okay" (B) "promised" (A)
        if listener or run[0].start < anchor.end or run[-1].end > word.start:  # a listener's, or said over
            for w in run:
                w.backchannel = True
            self.previous = anchor


def marked_backchannels(segments: Iterable[Segment]) -> Iterator[Segment]:
    marker, held = _Marker(), []
    for segment in segments:
        for word in segment.words:
            marker.add(word)
        held.append(segment)
        if not marker.open:
            yield from held
            held = []
    marker.finish()
    yield from held


def placed(words: Iterable[tuple[TimedWord, str]], mode: str,
           within_ms: int | None = None) -> Iterator[tuple[TimedWord, str]]:
    if mode not in BACKCHANNEL_MODES:
        raise ValueError(f"unknown backchannels mode {mode!r} (one of {', '.join(BACKCHANNEL_MODES)})")
    waiting: list[tuple[TimedWord, str]] = []  # backchannels held until their sentence ends
    last: tuple[TimedWord, str] | None = None  # the newest word of the other speakers

    def released(at: float | None) -> list[tuple[TimedWord, str]]:
        nonlocal waiting
        out = [(w, t) for w, t in waiting
               if within_ms is None or at is None or (at - w.start) * 1000 <= within_ms]
        waiting = []
        return out

    for word, text in words:
        if word.backchannel:
            if mode == "keep":
                waiting.append((word, text))
            continue
        if waiting and last is not None and (word.speaker != last[0].speaker or ends_sentence_after(last[1], text)):
            yield from released(last[0].end)
        yield word, text
        last = (word, text)
    yield from released(None if last is None else last[0].end)
