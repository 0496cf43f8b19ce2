"""Pretrained encoders: the build-once cache, the plain-torch BERT and MPNet that prediction runs without
transformers, the builders of the encoders that ship as pip packages, and the torch runtime settings."""
