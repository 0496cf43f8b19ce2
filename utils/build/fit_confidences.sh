#!/usr/bin/env bash
# Per-word confidence of every shipped model (prediction/confidence.py, docs/review.md): dev data read as
# predict.py reads lines (whole utterances), each model's calibration fitted on the first half of each dev
# file and measured on the second; written into models/<name>/confidence.json.
#   bash utils/build/fit_confidences.sh W [MODEL ...]     (W: a work folder; models: all shipped ones)
# English: TED (IWSLT dev2012, last 10%) and the cased registry text, whole utterances; multilingual: its five
# languages' dev text (utils/data/prepare_multilingual_data.py --whole 1) and the English two.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:?work folder}
shift
MODELS=${*:-default_en switch_en audio_en accurate_en ensemble_en multilingual}
TSV=../shared/data/iwslt/dev2012.tsv
mkdir -p "$W"
[ -s "$W/ted_whole.dev.tagged" ] || {
  python utils/data/tsv_to_text.py "$TSV" "$W/ted_whole" --heldout 0.1 --seed 1 --whole 1
  python utils/preprocess_data.py -s "$W/ted_whole.dev.src" -t "$W/ted_whole.dev.tgt" -o "$W/ted_whole.dev.tagged"; }
[ -s "$W/cased_whole.dev.tagged" ] || {
  python utils/data/prepare_default_data.py --out_prefix "$W/cased_whole" --cache_dir "$W/cache" --seed 1 --whole 1
  python utils/preprocess_data.py -s "$W/cased_whole.dev.src" -t "$W/cased_whole.dev.tgt" -o "$W/cased_whole.dev.tagged"; }
ENGLISH="$W/ted_whole.dev.tagged $W/cased_whole.dev.tagged"
for model in $MODELS; do
  DEV=$ENGLISH
  if [ "$model" = multilingual ]; then
    [ -s "$W/multi/it.dev.tagged" ] || {
      python utils/data/prepare_multilingual_data.py --out_dir "$W/multi" --cache_dir "$W/cache" --seed 1 --whole 1
      for l in zh fr de es it; do
        python utils/preprocess_data.py -s "$W/multi/$l.dev.src" -t "$W/multi/$l.dev.tgt" -o "$W/multi/$l.dev.tagged"
      done; }
    DEV="$(printf "$W/multi/%s.dev.tagged " zh fr de es it) $ENGLISH"
  fi
  PLOT=()
  [ "$model" = default_en ] && PLOT=(--plot docs/images/review_calibration.svg)
  echo "== $model"
  python utils/report/fit_confidence.py --model_path "$model" --dev $DEV "${PLOT[@]}"
done
