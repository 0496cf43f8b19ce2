#!/usr/bin/env bash
# Issue 48, item 2: the default model on fewer encoder layers against the same training of all six, at equal
# updates (docs/experiments/layers.md). Each run resumes; a finished run and its report are kept.
#   bash utils/build/layer_comparison.sh W [LAYERS ...]        (default LAYERS: 4 3 6; 6 is the control)
# W: the work folder of utils/data/prepare_shaped_data.sh (made here when missing). Per N in LAYERS, the shipped
# models/default_en trained further with --encoder_layers N (its top layers cut off) on the first SHARE (default
# 8000) lines of the shuffled shaped training text, EPOCHS (default 2) epochs at --lr LR (default 5e-5), gold
# labels; then scored by utils/report/model_report.py on the dev files into W/layers/lN/report.{txt,json}.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:?work folder}
shift
LAYERS=${*:-4 3 6}
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
[ -s "$W/spoken_shaped.train.tagged" ] || bash utils/data/prepare_shaped_data.sh "$W"
D="$W/layers"
mkdir -p "$D"
[ -s "$D/train.tagged" ] || python utils/data/mix_lines.py --seed 42 --out "$D/train.tagged" \
  --files "$W/ted_mix_shaped.train.tagged" "$W/spoken_shaped.train.tagged"
head -n "${SHARE:-8000}" "$D/train.tagged" > "$D/share.tagged"
report() { bash utils/report/dev_report.sh "$1" "$2" "$W"; }  # $1: model folder, $2: JSON out
report models/default_en "$D/report_default_en.json"
for n in $LAYERS; do
  run="$D/l$n"
  python train.py --config configs/default_en_shaped.json --init_model models/default_en --encoder_layers "$n" \
    --lr "${LR:-5e-5}" --n_epoch "${EPOCHS:-2}" --train_set "$D/share.tagged" \
    --dev_set "$W/ted.dev.tagged,$W/cased.dev.tagged" --model_dir "$run" --progress 0 --resume 1 >> "$run.log" 2>&1
  report "$run/best" "$run/report.json"
done
