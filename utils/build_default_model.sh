#!/usr/bin/env bash
# Rebuild the shipped default model models/default_en/ from scratch: data, preprocessing, training.
#   bash utils/build_default_model.sh [WORKDIR]        (about 75 minutes on 2 CPU cores)
# Data: IWSLT dev2012 TED transcripts (uncased; 90% train / last 10% dev) read from ../shared/data, plus
# cased speech-like text and Debian fortunes from utils/prepare_default_data.py. Dev lines are 10-60 words
# (each scored on its own); training lines 10-120 words, cut from the same documents (more context per example).
# Training: configs/default_en.json (all encoder layers fine-tuned, embeddings frozen, class-weighted
# punctuation loss), then utils/compress_model.py and utils/model_report.py --tune.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-work/default_en}
mkdir -p "$W"
TSV=../shared/data/iwslt/dev2012.tsv
# The same documents twice: PREFIX.dev.* from the 10-60-word cut, PREFIX.train.* from the 10-120-word cut.
python utils/tsv_to_text.py "$TSV" "$W/ted" --heldout 0.1 --seed 1
python utils/tsv_to_text.py "$TSV" "$W/ted_long" --heldout 0.1 --seed 1 --max_words 120
python utils/prepare_default_data.py --out_prefix "$W/cased" --cache_dir "$W/cache" --seed 1
python utils/prepare_default_data.py --out_prefix "$W/cased_long" --cache_dir "$W/cache" --seed 1 --max_words 120
python utils/prepare_default_data.py --out_prefix "$W/fortunes_long" --cache_dir "$W/cache" --seed 1 --max_words 120 \
  --sources fortunes
# Every registry source (about 6M words): counted for the case forms only (how words are written when not lower-case).
python utils/prepare_default_data.py --out_prefix "$W/corpora" --cache_dir "$W/cache" --seed 1 --max_words 120 --sources all
for name in ted cased; do
  python utils/preprocess_data.py -s "$W/$name.dev.src" -t "$W/$name.dev.tgt" -o "$W/$name.dev.tagged"
done
for name in ted_long cased_long fortunes_long; do
  python utils/preprocess_data.py -s "$W/$name.train.src" -t "$W/$name.train.tgt" -o "$W/$name.train.tagged"
done
cat "$W/ted.dev.tagged" "$W/cased.dev.tagged" > "$W/all.dev.tagged"
cat "$W/ted_long.train.tagged" "$W/cased_long.train.tagged" "$W/fortunes_long.train.tagged" > "$W/all.train.tagged"
python train.py --config configs/default_en.json --train_set "$W/all.train.tagged" --dev_set "$W/all.dev.tagged" \
  --model_dir "$W/model" --resume 1
# Ship the fine-tuned encoder as low-rank deltas over the pip-installed one (the smallest rank whose dev
# F1 stays within 0.5 of the full model), then tune the decoding defaults on the dev files.
python utils/compress_model.py --model_path "$W/model/best" --output models/default_en.new --dev_set "$W/all.dev.tagged" \
  --ranks 64 96 104 112
python utils/build_case_forms.py --text "$W/corpora.train.tgt" --model_path models/default_en.new
python utils/model_report.py --model_path models/default_en.new --ted_dev "$W/ted.dev.tagged" \
  --cased_dev "$W/cased.dev.tagged" --tune --truecase --json "$W/report.json"
rm -rf models/default_en && mv models/default_en.new models/default_en
du -sh models/default_en
