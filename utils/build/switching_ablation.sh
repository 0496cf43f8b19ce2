#!/usr/bin/env bash
# One-change ablation of the switching model's data mix (README, "Disfluencies: switching tokens"): the
# recipe's switching run (1,800 updates from the default model of 611311a) on the Switchboard x8, no-conversion, TED and
# gen_punc sets (the TED lines with generated disfluencies kept: punc on, disf off, the disfluent words
# teach nothing), with the generated disfluency set once, and twice as utils/build/build_switching_model.sh has it.
# With "distill": the shipped mix (gen.train twice) with the single-task models as teachers
# (gector_punct/training/distillation.py), their share of the punctuation loss 0.5 throughout, and 1 falling to 0
# (teacher annealing). With "fluent": the 0.5 teachers plus --teacher_marks_with_disf (the punc teacher's
# marks taught under disf, read from the window without its gold deletions), seeds 1 and 2. Every run is
# compressed to rank-112 float16 factors (as the model shipped before the averaged one, which the README's
# ablation tables compare with) and scored on the joint dev set and Switchboard dev with the stored
# decoding defaults.
#   bash utils/build/switching_ablation.sh WORKDIR [mix|distill|fluent]   (WORKDIR as left by utils/build/build_switching_model.sh:
#                        its data, ted.*.tagged, disf_only/ and punc_only/; about 50 minutes on 2 CPU cores for
#                        mix, the two runs side by side; about 55 for distill: its two runs
#                        trained for 48 minutes side by side here, then compression and scoring; about 70 for
#                        fluent: 59 minutes of training side by side, the teachers read twice in a disf window)
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:?usage: bash utils/build/switching_ablation.sh WORKDIR [mix|distill|fluent]}
WHICH=${2:-mix}
D="$W/data"
S="$D/swbd.train.tagged" G="$D/gen.train.tagged"
REST="$D/none.train.tagged,$W/ted.train.tagged,$D/gen_punc.train.tagged"  # after the disfluency sets, as trained
export OMP_NUM_THREADS=1
# The default model it was built and measured from: models/default_en as committed at 611311a (stage 1 only).
BASE="$W/default_en_611311a"
bash utils/build/model_at_commit.sh 611311a models/default_en "$BASE"
T="disf=$W/disf_only/best,punc=$W/punc_only/best"
run() {  # NAME TRAIN_SET [TRAIN.PY FLAG ...]: train, compress, score
  python train.py --config configs/default_en.json --init_model "$BASE" --lr 1e-4 --n_epoch 6 \
    --updates_per_epoch 300 --patience 9 --resume 1 --progress 0 --switches disf,punc --model_dir "$W/$1" \
    --train_set "$2" --dev_set "$W/ted.dev.tagged,$D/swbd.dev.tagged" "${@:3}"
  python utils/build/compress_model.py --model_path "$W/$1/best" --output "$W/$1_c" \
    --dev_set "$W/ted.dev.tagged,$D/swbd.dev.tagged" --ranks 112 --max_drop 5 --max_mb 9.8
  cp "$BASE/case_forms.tsv.gz" "$W/$1_c/"
  python utils/report/evaluate_switching.py --data "$D" --switching "$W/$1_c" --disf_model "$W/disf_only/best" \
    --punc_model "$W/punc_only/best" --ted_dev "$W/ted.dev.tagged" --decode model --out "$W/ablation.$1.json"
}
MIX="$S,$S,$S,$S,$S,$S,$S,$S,$G,$G,$REST"  # the shipped mix
if [ "$WHICH" = fluent ]; then
  run kdfluent "$MIX" --teachers "$T" --distill_weight 0.5 --teacher_marks_with_disf 1 &
  run kdfluent_s2 "$MIX" --teachers "$T" --distill_weight 0.5 --teacher_marks_with_disf 1 --seed 2
elif [ "$WHICH" = distill ]; then
  run kd05 "$MIX" --teachers "$T" --distill_weight 0.5 &
  run bam "$MIX" --teachers "$T" --distill_weight 1.0 --distill_anneal 1
else
  run ablation_gen_once "$S,$S,$S,$S,$S,$S,$S,$S,$G,$REST" &
  run ablation_gen_twice "$MIX"
fi
wait
