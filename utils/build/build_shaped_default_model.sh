#!/usr/bin/env bash
# Rebuild models/default_en as shipped for issue 32: the stage-2 model (build_default_model.sh, committed at
# 1e73f5d) trained further on text shaped like real transcripts, on a GPU.
#   bash utils/build/build_shaped_default_model.sh [W]
# 1. data (utils/data/prepare_shaped_data.sh, ~10 min on 2 cores) and the bundle that travels to the GPU machine
#    (utils/build/device_bundle.py: MiniLM in float16 with int8 word embeddings, the data xz-compressed; ~41 MiB);
# 2. on the GPU machine (about 5 minutes of an H200): B=.devbundle INIT=... OUT=... bash utils/build/device_train_default.sh,
#    its OUT copied back to W/gpu (CUDA here: this script runs it itself);
# 3. here: the average's int8 rank-128 storage (compress_model.py), the stage-2 case forms, decoding tuned on the
#    dev files (model_report.py --tune).
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-work/default_en_shaped}
bash utils/data/prepare_shaped_data.sh "$W"
bash utils/build/model_at_commit.sh 1e73f5d models/default_en "$W/stage2"
python utils/build/device_bundle.py pack --dest .devbundle --data "$W/ted_mix_shaped.train.tagged" \
  "$W/spoken_shaped.train.tagged" "$W/ted.dev.tagged" "$W/cased.dev.tagged"
if python -c "import torch, sys; sys.exit(not torch.cuda.is_available())"; then
  B=.devbundle INIT="$W/stage2" OUT="$W/gpu" bash utils/build/device_train_default.sh
elif ! ls "$W"/gpu/avg.tgz.part-* >/dev/null 2>&1; then
  echo "no GPU here: run utils/build/device_train_default.sh on one (INIT=$W/stage2) and copy its OUT to $W/gpu" >&2
  exit 1
fi
rm -rf "$W/gpu/avg" && cat "$W"/gpu/avg.tgz.part-* | tar -xz -C "$W/gpu"
python utils/build/compress_model.py --model_path "$W/gpu/avg" --output models/default_en.new \
  --dev_set "$W/ted.dev.tagged,$W/cased.dev.tagged" --lowrank_bits 8 --ranks 128 160 --max_drop 0.3 --max_mb 9.9
cp "$W/stage2/case_forms.tsv.gz" "$W/stage2/README.md" models/default_en.new/
python utils/report/model_report.py --model_path models/default_en.new --ted_dev "$W/ted.dev.tagged" \
  --cased_dev "$W/cased.dev.tagged" --tune --json "$W/report.json"
rm -rf models/default_en && mv models/default_en.new models/default_en
