#!/usr/bin/env bash
# The GPU step of the shaped default model (issue 32), run on a machine with CUDA from the repository root with
# the bundle of utils/device_bundle.py in B (encoder + xz training/dev files); the models come back in OUT:
#   B=.devbundle OUT=/tmp/out SEEDS="1 2" bash utils/device_train_default.sh
# Per seed, in parallel: configs/default_en_shaped.json from models/default_en over the shaped TED and registry text;
# then the seeds' weight average (utils/average_models.py); the average and seed 1 in int8 low-rank storage
# (utils/compress_model.py), each a .tgz in OUT.
# TRAIN_S: seconds after which training stops (its best epoch so far is used; 0: no limit).
# EXTRA: more train.py flags (a CPU smoke test passes --device cpu --updates_per_epoch 2 --n_epoch 1).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-.devbundle}; OUT=${OUT:?output folder}; SEEDS=${SEEDS:-1}; EXTRA=${EXTRA:-}; TRAIN_S=${TRAIN_S:-0}
R=${R:-/tmp/shaped_runs}
mkdir -p "$OUT" "$R"
export PYTHONPATH=/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH} HF_HUB_OFFLINE=1
python3 utils/device_bundle.py unpack --bundle "$B" --site /tmp/site
DEV="$B/ted.dev.tagged,$B/cased.dev.tagged"
TRAIN="$B/ted_mix_shaped.train.tagged,$B/spoken_shaped.train.tagged"
for seed in $SEEDS; do  # the seeds train side by side (one GPU holds them all; each reads the data on its own cores)
  OMP_NUM_THREADS=4 timeout "$TRAIN_S" python3 train.py --config configs/default_en_shaped.json --init_model models/default_en \
    --seed "$seed" --train_set "$TRAIN" --dev_set "$DEV" --model_dir "$R/s$seed" --progress 0 $EXTRA \
    > "$OUT/train_s$seed.log" 2>&1 &
done
wait
runs=()
for seed in $SEEDS; do
  cp "$R/s$seed/metrics.jsonl" "$OUT/metrics_s$seed.jsonl" || true
  tail -4 "$OUT/train_s$seed.log"
  if [ -d "$R/s$seed/best" ]; then runs+=("$R/s$seed/best"); fi
done
compact() {  # $1: a full model folder, $2: the name of the compact one in OUT
  python3 utils/compress_model.py --model_path "$1" --output "$R/$2" --dev_set "$DEV" --lowrank_bits 8 \
    --ranks 128 160 --max_drop 0.3 --max_mb 9.9 > "$OUT/compress_$2.log" 2>&1
  tar -C "$R" -czf "$OUT/$2.tgz" "$2"
}
compact "${runs[0]}" default_en_s1 &
if [ "${#runs[@]}" -gt 1 ]; then
  python3 utils/average_models.py --models "$(IFS=,; echo "${runs[*]}")" --output "$R/avg" && compact "$R/avg" default_en_avg
fi
wait
cat "$OUT"/compress_*.log
ls -la "$OUT"
