#!/usr/bin/env bash
# The GPU step of the shaped default model (issue 32). Run on a machine with CUDA from the repository root, with
# the bundle of utils/build/device_bundle.py in B (encoder + xz training/dev files) and the stage-2 model in INIT:
#   B=.devbundle INIT=work/default_en_1e73f5d OUT=/tmp/out bash utils/build/device_train_default.sh
# Stage A: seeds 1-3 side by side (one GPU holds them all; each reads the data on its own cores),
# configs/default_en_shaped.json from INIT (lr 1e-4, 3 epochs); their weight average (utils/build/average_models.py).
# Stage B: seeds 4-5 from that average at lr 5e-5 for 4 epochs; their average is the result.
# OUT gets each run's log and metrics and the result as avg.tgz.part-* (15 MiB pieces of a full-precision
# model folder: what comes back from a lent GPU is at most 16 MiB a file); utils/build/build_shaped_default_model.sh
# compresses and tunes it on the CPU. TRAIN_S: seconds after which a stage stops training (its best epoch so far
# is used; 0: no limit). EXTRA: more train.py flags (a CPU smoke test: --device cpu --updates_per_epoch 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-.devbundle}; INIT=${INIT:?the stage-2 model folder}; OUT=${OUT:?output folder}
EXTRA=${EXTRA:-}; TRAIN_S=${TRAIN_S:-0}; R=${R:-/tmp/shaped_runs}
mkdir -p "$OUT" "$R"
export PYTHONPATH=/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH} HF_HUB_OFFLINE=1
python3 utils/build/device_bundle.py unpack --bundle "$B" --site /tmp/site
DEV="$B/ted.dev.tagged,$B/cased.dev.tagged"
TRAIN="$B/ted_mix_shaped.train.tagged,$B/spoken_shaped.train.tagged"

stage() {  # $1: name, $2: init model, $3: seeds, then train.py flags; writes $R/$1/avg
  local name=$1 init=$2 seeds=$3 runs=()
  shift 3
  for seed in $seeds; do
    OMP_NUM_THREADS=4 timeout "$TRAIN_S" python3 train.py --config configs/default_en_shaped.json --init_model "$init" \
      --seed "$seed" --train_set "$TRAIN" --dev_set "$DEV" --model_dir "$R/$name/s$seed" --progress 0 "$@" $EXTRA \
      > "$OUT/train_${name}_s$seed.log" 2>&1 &
  done
  wait
  for seed in $seeds; do
    cp "$R/$name/s$seed/metrics.jsonl" "$OUT/metrics_${name}_s$seed.jsonl" || true
    tail -n 3 "$OUT/train_${name}_s$seed.log"
    if [ -d "$R/$name/s$seed/best" ]; then runs+=("$R/$name/s$seed/best"); fi
  done
  python3 utils/build/average_models.py --models "$(IFS=,; echo "${runs[*]}")" --output "$R/$name/avg"
}
stage A "$INIT" "1 2 3"
stage B "$R/A/avg" "4 5" --lr 5e-5 --n_epoch 4
tar -C "$R/B" -czf - avg | split -b 15M - "$OUT/avg.tgz.part-"
ls -la "$OUT"
