#!/usr/bin/env bash
# A model's dev figures as its card gives them, once: utils/report/model_report.py on the dev files of
# utils/data/prepare_shaped_data.sh (lines cut anywhere and whole utterances), into OUT (JSON) and OUT's .txt;
# an OUT that exists is kept.
#   bash utils/report/dev_report.sh MODEL OUT.json W
set -euo pipefail
cd "$(dirname "$0")/../.."
M=${1:?model folder}; OUT=${2:?report JSON}; W=${3:?work folder}
[ -s "$OUT" ] || python utils/report/model_report.py --model_path "$M" --ted_dev "$W/ted.dev.tagged" \
  --cased_dev "$W/cased.dev.tagged" --extra_dev ted_whole="$W/ted_whole.dev.tagged" \
  cased_whole="$W/cased_whole.dev.tagged" --utterances --json "$OUT" > "${OUT%.json}.txt"
