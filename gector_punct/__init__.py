"""gector-punct: punctuation, case and sentence boundaries for ASR output, as GECToR-style word tagging.

    from gector_punct import Punctuator, restore_transcript
    Punctuator.load().predict(["so i went to new york last tuesday did you"])   # the shipped model
    restore_transcript(Punctuator.load(), whisperx_result).to_srt()   # a recogniser's result -> subtitles

The names below are imported on first use, so that ``gector_punct.text.tags`` and the text tools built on it
(utils/make_source.py, preprocess_data.py, evaluate.py) start without loading torch.
"""
import importlib

_HOMES = {"DecodeConfig": "model.config", "ModelConfig": "model.config", "Seq2Labels": "model.tagger",
          "Punctuator": "prediction.punctuator", "StreamingPunctuator": "prediction.streaming",
          "split_sentences": "text.sentences", "Tag": "text.tags",
          "apply_tags": "text.tags", "make_source": "text.tags", "tags_from_pair": "text.tags",
          "Vocabulary": "model.vocabulary", "parse_tasks": "text.tasks",
          "restore_transcript": "transcripts.restored_transcript",
          "RestoredTranscript": "transcripts.restored_transcript"}
__all__ = sorted(_HOMES)
__version__ = "0.1.0"


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'gector_punct' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
