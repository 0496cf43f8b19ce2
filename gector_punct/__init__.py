"""gector-punct: punctuation, case and sentence boundaries for ASR output, as GECToR-style word tagging.

    from gector_punct import Punctuator
    Punctuator.load("path/to/model").predict(["so i went to new york last tuesday did you"])
"""
from .model import DecodeConfig, ModelConfig, Seq2Labels
from .predictor import Punctuator, split_sentences
from .tags import Tag, apply_tags, make_source, tags_from_pair
from .vocabulary import Vocabulary

__all__ = ["DecodeConfig", "ModelConfig", "Punctuator", "Seq2Labels", "Tag", "Vocabulary", "apply_tags", "make_source", "split_sentences",
           "tags_from_pair"]
__version__ = "0.1.0"
