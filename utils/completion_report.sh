#!/usr/bin/env bash
# Partly punctuated input completed, not frozen (issue 32): F1 of the marks a model ADDS when 0%, 30% or 70%
# of the reference's marks and case are already in the input (utils/shape_data.py --share; dev files of
# utils/prepare_shaped_data.sh in W). Lines are read as fragments (--fragments: the dev lines are cut anywhere);
# a mark the input already had leaves the score (utils/evaluate.py --given).
#   bash utils/completion_report.sh MODEL_DIR W
set -euo pipefail
cd "$(dirname "$0")/.."
M=${1:?model folder}; W=${2:?work folder with the dev files}
T=$(mktemp -d)
printf "%-8s %-6s %8s %8s %8s\n" dev given punct case boundary
for name in ted cased; do
  for share in 0 30 70; do
    if [ "$share" = 0 ]; then src="$W/$name.dev.src"; else src="$W/${name}_given$share.dev.src"; fi
    python predict.py --model_path "$M" --input_file "$src" --output_file "$T/out.txt" --fragments 2>/dev/null
    python utils/evaluate.py --reference "$W/$name.dev.tgt" --prediction "$T/out.txt" --given "$src" --json > "$T/s.json"
    python - "$T/s.json" "$name" "$share" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = lambda g, k="overall": f"{r[g][k]['f1']:.1f}" if g in r and k in r[g] else "-"
print(f"{sys.argv[2]:<8} {sys.argv[3] + '%':<6} {f('punct'):>8} {f('case'):>8} {f('boundary', 'BOUNDARY'):>8}")
PY
  done
done
rm -rf "$T"
