#!/usr/bin/env bash
# Distil ensemble_en into default_en's size over the whole spoken training text and its ASR-like noised copies
# (issue 67). A run of several sessions: every step resumes (a finished step's output is kept, a labelling run
# redoes no finished shard, training continues from its last/ checkpoint), so the same command goes on where
# the last one stopped:
#   bash utils/build/build_distilled_asr.sh W          (W: a work folder beside the repository)
# 1. the shaped training text (utils/data/prepare_shaped_data.sh), both files in one shuffled file (seed 42);
# 2. the teacher's soft labels of every line (utils/data/label_teacher.py: 31 shards of 2,000 lines, 3.66M
#    words; 300-1,500 words/s on 2 cores, depending on what else runs), then of the lines' noised copies
#    (the same flags as the student's, NOISE below; their own folder). The teacher is ensemble_en as of
#    commit b319ac3: accurate_en with that commit's default_en, in float32 (its ensemble.json's precision);
# 3. the dev files cut in two by position (documents in order): the first half of each selects checkpoints
#    and tunes decoding, the second half is held aside and only reported; the noised dev files
#    (utils/data/noise_data.py, seed 2: words no training line was noised with) likewise;
# 4. the student: b319ac3's default_en trained further on the lines and their noised copies, with the soft
#    labels at DISTILL_WEIGHT (default 0.5), in stretches of 200 updates (12,800 lines, about 25 minutes
#    here), dev-scored and checkpointed after each, for UPDATES (default 6,000) updates in all;
# 5. reports of the student's best and of default_en on every half (utils/report/model_report.py).
# Shipping is a separate, manual step (build_distilled_default.sh SHIP=1 SHIP_FROM=...): only where the
# selection halves and the held-aside halves both improve.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:?work folder}
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
NOISE=(--asr_noise_share "${NOISE_SHARE:-0.5}" --asr_substitution 0.05 --asr_deletion 0.02 --asr_insertion 0.02
       --asr_noise_seed 1)
[ -s "$W/spoken_shaped.train.tagged" ] || bash utils/data/prepare_shaped_data.sh "$W"
D="$W/distill"
mkdir -p "$D"
[ -s "$D/train.tagged" ] || python utils/data/mix_lines.py --seed 42 --out "$D/train.tagged" \
  --files "$W/ted_mix_shaped.train.tagged" "$W/spoken_shaped.train.tagged"
STAGE4="$W/default_en_b319ac3"
bash utils/build/model_at_commit.sh b319ac3 models/default_en "$STAGE4"
rm -f "$STAGE4/confidence.json"  # an older calibration format, which loading refuses; nothing here reads it
TEACHER=(--model_path models/accurate_en "$STAGE4" --precision float32)
python utils/data/label_teacher.py --train_set "$D/train.tagged" --out_dir "$D/teacher" "${TEACHER[@]}"
python utils/data/label_teacher.py --train_set "$D/train.tagged" --out_dir "$D/teacher_asr" "${TEACHER[@]}" "${NOISE[@]}"
V="$W/halves"
mkdir -p "$V"
for name in ted cased ted_whole cased_whole; do
  [ -s "$W/${name}_asr.dev.tagged" ] || python utils/data/noise_data.py --input "$W/$name.dev.tagged" \
    --output "$W/${name}_asr.dev.tagged" --asr_noise_seed 2
  for kind in "" _asr; do
    file="$W/$name$kind.dev.tagged"
    half=$(( $(wc -l < "$file") / 2 ))
    [ -s "$V/$name$kind.selection.tagged" ] || head -n "$half" "$file" > "$V/$name$kind.selection.tagged"
    [ -s "$V/$name$kind.aside.tagged" ] || tail -n +"$(( half + 1 ))" "$file" > "$V/$name$kind.aside.tagged"
  done
done
lines=$(( $(wc -l < "$D/train.tagged") ))
run="$D/asr_student"
python train.py --config configs/default_en_shaped.json --init_model "$STAGE4" --lr 5e-5 \
  --n_epoch $(( ${UPDATES:-6000} / 200 )) --updates_per_epoch 200 --patience 6 --train_set "$D/train.tagged" \
  "${NOISE[@]}" --soft_labels "$D/teacher/train.tagged.soft,$D/teacher_asr/train.tagged.soft" \
  --distill_weight "${DISTILL_WEIGHT:-0.5}" --dev_set "$V/ted.selection.tagged,$V/cased.selection.tagged" \
  --model_dir "$run" --progress 0 --resume 1 >> "$run.log" 2>&1
for model in "$STAGE4" "$run/best"; do
  for part in selection aside; do
    out="$model/report_$part.json"
    [ -s "$out" ] || python utils/report/model_report.py --model_path "$model" --ted_dev "$V/ted.$part.tagged" \
      --cased_dev "$V/cased.$part.tagged" --extra_dev ted_whole="$V/ted_whole.$part.tagged" \
      cased_whole="$V/cased_whole.$part.tagged" ted_asr="$V/ted_asr.$part.tagged" \
      ted_whole_asr="$V/ted_whole_asr.$part.tagged" cased_asr="$V/cased_asr.$part.tagged" --utterances \
      --json "$out" > "${out%.json}.txt"
  done
done
