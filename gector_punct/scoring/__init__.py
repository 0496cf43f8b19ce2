"""Scoring: per-class P/R/F1 as the papers report them, evaluation of a punctuator on tagged dev lines,
the IWSLT reader and the everyday file."""
