#!/usr/bin/env bash
# Distil models/ensemble_en (the teacher) into the default model's MiniLM (the student), on these CPUs
# (issue 42). Each step resumes: a finished step's output is kept, a labelling run redoes no finished shard,
# a training run continues from its last/ checkpoint.
#   bash utils/build/build_distilled_default.sh [W] [SHARE_LINES ...]
# 1. the shaped training text (utils/data/prepare_shaped_data.sh), both files in one shuffled file (seed 42), so
#    that its first N lines are a share of every source;
# 2. the teacher's soft labels of it (utils/data/label_teacher.py: about 550 words/s on 2 cores, about 3 minutes
#    a shard of 2,000 lines, 31 shards); the teacher is ensemble_en as it was before stage 4 shipped:
#    accurate_en with stage 3's default_en (models/default_en at commit 146f54a, also the student's start);
# 3. per share (default 8000 lines, about 480,000 words), stage 3's default model trained further on the
#    share twice: with the soft labels (--soft_labels, weight 0.5) and, the control, on the gold labels alone;
#    both scored on the dev files (utils/report/model_report.py), so what the teacher adds is the difference;
# 4. with FINAL=1: the student on the whole labelled file and the template lines (utils/data/speech_templates.py:
#    spoken numbers, codes, addresses and names at sentence ends), EPOCHS (default 2) passes' worth of updates
#    in stretches of 200 (each a fresh random sample of 12,800 lines, about 25 minutes here), dev-scored and
#    checkpointed after each, so that a killed run loses little: FINAL=1 bash utils/build/build_distilled_default.sh W;
# 5. with SHIP=1: the first share's soft-label student (or SHIP_FROM, a model folder: W/distill/final/best for
#    step 4's) becomes models/default_en: rank-128 int8
#    storage, stage 3's case forms, `!` kept at 0.95 or more, decoding tuned on the dev files, the ONNX
#    precision chosen (utils/report/choose_precision.py); the card (README.md) stays: SHIP=1 bash ... W 8000
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-work/distill}
shift || true
SHARES=${*:-8000}
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
[ -s "$W/spoken_shaped.train.tagged" ] || bash utils/data/prepare_shaped_data.sh "$W"
D="$W/distill"
mkdir -p "$D"
[ -s "$D/train.tagged" ] || python utils/data/mix_lines.py --seed 42 --out "$D/train.tagged" \
  --files "$W/ted_mix_shaped.train.tagged" "$W/spoken_shaped.train.tagged"
STAGE3="$W/default_en_stage3"
bash utils/build/model_at_commit.sh 146f54a models/default_en "$STAGE3"
TEACHER=(models/accurate_en "$STAGE3")
largest=$(printf '%s\n' $SHARES | sort -n | tail -1)
python utils/data/label_teacher.py --train_set "$D/train.tagged" --out_dir "$D/teacher" --model_path "${TEACHER[@]}" \
  --max_lines "$largest"
report() { bash utils/report/dev_report.sh "$1" "$2" "$W"; }  # $1: model folder, $2: JSON out
report "$STAGE3" "$D/report_default_en.json"
for share in $SHARES; do
  head -n "$share" "$D/train.tagged" > "$D/share_$share.tagged"
  for kind in soft gold; do
    run="$D/s${share}_$kind"
    [ "$kind" = soft ] && soft=(--soft_labels "$D/teacher/train.tagged.soft" --distill_weight "${WEIGHT:-0.5}") || soft=()
    # --resume: a finished run ends at once, a killed one continues from its last epoch
    python train.py --config configs/default_en_shaped.json --init_model "$STAGE3" --lr 5e-5 \
      --n_epoch "${EPOCHS:-1}" --train_set "$D/share_$share.tagged" --dev_set "$W/ted.dev.tagged,$W/cased.dev.tagged" \
      --model_dir "$run" --progress 0 --resume 1 "${soft[@]}" >> "$run.log" 2>&1
    report "$run/best" "$run/report.json"
  done
done
if [ -n "${FINAL:-}" ]; then
  python utils/data/label_teacher.py --train_set "$D/train.tagged" --out_dir "$D/teacher" --model_path "${TEACHER[@]}"
  T="$W/templates"
  if [ ! -s "$T.tagged" ]; then
    python utils/data/speech_templates.py --out "$T.tgt" --lines 3000 --seed 1
    python utils/data/shape_data.py --target "$T.tgt" --out_prefix "${T}_shaped" --spoken 0 --seed 1
    python utils/preprocess_data.py -s "${T}_shaped.src" -t "${T}_shaped.tgt" -o "$T.tagged"
  fi
  lines=$(wc -l < "$D/train.tagged")
  run="$D/final"
  python train.py --config configs/default_en_shaped.json --init_model "$STAGE3" --lr 5e-5 \
    --n_epoch $(( (${EPOCHS:-2} * (lines + 3000) + 12799) / 12800 )) --updates_per_epoch 200 --patience 4 \
    --train_set "$D/train.tagged,$T.tagged" --dev_set "$W/ted.dev.tagged,$W/cased.dev.tagged" --model_dir "$run" \
    --progress 0 --resume 1 --soft_labels "$D/teacher/train.tagged.soft" --distill_weight "${WEIGHT:-0.5}" >> "$run.log" 2>&1
  report "$run/best" "$run/report.json"
fi
if [ -n "${SHIP:-}" ]; then
  first=$(printf '%s\n' $SHARES | head -1)
  N=models/default_en.new
  rm -rf "$N"
  python utils/build/compress_model.py --model_path "${SHIP_FROM:-$D/s${first}_soft/best}" --output "$N" \
    --dev_set "$W/ted.dev.tagged,$W/cased.dev.tagged" --lowrank_bits 8 --ranks 128 160 --max_drop 0.3 --max_mb 9.9
  cp "$STAGE3/case_forms.tsv.gz" models/default_en/README.md "$N/"
  python - "$N" <<'PY'
import sys
from dataclasses import replace
from gector_punct.model.config import read_config, store_decode_defaults
config, _ = read_config(sys.argv[1])
store_decode_defaults(sys.argv[1], replace(config.decode, exclamation=0.95))
PY
  python utils/report/model_report.py --model_path "$N" --ted_dev "$W/ted.dev.tagged" --cased_dev "$W/cased.dev.tagged" \
    --tune --json "$D/ship_tune.json" > "$D/ship_tune.txt"
  python utils/report/choose_precision.py --model_path "$N" --ted_dev "$W/ted.dev.tagged" --cased_dev "$W/cased.dev.tagged" --store
  rm -rf models/default_en && mv "$N" models/default_en
fi
