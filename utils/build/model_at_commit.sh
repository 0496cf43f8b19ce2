#!/usr/bin/env bash
# Write a model folder as it was committed at COMMIT, for a recipe that must start from the model it was
# measured with after that folder has been replaced (git history holds every shipped version).
#   bash utils/build/model_at_commit.sh COMMIT MODEL_DIR DEST      e.g. 611311a models/default_en work/default_en_611311a
# DEST is written once (a second run with DEST present does nothing); a checkout without that commit (a
# shallow clone) stops with a message that says how to get it.
set -euo pipefail
cd "$(dirname "$0")/../.."
COMMIT=${1:?usage: bash utils/build/model_at_commit.sh COMMIT MODEL_DIR DEST}
MODEL=${2:?usage: bash utils/build/model_at_commit.sh COMMIT MODEL_DIR DEST}
DEST=${3:?usage: bash utils/build/model_at_commit.sh COMMIT MODEL_DIR DEST}
[ -e "$DEST/config.json" ] && exit 0
if ! git cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
  echo "commit $COMMIT is not in this checkout (shallow clone?): git fetch --unshallow, then run again" >&2
  exit 1
fi
TMP="$DEST.tmp.$$"
rm -rf "$TMP" && mkdir -p "$TMP"
git archive "$COMMIT" "$MODEL" | tar -x -C "$TMP"
mv "$TMP/$MODEL" "$DEST" && rm -rf "$TMP"
echo "$MODEL at $COMMIT -> $DEST"
