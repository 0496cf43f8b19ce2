#!/usr/bin/env bash
# Training and dev files of the shaped default model (issue 32), written into W:
#   bash utils/data/prepare_shaped_data.sh W        (about 10 minutes on 2 CPU cores)
# Restored text: TED (IWSLT dev2012, 90% train / last 10% dev, as build_default_model.sh) and the spoken and
# conversational registry sources (SPOKEN below; no prose), training lines 10-120 words, half of them whole
# utterances (--whole 0.5). Training sources are shaped like real transcripts (utils/data/shape_data.py: 70% of the
# lines with numbers in words, 50% keeping a random share of the marks and case). Dev files stay as
# build_default_model.sh writes them (bare sources; lines cut anywhere, and whole utterances), plus the
# given-marks dev sources (30% and 70% of the marks and case kept) that score completion.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:?work folder}
TSV=../shared/data/iwslt/dev2012.tsv
SPOKEN=iwslt,debates,dnc2012,rnc2012,chatterbot,fortunes,sotu,office,seinfeld,nlpcorpus,chitchat
mkdir -p "$W"
python utils/data/tsv_to_text.py "$TSV" "$W/ted" --heldout 0.1 --seed 1
python utils/data/tsv_to_text.py "$TSV" "$W/ted_whole" --heldout 0.1 --seed 1 --whole 1
python utils/data/tsv_to_text.py "$TSV" "$W/ted_mix" --heldout 0.1 --seed 1 --max_words 120 --whole 0.5
python utils/data/prepare_default_data.py --out_prefix "$W/cased" --cache_dir "$W/cache" --seed 1
python utils/data/prepare_default_data.py --out_prefix "$W/cased_whole" --cache_dir "$W/cache" --seed 1 --whole 1
python utils/data/prepare_default_data.py --out_prefix "$W/spoken" --cache_dir "$W/cache" --seed 1 --max_words 120 \
  --whole 0.5 --sources "$SPOKEN"
for name in ted_mix spoken; do
  python utils/data/shape_data.py --target "$W/$name.train.tgt" --out_prefix "$W/${name}_shaped.train" --seed 1
  python utils/preprocess_data.py -s "$W/${name}_shaped.train.src" -t "$W/${name}_shaped.train.tgt" \
    -o "$W/${name}_shaped.train.tagged" --skip_bad
done
for name in ted cased ted_whole cased_whole; do
  python utils/preprocess_data.py -s "$W/$name.dev.src" -t "$W/$name.dev.tgt" -o "$W/$name.dev.tagged"
  for share in 30 70; do
    python utils/data/shape_data.py --target "$W/$name.dev.tgt" --out_prefix "$W/${name}_given$share.dev" --spoken 0 \
      --share "0.$share" --seed 1
  done
done
