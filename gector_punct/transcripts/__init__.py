"""What a reader gets: word-timed transcripts read (from files or from memory) and restored, and written as JSON,
subtitles to a style guide or a document through one class per format; subtitle files restored; the checker of
subtitle files (docs/architecture.md). predict.py's command (``gector_punct/cli``) routes files to them."""
