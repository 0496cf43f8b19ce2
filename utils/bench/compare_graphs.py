#!/usr/bin/env python
"""Issue 48, item 1: is a fused ONNX graph faster than the engine's own? Builds variants of a model folder's graph
and times the model stage alone on the same captured windows (docs/experiments/speed.md).

Variants (each then in the folder's engine precision, by onnx_export.quantize_int8's choice of products, the
fused QKV product counted with the attention's):

* ``engine``: the graph predict.py runs (``engines.graphs.graph_folder``; ONNX Runtime fuses LayerNorm, Gelu
  and SkipLayerNorm itself when it loads it);
* ``optimizer``: the same export passed through ``onnxruntime.transformers.optimizer`` (model_type bert);
* ``mha``: exported with each layer's attention as one ``com.microsoft::MultiHeadAttention`` node (the query,
  key and value projections as one product; MPNet's relative position bias as its ``attention_bias``);
* ``mha+optimizer``: both.

Timed: ``--threads`` intra-op threads; an int8 graph one window a call (as the engine runs it), float32 in
batches of 32; each variant ``--runs`` times, interleaved, best kept. With ``--threads 1`` the CPU seconds
are printed too: on a shared machine they vary by a few percent where wall seconds vary by a third.

    python utils/bench/compare_graphs.py --model_path models/default_en --out_dir /tmp/graphs --threads 1
    python utils/bench/compare_graphs.py --model_path W/layers/l4/best --variants engine --threads 1
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmark_cli import asr_lines  # noqa: E402 (utils/bench/, this script's folder)
from gector_punct.engines.base import GRAPH_FILE  # noqa: E402
from gector_punct.options.flags import FlagParser, add_flags, flag, reused  # noqa: E402
from gector_punct.prediction.settings import PredictionSettings  # noqa: E402
from gector_punct_data.script import run_script



VARIANTS = ("engine", "optimizer", "mha", "mha+optimizer")


@dataclass
class Options:
    model_path: str = flag("models/default_en", "model folder")
    variants: list[str] = flag(list(VARIANTS), "the graphs to time (engine alone: a model's own speed)",
                               choices=VARIANTS)
    out_dir: str = flag("", "folder for the variants' graphs (about 100-500 MB each)",
                        default_text="required unless --variants engine")
    threads: int = reused(PredictionSettings, "threads", default=1)
    words: int = flag(22_000, "words of ASR-like lines of 60-90 words (the example targets' words)", min=1)
    runs: int = flag(3, "timed passes per variant, interleaved; the best is kept", min=1)


def fused_attention_export():
    """A context in which ``PlainEncoder.attend`` exports one MultiHeadAttention node per layer."""
    import contextlib

    import torch

    from gector_punct.encoders import layers

    class MultiHeadAttention(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v, bias, padding, position_bias, heads, scale):
            b, n, h = q.shape
            split = lambda t: t.view(b, n, heads, h // heads).transpose(1, 2)  # noqa: E731
            q, k, v = (p + part for p, part in zip((q, k, v), bias.split(h)))
            mask = padding.bool()[:, None, None, :]
            if position_bias is not None:
                mask = position_bias.masked_fill(~mask, float("-inf"))
            out = torch.nn.functional.scaled_dot_product_attention(split(q), split(k), split(v), attn_mask=mask,
                                                                   scale=scale)
            return out.transpose(1, 2).reshape(b, n, h)

        @staticmethod
        def symbolic(g, q, k, v, bias, padding, position_bias, heads, scale):
            inputs = [q, k, v, bias, padding] + ([] if position_bias is None else [position_bias])
            out = g.op("com.microsoft::MultiHeadAttention", *inputs, num_heads_i=heads, scale_f=scale)
            out.setType(q.type())
            return out

    def attend(self, x, query, key, value, mask):
        h = x.shape[-1]
        q, k, v = torch.nn.functional.linear(x, torch.cat([query.weight, key.weight, value.weight])).split(h, -1)
        bias = torch.cat([query.bias, key.bias, value.bias])
        if hasattr(self, "position_bias"):  # MPNet: the position bias with -inf at padding keys
            padding, position_bias = torch.isfinite(mask[:, 0, 0, :]), self.position_bias(x.shape[1], x.device, x.dtype)
        else:  # BERT's additive mask as exported: 0 at real keys
            padding, position_bias = mask[:, 0, 0, :] == 0, None
        return MultiHeadAttention.apply(q, k, v, bias, padding.to(torch.int32), position_bias, self.heads,
                                        self.head_dim ** -0.5)

    @contextlib.contextmanager
    def patched():
        original = layers.PlainEncoder.attend
        layers.PlainEncoder.attend = attend
        try:
            yield
        finally:
            layers.PlainEncoder.attend = original

    return patched()


def build_variant(model_path: str, variant: str, out: str, precision: str) -> str:
    """The graph file of ``variant`` (built into ``out`` once)."""
    import contextlib

    import onnx

    from gector_punct.engines import onnx_export
    from gector_punct.model.tagger import Seq2Labels

    path = os.path.join(out, f"{variant.replace('+', '_')}-{precision}.onnx")
    if os.path.exists(path):
        return path
    model = Seq2Labels.load(model_path, light=True).eval()
    graph = path + ".float32.onnx"
    with fused_attention_export() if variant.startswith("mha") else contextlib.nullcontext():
        onnx_export.export(model, onnx_export.example_inputs(model), graph)
    if variant.endswith("optimizer"):
        from onnxruntime.transformers.optimizer import optimize_model

        s = model.encoder.config
        optimized = optimize_model(graph, model_type="bert", num_heads=s.num_attention_heads,
                                   hidden_size=s.hidden_size, opt_level=0)
        print(f"{variant}: the optimizer fused {optimized.get_fused_operator_statistics()}", flush=True)
        optimized.save_model_to_file(graph)
    if precision == "float32":
        os.replace(graph, path)
        return path
    from gector_punct.engines.int8 import quantize_products

    whole = onnx.load(graph)
    g = whole.graph
    shapes = {init.name: list(init.dims) for init in g.initializer}
    hidden, wide = model.encoder.config.hidden_size, model.encoder.config.intermediate_size
    keep = {"int8": lambda r, c: c != wide, "int8-attention": lambda r, c: r == hidden and c in (hidden, 3 * hidden)}
    products = [n.name for n in g.node if n.op_type == "MatMul" and n.name.lstrip("/").startswith(onnx_export.ENCODER_SCOPE)
                and len(shapes.get(n.input[1], [])) == 2 and keep[precision](*shapes[n.input[1]])]
    quantize_products(whole, products)  # the engine's int8 scheme (engines/int8.py)
    onnx.save(whole, path)
    os.remove(graph)
    return path


def windows_of(model_path: str, n_words: int):
    """The model's tagger (loaded as predict.py loads it: a shipped name, errors named) and the windows of
    ``n_words`` words in ASR-like lines (``benchmark_cli.asr_lines``)."""
    from gector_punct.prediction.loading import load_punctuator

    lines = [line.split() for line in asr_lines(n_words)]
    tagger = load_punctuator(PredictionSettings(model_path=model_path)).models[0]
    return tagger, tagger.text_encoder().encode_lines(lines), sum(map(len, lines))


def timed(session, windows, batch: int, inputs: list[str]) -> tuple[float, float]:
    from gector_punct.model.windows import collate_arrays

    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(0, len(windows), batch):
        arrays = collate_arrays(windows[i:i + batch])
        session.run(None, {k: arrays[k] for k in inputs})
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = FlagParser(__doc__)
    add_flags(parser, Options)
    o = Options(**vars(parser.parse_args()))
    built = [v for v in VARIANTS[1:] if v in o.variants]
    if built and not o.out_dir:
        parser.error("--out_dir: required to build " + ", ".join(built))
    from gector_punct.engines.base import new_session

    tagger, windows, n_words = windows_of(o.model_path, o.words)
    folder = os.path.dirname(tagger.meta["source"] + os.sep)  # the model folder the graph was built from
    precision = tagger.meta["precision"]
    batch = 1 if precision != "float32" else 32
    graphs = {"engine": os.path.join(tagger.graph, GRAPH_FILE)}
    if built:
        os.makedirs(o.out_dir, exist_ok=True)
        graphs |= {v: build_variant(folder, v, o.out_dir, precision) for v in built}
    sessions = {v: new_session(path, o.threads) for v, path in graphs.items()}
    first = windows[:8]
    reference = [sessions["engine"].run(None, timed_inputs(tagger, w)) for w in first]
    for v, s in sessions.items():
        diff = max(float(np.abs(a - b).max()) for w, ref in zip(first, reference)
                   for a, b in zip(s.run(None, timed_inputs(tagger, w)), ref))
        print(f"{v}: largest probability difference from the engine's graph {diff:.1e}", flush=True)
    sessions = {v: s for v, s in sessions.items() if v in o.variants}
    best = {v: (float("inf"), float("inf")) for v in sessions}
    for _ in range(o.runs):
        for v, s in sessions.items():
            wall, cpu = timed(s, windows, batch, tagger.inputs)
            best[v] = (min(best[v][0], wall), min(best[v][1], cpu))
    print(f"{o.model_path} ({precision}, {o.threads} thread(s), {len(windows)} windows, {n_words:,} words, "
          f"best of {o.runs}, load {os.getloadavg()[0]:.2f}):")
    for v, (wall, cpu) in best.items():
        cpu_text = f", {n_words / cpu:,.0f} words per CPU second" if o.threads == 1 else ""
        print(f"  {v:15s} {n_words / wall:8,.0f} words/s{cpu_text}")


def timed_inputs(tagger, window) -> dict:
    from gector_punct.model.windows import collate_arrays

    arrays = collate_arrays([window])
    return {k: arrays[k] for k in tagger.inputs}


if __name__ == "__main__":
    run_script(main)
