"""Data for training and scoring (AllenNLP's ``data``): SOURCE + TARGET files -> tagged lines
(``preprocess``), tagged files -> instances -> encoder windows with per-head label indices (``reader``)."""
