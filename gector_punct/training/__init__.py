"""Training: preprocessing of source/target files, the dataset reader, distillation losses, checkpoints and
the training loop (``trainer``)."""
