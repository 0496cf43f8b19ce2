"""What a reader gets: word-timed transcripts read and restored, and written as JSON, subtitles to a style guide
or a document; subtitle files restored; the checker of subtitle files; and predict.py's command, which routes a
file to them (docs/architecture.md)."""
