#!/usr/bin/env python
"""Export a text model's forward pass to ONNX, for ``predict.py --onnx`` (onnxruntime on the CPU).

    python utils/export_onnx.py                               # the shipped model -> models/default_en/model.onnx
    python utils/export_onnx.py --model_path runs/m/best --output /tmp/m.onnx

The graph holds the full encoder in float32 (about 90 MB for MiniLM-L6), so it is written beside the model
and not tracked by git. After writing, the script runs PyTorch and onnxruntime on the same batches of
example text and prints the largest difference between their probabilities.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torch  # noqa: E402

from gector_punct.encoding import TextEncoder, WindowedBatcher  # noqa: E402
from gector_punct.model import Seq2Labels  # noqa: E402
from gector_punct.onnx_backend import OUTPUTS, OnnxTagger, export_onnx, onnx_file  # noqa: E402
from gector_punct.tags import make_source  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example_batches(model: Seq2Labels) -> list[dict]:
    """The example targets as lower-case word lines, in windows and batches as predict.py makes them."""
    with open(os.path.join(ROOT, "examples", "train.tgt"), encoding="utf-8") as f:
        lines = [make_source(line).split() for line in f if line.strip()]
    encoder = TextEncoder(model.tokenizer, model.config.get("max_len", 128), model.config.get("pieces_per_token", 5))
    windows = encoder.encode_lines(lines)
    return [batch for _, batch in WindowedBatcher(windows, 16, pad_id=model.tokenizer.pad_token_id or 0)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model_path", default=os.path.join(ROOT, "models", "default_en"), help="model folder (default: shipped model)")
    p.add_argument("--output", default=None, help="where to write the graph (default: MODEL_PATH/model.onnx, where predict.py --onnx looks)")
    args = p.parse_args(argv)
    model = Seq2Labels.load(args.model_path)
    batches = example_batches(model)
    output = args.output or onnx_file(args.model_path)
    export_onnx(model, output, batches[0])
    runner, worst = OnnxTagger(output), 0.0
    with torch.inference_mode():
        for batch in batches:
            expected = model(**batch)
            got = runner(**batch)
            mask = batch["word_mask"]
            worst = max([worst] + [(expected[k] - got[k]).abs()[mask].max().item() for k in OUTPUTS])
    print(f"wrote {output} ({os.path.getsize(output) / 2**20:.1f} MB); largest probability difference "
          f"from PyTorch over {len(batches)} batches: {worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
