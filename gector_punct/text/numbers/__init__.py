"""Spoken numbers written as an editor writes them (``--numbers digits``): ``twenty five dollars and fifty
cents`` -> ``$25.50``, ``three thirty p m`` -> ``3:30 p.m.``, ``nineteen eighty four`` -> ``1984``.

In: a restored line's written words (marks and case from the restoration) and a mode of ``NUMBERS``. Out:
``NumberSpan``s, each a run of those words and the one word that replaces them (``spans.number_spans``), which
``spans.merged`` applies to words, scored words or timed words alike. Numbers are found and classified by the
libraries of the field, never by grammars of ours: English by nemo_text_processing's inverse-normalisation
tagger (``english``, an optional install: ``NEMO_INSTALL``, asked for only where the input is English or of no
known language: ``spans.numbers_available``), French, Spanish, German and Italian by text2num (``european``);
what is ours is the house style that writes each kind, which words stay words, and which marks the restoration
put inside a number go (``spans.inside_marks``).
"""
