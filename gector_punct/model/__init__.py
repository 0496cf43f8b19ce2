"""The tagger: settings (``config``), label vocabularies, words -> encoder windows -> batches, the pretrained
base of a model folder, ``Seq2Labels`` (``tagger``) and its low-rank storage."""
