"""Audio (UniPunc): audio files and lists -> waves, waves -> acoustic embeddings, the coordinate
bootstrapper, and per-line audio -> acoustic tensors of encoder-window batches."""
