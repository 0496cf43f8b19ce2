#!/usr/bin/env bash
# An hour of synthetic WhisperX JSON (9,000 words, benchmark_review.whisper_transcript) to SRT with
# `predict.py --model_path default_en --format srt`, as a process, this checkout against an older commit,
# alternated; each line: which tree, which file (short: 20 words, for the start-up), seconds.
#   bash utils/bench/timed_srt_against.sh a000273 5        (REV, runs; a git worktree of REV in a temp folder)
set -euo pipefail
cd "$(dirname "$0")/../.."
REV=${1:?a commit to compare with}
RUNS=${2:-5}
WORK=$(mktemp -d)
trap 'git worktree remove --force "$WORK/base" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
git worktree add -f "$WORK/base" "$REV" >/dev/null 2>&1
python -c "
import json, sys
sys.path.insert(0, 'utils/bench')
from benchmark_review import whisper_transcript
json.dump(whisper_transcript(9000, 0), open('$WORK/hour.json', 'w'))
json.dump(whisper_transcript(20, 0), open('$WORK/short.json', 'w'))
"
for _ in $(seq "$RUNS"); do
  for tree in "$WORK/base" "$PWD"; do
    for f in short hour; do
      start=$(date +%s.%N)
      HF_HUB_OFFLINE=1 python "$tree/predict.py" --model_path default_en --input_file "$WORK/$f.json" --format srt \
        --output_file "$WORK/out.srt" 2>/dev/null
      echo "$([ "$tree" = "$PWD" ] && echo now || echo "$REV") $f $(echo "$(date +%s.%N) - $start" | bc)"
    done
  done
done
