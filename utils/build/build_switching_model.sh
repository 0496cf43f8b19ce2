#!/usr/bin/env bash
# Rebuild models/switch_en/ (switching tokens, seed 001: disfluency deletion and punctuation in one tagger)
# and the single-task models that seed 001's Table 2 compares it with.
#   bash utils/build/build_switching_model.sh [WORKDIR]   (about 3 hours on 2 CPU cores, estimated from its steps as
#                                                   run: the single-task models 20 minutes side by side, then
#                                                   three switching runs of about 60 minutes, two at a time)
# Every model starts from the default model of 611311a (lr 1e-4, batches of 16 windows). The single-task
# models get 900 updates each; each switching run 1,800, as many updates of each task as its single-task
# model. The shipped model is the average of three switching runs' best dev checkpoints (seeds 1-3:
# utils/build/average_models.py), compressed:
#   punc_only   the TED lines alone, no switches;  disf_only   the disfluency sets alone, no switches.
#   switching   --switches disf,punc on single-task sets mixed: disfluency (Switchboard train sides x8 + the
#               disfluency generator over cased speech-like text x2; disf on, punc off), punctuation (TED
#               train lines, and the same lines with generated disfluencies that teach nothing themselves:
#               gen_punc; punc on, disf off), no conversion (restored cased text; both off). disf,punc
#               together is never trained; with disf off, $DELETE is out of the softmax (Seq2Labels).
#               The single-task models are its teachers (gector_punct/training/distillation.py, share 0.5); the punc
#               teacher also teaches the marks of the words a disf window keeps, reading it fluent.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-work/switch}
D="$W/data"
mkdir -p "$W"
# The default model it was built and measured from: models/default_en as committed at 611311a (stage 1 only).
BASE="$W/default_en_611311a"
bash utils/build/model_at_commit.sh 611311a models/default_en "$BASE"
python utils/data/tsv_to_text.py ../shared/data/iwslt/dev2012.tsv "$W/ted" --heldout 0.1 --seed 1
python utils/data/prepare_default_data.py --out_prefix "$W/cased" --cache_dir "$W/cache" --seed 1
for part in train dev; do
  python utils/preprocess_data.py -s "$W/ted.$part.src" -t "$W/ted.$part.tgt" -o "$W/ted.$part.tagged"
done
python utils/data/prepare_switching_data.py --out "$D" --cache "$W/cache" --fluent_train "$W/cased.train.tgt" \
  --fluent_dev "$W/cased.dev.tgt" --gen_words 160000 --none_words 50000 --seed 1 --punc_fluent "$W/ted.train.tgt"
for spec in swbd.train:disf gen.train:disf none.train:none swbd.dev:disf; do
  name=${spec%%:*}
  python utils/preprocess_data.py -s "$D/$name.src" -t "$D/$name.tgt" -o "$D/$name.tagged" --tasks "${spec##*:}"
done
python utils/preprocess_data.py -s "$D/gen_punc.train.src" -t "$D/gen_punc.train.tgt" -o "$D/gen_punc.train.tagged" \
  --tasks punc --kept_disfluencies
S="$D/swbd.train.tagged" G="$D/gen.train.tagged"
COMMON=(--config configs/default_en.json --init_model "$BASE" --lr 1e-4 --n_epoch 3 --updates_per_epoch 300
        --patience 9 --resume 1 --progress 0)
export OMP_NUM_THREADS=1
python train.py "${COMMON[@]}" --model_dir "$W/punc_only" --train_set "$W/ted.train.tagged" --dev_set "$W/ted.dev.tagged" &
PID=$!
python train.py "${COMMON[@]}" --model_dir "$W/disf_only" --train_set "$S,$S,$S,$S,$G" \
  --dev_set "$D/swbd.dev.tagged"
wait $PID  # its status: a failed run stops the recipe
switching() {  # SEED: one switching run, its best/ by dev F1
  python train.py "${COMMON[@]}" --n_epoch 6 --switches disf,punc --seed "$1" --model_dir "$W/switching_s$1" \
    --train_set "$S,$S,$S,$S,$S,$S,$S,$S,$G,$G,$D/none.train.tagged,$W/ted.train.tagged,$D/gen_punc.train.tagged" \
    --dev_set "$W/ted.dev.tagged,$D/swbd.dev.tagged" --teachers "disf=$W/disf_only/best,punc=$W/punc_only/best" \
    --distill_weight 0.5 --teacher_marks_with_disf 1
}
switching 1 & PID=$!
switching 2
wait $PID
switching 3
python utils/build/average_models.py --models "$W/switching_s1/best,$W/switching_s2/best,$W/switching_s3/best" \
  --output "$W/switching/best"
python utils/build/compress_model.py --model_path "$W/switching/best" --output models/switch_en.new \
  --dev_set "$W/ted.dev.tagged,$D/swbd.dev.tagged" --lowrank_bits 8 --ranks 112 160 224 --max_drop 0.1 --max_mb 9.8
export OMP_NUM_THREADS=2
for decode in neutral model; do
  python utils/report/evaluate_switching.py --data "$D" --switching models/switch_en.new --disf_model "$W/disf_only" \
    --punc_model "$W/punc_only" --ted_dev "$W/ted.dev.tagged" --swbd_sets swbd.dev,swbd_sides.dev --decode "$decode" \
    --out "$W/table2.$decode.json"
done
# Each joint-set row at its own decoding, chosen on a joint set made from the TED dev text.
python utils/data/prepare_switching_data.py --out "$W/tune" --cache "$W/cache" --fluent_train "$W/cased.train.tgt" \
  --fluent_dev "$W/ted.dev.tgt" --gen_words 1000 --none_words 1000 --seed 2
python utils/report/evaluate_switching.py --data "$D" --switching models/switch_en.new --disf_model "$W/disf_only" \
  --punc_model "$W/punc_only" --swbd_sets "" --tune_data "$W/tune" --out "$W/table2.tuned.json"
python utils/bench/benchmark_switching.py --input "$D/joint.dev.src" --model_path models/switch_en.new
cp "$BASE/case_forms.tsv.gz" models/switch_en.new/  # the case forms of the model it starts from
rm -rf models/switch_en && mv models/switch_en.new models/switch_en
du -sh models/switch_en
