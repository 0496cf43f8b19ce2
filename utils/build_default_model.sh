#!/usr/bin/env bash
# Rebuild the shipped default model models/default_en/ from scratch: data, preprocessing, training.
#   bash utils/build_default_model.sh [WORKDIR]        (about 70 minutes on 2 CPU cores)
# Data: IWSLT dev2012 TED transcripts (uncased; 90% train / last 10% dev) read from ../shared/data, plus
# cased speech-like text from utils/prepare_default_data.py. Training: configs/default_en.json (all
# encoder layers fine-tuned, embeddings frozen), then utils/compress_model.py and utils/model_report.py --tune.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-work/default_en}
mkdir -p "$W"
python utils/tsv_to_text.py ../shared/data/iwslt/dev2012.tsv "$W/ted" --heldout 0.1 --seed 1
python utils/prepare_default_data.py --out_prefix "$W/cased" --cache_dir "$W/cache" --seed 1
for part in train dev; do
  python utils/preprocess_data.py -s "$W/ted.$part.src" -t "$W/ted.$part.tgt" -o "$W/ted.$part.tagged"
  python utils/preprocess_data.py -s "$W/cased.$part.src" -t "$W/cased.$part.tgt" -o "$W/cased.$part.tagged"
  cat "$W/ted.$part.tagged" "$W/cased.$part.tagged" > "$W/all.$part.tagged"
done
python train.py --config configs/default_en.json --train_set "$W/all.train.tagged" --dev_set "$W/all.dev.tagged" \
  --model_dir "$W/model" --resume 1
# Ship the fine-tuned encoder as low-rank deltas over the pip-installed one (the smallest rank whose dev
# F1 stays within 0.5 of the full model), then tune the decoding defaults on the dev files.
python utils/compress_model.py --model_path "$W/model/best" --output models/default_en.new --dev_set "$W/all.dev.tagged"
python utils/model_report.py --model_path models/default_en.new --ted_dev "$W/ted.dev.tagged" \
  --cased_dev "$W/cased.dev.tagged" --tune --truecase --json "$W/report.json"
rm -rf models/default_en && mv models/default_en.new models/default_en
du -sh models/default_en
