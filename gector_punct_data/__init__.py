"""gector-punct's data building and experiments: everything that makes training data or runs a study, apart
from the runtime package ``gector_punct`` that predicts.

``corpora``: the corpus readers, cleaning and source registries of the training-data builders
(utils/prepare_*_data.py, shape_data.py, tsv_to_text.py, disfluency_stats.py). ``conversion``: disfluency
deletion and punctuation, alone or chained (utils/report/evaluate_switching.py). Imports flow one way: this package
imports ``gector_punct``; ``gector_punct`` never imports this one (tests/test_layout.py checks it).
"""
