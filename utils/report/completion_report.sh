#!/usr/bin/env bash
# Partly punctuated input completed, not frozen (issue 32): F1 of the marks a model ADDS when 0%, 30% or 70%
# of the reference's marks and case are already in the input (utils/data/shape_data.py --share; dev files of
# utils/data/prepare_shaped_data.sh in W). Lines are read as fragments (--fragments: the dev lines are cut anywhere);
# a mark the input already had leaves the score (utils/evaluate.py --given).
# Leaving the given marks out of the score takes the surest marks out of the pool, so precision falls even for
# a model that ignores them: the rows "30%, none read" and "70%, none read" score the 0%-given output on the
# same words as the 30% / 70% rows, the fair measure of what reading the given marks adds.
#   bash utils/report/completion_report.sh MODEL_DIR W
set -euo pipefail
cd "$(dirname "$0")/../.."
M=${1:?model folder}; W=${2:?work folder with the dev files}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
row() {  # $1: prediction, $2: the input that was given, $3: dev name, $4: row label
  python utils/evaluate.py --reference "$W/$3.dev.tgt" --prediction "$1" --given "$2" --json > "$T/s.json"
  python - "$T/s.json" "$3" "$4" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = lambda g, k="overall": f"{r[g][k]['f1']:.1f}" if g in r and k in r[g] else "-"
print(f"{sys.argv[2]:<8} {sys.argv[3]:<16} {f('punct'):>8} {f('case'):>8} {f('boundary', 'BOUNDARY'):>8}")
PY
}
printf "%-8s %-16s %8s %8s %8s\n" dev given punct case boundary
for name in ted cased; do
  python predict.py --model_path "$M" --input_file "$W/$name.dev.src" --output_file "$T/none.txt" --fragments 2>/dev/null
  row "$T/none.txt" "$W/$name.dev.src" "$name" "0%"
  for share in 30 70; do
    src="$W/${name}_given$share.dev.src"
    python predict.py --model_path "$M" --input_file "$src" --output_file "$T/out.txt" --fragments 2>/dev/null
    row "$T/out.txt" "$src" "$name" "$share%"
    row "$T/none.txt" "$src" "$name" "$share%, none read"
  done
done
