#!/usr/bin/env python
"""How many words a model writes at an int8 precision exactly as in float32, on this CPU or on an emulated one:

    python utils/report/precision_agreement.py --model_path models/default_en --input_file W/ted.dev.src
    python utils/report/precision_agreement.py --model_path models/accurate_en --input_file lines.txt \\
        --emulate_cpu Haswell        # AVX2 without VNNI, under qemu-x86_64 (Debian qemu-user)

Each precision is run as users run it, ``predict.py`` as a process (``--precision``, the folder's
``engine_precision`` by default, against ``float32``), its graph built on first use on the CPU that runs it.
``--emulate_cpu`` runs the int8 side under ``qemu-x86_64 -cpu MODEL``: the x86-64 instructions of that CPU
model only (``qemu-x86_64 -cpu help`` lists them), so ONNX Runtime picks that CPU's kernels. Emulation is
slow (a few words a second for a 12-layer encoder): give it a few dozen lines. Prints the words compared,
the share written alike, and the first lines that differ.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(kw_only=True)
class AgreementFlags(Settings):
    model_path: str = flag("models/default_en", "the model folder (or shipped model name)")
    input_file: str = flag(help="lines to restore (one utterance a line)")
    precision: str = flag("", "the precision compared with float32", default_text="the folder's engine_precision")
    emulate_cpu: str = flag("", "run the compared precision under qemu-x86_64 -cpu MODEL (e.g. Haswell: AVX2, "
                                "no VNNI)", default_text="this CPU")
    max_lines: int = flag(0, "read only the first N lines (0: all)", min=0)
    show: int = flag(5, "differing lines printed", min=0)


def restore(flags: AgreementFlags, lines_file: str, precision: str, emulate: str) -> list[str]:
    """predict.py's output lines for ``lines_file`` at ``precision`` (``""``: the folder's), under qemu when
    ``emulate`` names a CPU model."""
    command = [sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", flags.model_path,
               "--input_file", lines_file, "--output_file", "-"] + (["--precision", precision] if precision else [])
    if emulate:
        command = ["qemu-x86_64", "-cpu", emulate] + command
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        notes = [line for line in done.stderr.splitlines() if "TCG doesn't support" not in line]
        raise RuntimeError(f"{' '.join(command)} failed:\n" + "\n".join(notes[-5:]))
    return done.stdout.splitlines()


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, AgreementFlags)
    flags = p.settings(AgreementFlags, p.parse_args(argv))
    with open(flags.input_file, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    lines = lines[:flags.max_lines] if flags.max_lines else lines
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "lines.txt")
        with open(source, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        reference = restore(flags, source, "float32", "")
        compared = restore(flags, source, flags.precision, flags.emulate_cpu)
    same = words = 0
    differing = []
    for ref, out in zip(reference, compared):
        a, b = ref.split(), out.split()
        words += len(a)
        same += sum(x == y for x, y in zip(a, b))
        if a != b:
            differing.append((ref, out))
    cpu = f"emulated {flags.emulate_cpu}" if flags.emulate_cpu else "this CPU"
    print(f"{flags.model_path} at {flags.precision or 'its engine_precision'} on {cpu}: {same} of {words} words "
          f"({100 * same / max(words, 1):.1f}%) written as float32 writes them; {len(differing)} of "
          f"{len(reference)} lines differ")
    for ref, out in differing[:flags.show]:
        print(f"  float32: {ref}\n  int8:    {out}")
    return 0


if __name__ == "__main__":
    run_script(main)
