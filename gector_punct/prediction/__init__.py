"""Prediction: ``Punctuator`` (model folders -> restored lines), the decoding policy, streams, the
overlapped pipeline, chunks of a file, subtitles and folders of files."""
