"""A subtitle style guide's limits: the one home of every figure the cue builder keeps and the checker checks.

``SubtitleStyle`` holds them as settings fields (each one a flag of ``predict.py`` and of
``utils/check_subtitles.py``); the defaults are Netflix's English rules (``docs/subtitles.md``): at most 2
lines of 42 characters, 20 characters a second, from 5/6 s to 7 s a cue, 2 frames at 24 fps between cues
(gaps of up to 12 frames closed to 2, as Netflix's timing guidelines chain them), up to half a second (12
frames) shown past the end of speech, a cue's in-time within 3 frames of its first word's speech (Netflix's QC
tolerance), and no cue across a pause of 2 s. Times are whole milliseconds, as SubRip and WebVTT write them:
``*_ms`` give each limit so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from gector_punct.options.flags import Settings, flag
from gector_punct.transcripts.backchannels import BACKCHANNEL_MODES


@dataclass(kw_only=True)
class SubtitleStyle(Settings):
    line_chars: int = flag(42, "characters a subtitle line holds at most", min=1)
    max_lines: int = flag(2, "lines a cue holds at most", min=1)
    max_cps: float = flag(20.0, "reading speed: characters a second at most, spaces counted (17 for "
                                "children's programmes)", above=0)
    min_duration: float = flag(5 / 6, "seconds a cue is shown at least", min=0, default_text="0.833 (20 frames)")
    max_duration: float = flag(7.0, "seconds a cue is shown at most", above=0)
    fps: float = flag(24.0, "frames a second of the video: the gaps between cues are counted in its frames",
                      above=0)
    gap_frames: int = flag(2, "frames between two cues at least", min=0)
    close_frames: int = flag(12, "a gap of at most this many frames is closed to --gap_frames (the next cue "
                                 "follows at once; Netflix chains gaps of 12 frames or fewer)", min=0)
    sync_frames: int = flag(3, "a cue starts within this many frames of its first word's speech (Netflix's QC "
                               "tolerance): a cue before that needs more time ends rather than delay it", min=0)
    linger: float = flag(0.5, "seconds a cue may stay on screen after its words are said", min=0)
    pause: float = flag(2.0, "a silence of this many seconds ends a cue, and a paragraph of --format text "
                             "after a sentence end", above=0)
    backchannels: str = flag("keep", "a listener's short turn said over another speaker's sentence (mm-hmm, right): "
                                     "keep: a dialogue line or a short cue after that sentence ends (left out of "
                                     "subtitles when it ends over --max_duration later), inside its paragraph in "
                                     "--format text; drop: left out of both (JSON keeps every word)",
                             choices=BACKCHANNEL_MODES)

    def __post_init__(self):
        super().__post_init__()
        if self.min_duration > self.max_duration:
            raise ValueError(f"min_duration: must be at most max_duration ({self.max_duration}), "
                             f"not {self.min_duration}")

    @property
    def gap_ms(self) -> int:
        """The shortest gap between cues in milliseconds, rounded up (2 frames at 24 fps: 84)."""
        return math.ceil(self.gap_frames * 1000 / self.fps - 1e-9)

    @property
    def close_ms(self) -> int:
        return math.floor(self.close_frames * 1000 / self.fps + 1e-9)

    @property
    def sync_ms(self) -> int:
        """How far a cue's in-time may stand from its first word's start, in milliseconds (3 frames: 125)."""
        return math.floor(self.sync_frames * 1000 / self.fps + 1e-9)

    @property
    def min_ms(self) -> int:
        return math.ceil(self.min_duration * 1000 - 1e-9)

    @property
    def max_ms(self) -> int:
        return math.floor(self.max_duration * 1000 + 1e-9)

    @property
    def linger_ms(self) -> int:
        return round(self.linger * 1000)

    @property
    def pause_ms(self) -> int:
        return round(self.pause * 1000)

    def reading_ms(self, chars: int) -> int:
        """The milliseconds ``chars`` characters need at ``max_cps``."""
        return math.ceil(chars * 1000 / self.max_cps - 1e-9)


def reading_chars(lines) -> int:
    """The characters a reader reads in a cue: its lines' characters, spaces and dashes included, line breaks
    not."""
    return sum(len(line) for line in lines)
