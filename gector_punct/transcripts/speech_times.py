"""When each word was said, as far as a recogniser's times can tell: its times made steady before cues are
timed against them.

In: words in transcript order, ``SteadyTimes.push(start, end, text, item, speaker)`` (milliseconds; ``item``
rides along);
out: the same words, in the same order, each once, as ``(start, end, item)`` with times that

* never go back: a word starts no earlier than the one before (a run of words stamped early follows the word
  before it) and ends no earlier than it starts; one speaker says one word at a time, so a word starts no
  earlier than the end of the word before where both are that speaker's (a start stamped early);
* keep strays in place: a word stamped more than ``STRAY_MS`` later than one of the ``LOOKAHEAD`` words after
  it, which itself follows the word before (a word, or a few, 60 s late among words a second apart), is put
  back after the word before, its length kept, instead of taking every later word with it (the first word
  has no word before: it is never a stray);
* last as long as a word may: a word stamped longer than ``longest_ms(text)`` (a recogniser that gives one
  word a silence's time as well) is cut to that, at the side where speech goes on (its end where the next word
  follows sooner than the word before ended, else its start).

A word is given out once ``LOOKAHEAD`` words after it are known (``push`` returns at most one), the last ones at
``finish``.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

WORD_MS, CHAR_MS, LONGEST_MS = 600, 120, 3000  # a word lasts at most 0.6 s plus 0.12 s a character, 3 s at most
LOOKAHEAD = 8  # words read after a word before its times are settled
STRAY_MS = 1000  # a word is a stray where a word after it starts this much before it, yet after the word before


def longest_ms(text: str) -> int:
    """The longest a word of ``text`` may be said for: a drawn-out ``sooo`` fits, a word over a silence does not."""
    return min(LONGEST_MS, WORD_MS + CHAR_MS * len(text))


@dataclass
class _Held:
    start: int
    end: int
    text: str
    item: Any
    speaker: Any = None


class SteadyTimes:
    def __init__(self):
        self.held: deque[_Held] = deque()  # the newest words, the oldest waiting for the ones after it
        self.previous: tuple[int, int] | None = None  # the start and end of the word given out last
        self.speaker = None  # and its speaker

    def push(self, start: int, end: int, text: str, item: Any = None, speaker: Any = None
             ) -> list[tuple[int, int, Any]]:
        self.held.append(_Held(max(start, 0), max(end, start, 0), text, item, speaker))  # none before the recording
        return [self._given()] if len(self.held) > LOOKAHEAD else []

    def finish(self) -> list[tuple[int, int, Any]]:
        out = []
        while self.held:
            out.append(self._given())
        return out

    def _given(self) -> tuple[int, int, Any]:
        word = self.held.popleft()
        following = self.held[0] if self.held else None
        last_start, last_end = self.previous or (None, None)
        earlier = [] if last_start is None else [x.start for x in self.held
                                                 if last_start <= x.start < word.start - STRAY_MS]
        if earlier:  # a stray: words after it agree with the words before it, and it does not
            duration = min(word.end - word.start, longest_ms(word.text))
            word.start = min(earlier[0], last_end)
            word.end = word.start + duration
        if last_start is not None and word.start < last_start:
            word.start = last_start
            word.end = max(word.end, word.start)
        if last_end is not None and word.speaker is not None and word.speaker == self.speaker \
                and word.start < last_end:
            word.start = last_end  # the same speaker's words do not overlap
            word.end = max(word.end, word.start)
        self._cut(word, last_end, following)
        self.previous, self.speaker = (word.start, word.end), word.speaker
        return word.start, word.end, word.item

    @staticmethod
    def _cut(word: _Held, last_end: int | None, following: _Held | None) -> None:
        """A word stamped longer than a word is said, cut to ``longest_ms`` at the side where speech goes on."""
        longest = longest_ms(word.text)
        if word.end - word.start <= longest:
            return
        before = word.start - last_end if last_end is not None else None
        after = following.start - word.end if following is not None else None
        if after is not None and 0 <= after and (before is None or after < before):
            word.start = word.end - longest  # said just before the words that follow it
        else:
            word.end = word.start + longest
