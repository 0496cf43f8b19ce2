"""Engines: what runs a tagger's encoder and heads at prediction (``choice``: which one; ``onnx_runtime``:
ONNX Runtime, no torch; ``onnx_export``: the graph it runs, built with torch; ``torch_engine``: eager torch)."""
