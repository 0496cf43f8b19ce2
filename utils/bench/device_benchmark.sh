#!/usr/bin/env bash
# Per-GPU throughput of the default model through predict.py, for the capacity table of docs/scale.md. Run on a
# machine with CUDA from the repository root, with the encoder bundle of utils/build/device_bundle.py in B:
#   python utils/build/device_bundle.py pack --dest .gpubundle          # here (34 MB: fp16, int8 word embeddings)
#   B=.gpubundle OUT=/tmp/out bash utils/bench/device_benchmark.sh        # there
# Prints (and writes to OUT/benchmark.txt) utils/bench/benchmark_cli.py's figures: one predict.py process with and
# without --overlap threads against the bare encoder, then PROCESSES processes sharing the GPU (as several Ray
# actors per GPU would), each with cores/PROCESSES torch threads. DEVICE=cpu WORDS=2000 tries the script
# on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-.gpubundle}; OUT=${OUT:?output folder}; DEVICE=${DEVICE:-cuda}; WORDS=${WORDS:-1000000}
PROCESSES=${PROCESSES:-4}; BATCH=${BATCH:-512}
mkdir -p "$OUT"
export PYTHONPATH=/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH} HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
python3 utils/build/device_bundle.py unpack --bundle "$B" --site /tmp/site
{
  nproc; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || true
  for overlap in threads off; do
    python3 utils/bench/benchmark_cli.py --device "$DEVICE" --words "$WORDS" --batch_size "$BATCH" --runs 0 --overlap $overlap
  done
  OMP_NUM_THREADS=$(( $(nproc) / PROCESSES )) python3 utils/bench/benchmark_cli.py --device "$DEVICE" --words $((WORDS * 2)) \
    --batch_size "$BATCH" --runs 0 --processes "$PROCESSES"
} 2>&1 | tee "$OUT/benchmark.txt"
