"""Edges of the transcript writers that mutations of issue 58's code showed untested (issue 68): a paragraph
after a silence of exactly the pause, the transcript's language read from its words, a word without text
inside a turn."""
import io

from gector_punct.transcripts.formats import FORMATS
from gector_punct.transcripts.restored_transcript import transcript_language
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.transcripts.timed_words import TimedWord
from gector_punct.transcripts.transcript_sources import ValueSource


def text_of(words, style=None) -> str:
    out = io.StringIO()
    FORMATS["text"].write([(TimedWord(text, start, end, {}, speaker), text) for start, end, text, speaker in words],
                          out, style or SubtitleStyle())
    return out.getvalue()


def test_a_sentence_end_then_a_silence_of_exactly_the_pause_starts_a_paragraph():
    for silence, paragraphs in ((2.0, 2), (1.999, 1)):
        words = [(0.0, 0.4, "We", None), (0.5, 1.0, "left.", None), (1.0 + silence, 3.5 + silence, "Then", None)]
        assert text_of(words).count("\n\n") + 1 == paragraphs, silence
    words = [(0.0, 0.4, "We", None), (0.5, 1.0, "left", None), (5.0, 5.5, "then.", None)]
    assert text_of(words) == "We left then.\n"  # a silence inside a sentence starts none


def test_the_transcript_language_is_read_from_its_words():
    said = "nous sommes allés au marché hier matin et nous avons acheté du pain et des fromages pour le dîner"
    french = {"segments": [{"words": [{"word": w, "start": k * 0.4, "end": k * 0.4 + 0.3}
                                      for k, w in enumerate(said.split())]}]}
    assert transcript_language(ValueSource(french)) == "fr"
    english = {"segments": [{"words": [{"word": w, "start": 0.0, "end": 0.3} for w in
                                       "we went to the market yesterday morning and bought some bread".split()]}]}
    assert transcript_language(ValueSource(english)) == "en"

