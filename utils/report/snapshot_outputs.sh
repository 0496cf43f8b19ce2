#!/usr/bin/env bash
# Write what the shipped models and a tiny training run produce into OUTDIR, so that a refactoring can be
# checked for unchanged behaviour: run it before and after, then `diff -r BEFORE AFTER` (the metrics files
# are written without their timing fields, which differ from run to run).
#   bash utils/report/snapshot_outputs.sh OUTDIR [DEV.src ...]     (DEV.src: extra inputs, e.g. the TED and cased dev
#                                                             sources written by utils/build/build_default_model.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?usage: snapshot_outputs.sh OUTDIR [DEV.src ...]}
shift
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HF_HUB_OFFLINE=1
for tgt in examples/dev.tgt examples/test.tgt examples/train.tgt; do
  python utils/make_source.py "$tgt" "$T/$(basename "$tgt" .tgt).src"
done
inputs=(examples/talk.txt "$T/dev.src" "$T/test.src" "$@")
for input in "${inputs[@]}"; do
  name=$(basename "$input")
  python predict.py --input_file "$input" --output_file "$OUT/default_en.$name" 2>/dev/null
  python predict.py --model_path models/audio_en --input_file "$input" --output_file "$OUT/audio_en.$name" 2>/dev/null
done
python predict.py --model_path models/audio_en --input_file examples/audio/talk.txt \
  --audio_list examples/audio/talk.list --output_file "$OUT/audio_en.with_audio.talk.txt" 2>/dev/null
python predict.py --model_path models/default_en models/audio_en --input_file "$T/dev.src" \
  --output_file "$OUT/ensemble.dev.src" 2>/dev/null
# The README walkthrough's tiny training run: its per-epoch metrics without the timing fields.
python utils/preprocess_data.py -s "$T/train.src" -t examples/train.tgt -o "$T/train.tagged" >/dev/null
python utils/preprocess_data.py -s "$T/dev.src" -t examples/dev.tgt -o "$T/dev.tagged" >/dev/null
python train.py --config configs/tiny.json --train_set "$T/train.tagged" --dev_set "$T/dev.tagged" \
  --model_dir "$T/tiny" --progress 0 >/dev/null
python -c "
import json, sys
timing = {'seconds', 'train_words_per_s', 'train_samples_per_s'}
for line in open(sys.argv[1]):
    record = {k: v for k, v in json.loads(line).items() if k not in timing}
    print(json.dumps(record, sort_keys=True))
" "$T/tiny/metrics.jsonl" > "$OUT/tiny.metrics.jsonl"
python predict.py --model_path "$T/tiny" --input_file "$T/dev.src" --output_file "$OUT/tiny.dev.src" 2>/dev/null
echo "wrote $(ls "$OUT" | wc -l) files to $OUT"
