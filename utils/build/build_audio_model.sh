#!/usr/bin/env bash
# Build and measure the UniPunc audio model models/audio_en/ (text with or without its audio), and the
# text-only tagger trained on the same text for comparison.
#   bash utils/build/build_audio_model.sh [WORKDIR]        (about an hour on 2 CPU cores; needs espeak-ng and ../shared/data)
# 1. cased speech-like text (utils/data/prepare_default_data.py, lines of 10-40 words; dev documents held out)
# 2. espeak-ng speech: half the training lines with audio (5 voices x 3 speeds), the other half none; the
#    held-out test text with a voice and speed used nowhere in training (en-gb-x-rp at 165 wpm)
# 3. train.py --config configs/audio_en.json: the default model of 611311a + fbank acoustic assistant + coordinate
#    bootstrapper, lexical encoder frozen; the text-only tagger: the same config with --acoustic null
# 4. compress (rank-80 float16 deltas over the pip encoder), score both on the test text with and without audio
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-work/audio_en}
D=$W/data S=$W/syn
mkdir -p "$D"
# The default model it was built and measured from: models/default_en as committed at 611311a (stage 1 only).
BASE="$W/default_en_611311a"
bash utils/build/model_at_commit.sh 611311a models/default_en "$BASE"
python utils/data/prepare_default_data.py --out_prefix "$D/cased" --cache_dir "$W/cache" --min_words 10 --max_words 40 --seed 1
# The dev documents: the first third selects checkpoints, the rest is the held-out test.
n=$(wc -l < "$D/cased.dev.tgt"); k=$((n / 3))
head -n "$k" "$D/cased.dev.tgt" > "$D/seldev.tgt"; tail -n +"$((k + 1))" "$D/cased.dev.tgt" > "$D/test.tgt"
cp "$D/cased.train.tgt" "$D/train.tgt"
for part in train seldev test; do python utils/make_source.py "$D/$part.tgt" "$D/$part.src"; done
VOICES="en-us en-gb en-gb-scotland en-029 en-us+f2"
python utils/data/synthesize_audio.py --text "$D/train.tgt" --out_dir "$S/train" --voices $VOICES --speeds 150 175 200 --audio_fraction 0.5 --seed 1
python utils/data/synthesize_audio.py --text "$D/seldev.tgt" --out_dir "$S/seldev" --voices $VOICES --speeds 150 175 200 --audio_fraction 0.5 --seed 2
python utils/data/synthesize_audio.py --text "$D/test.tgt" --out_dir "$S/test" --voices en-gb-x-rp --speeds 165 --audio_fraction 1.0 --seed 3
for part in train seldev test; do
  python utils/preprocess_data.py -s "$D/$part.src" -t "$D/$part.tgt" -o "$D/$part.tagged" -a "$S/$part/audio.list"
done
python train.py --config configs/audio_en.json --init_model "$BASE" --train_set "$D/train.tagged" \
  --dev_set "$D/seldev.tagged" --model_dir "$W/mixed" --audio_cache "$W/features" --resume 1 --progress 0
python train.py --config configs/audio_en.json --init_model "$BASE" --acoustic null --train_set "$D/train.tagged" \
  --dev_set "$D/seldev.tagged" --model_dir "$W/text" --resume 1 --progress 0
score() {  # MODEL NAME [predict.py flags]: restore the test text, then score it (JSON in $W/scores)
  local model=$1 name=$2; shift 2
  python predict.py --model_path "$model" --input_file "$D/test.src" --output_file "$W/pred.$name.txt" "$@"
  python utils/evaluate.py --reference "$D/test.tgt" --prediction "$W/pred.$name.txt" --json > "$W/scores/$name.json"
  python -c "import json,sys; r=json.load(open(sys.argv[1]))['punct']; print(sys.argv[2], ' '.join(f'{c} {r[c][\"f1\"]:.1f}' for c in r))" \
    "$W/scores/$name.json" "$name"
}
mkdir -p "$W/scores"
# Rank 80 (9.2 MiB): rank 64 passes compress_model's dev check but costs the audio-free path 0.7 F1.
python utils/build/compress_model.py --model_path "$W/mixed/best" --output models/audio_en.new --dev_set "$D/seldev.tagged" --ranks 80
score models/audio_en.new mixed_with_audio --audio_list "$S/test/audio.list" --audio_cache "$W/features"
score models/audio_en.new mixed_without_audio
score "$W/text/best" text_only
score "$BASE" default_en
cp "$BASE/case_forms.tsv.gz" models/audio_en.new/  # the case forms of the model it starts from
rm -rf models/audio_en && mv models/audio_en.new models/audio_en
du -sh models/audio_en
