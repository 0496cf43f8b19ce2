"""One path on the real pretrained all-MiniLM-L6-v2 encoder (from the pip package, offline)."""
import os

from gector_punct.model.tagger import ModelConfig, Seq2Labels
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.training.trainer import TrainOptions, Trainer


def test_real_encoder_trains_saves_small_and_loads(learnable_data, encoder_name, tmp_path):
    options = TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=str(tmp_path),
                           transformer_model="all-MiniLM-L6-v2", n_epoch=1, lr=1e-3, batch_size=16, max_len=64,
                           updates_per_epoch=25, train_layers=1, progress=False)
    trainer = Trainer(options)
    encoder = trainer.model.encoder
    assert encoder.config.hidden_size == 384 and encoder.config.num_hidden_layers == 6
    frozen_before = encoder.embeddings.word_embeddings.weight.clone()
    result = trainer.train()
    assert result["punct"]["overall"]["f1"] > 50  # 25 updates of a pretrained encoder already learn the rule
    assert (encoder.embeddings.word_embeddings.weight == frozen_before).all()  # below the top layer: frozen

    best = os.path.join(str(tmp_path), "best")
    size = os.path.getsize(os.path.join(best, "model.safetensors"))
    assert size < 10 * 2**20  # only the top layer and the heads are stored; the rest comes from the package
    loaded = Seq2Labels.load(best)
    lines = [s for s, _ in learnable_data["dev_pairs"][:20]]
    trainer.model.eval()
    assert Punctuator([loaded], device="cpu").predict(lines) == Punctuator([trainer.model], device="cpu").predict(lines)


def test_lowrank_storage_round_trip(learnable_data, tmp_path):
    import torch

    options = TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=str(tmp_path),
                           transformer_model="all-MiniLM-L6-v2", n_epoch=1, lr=1e-3, batch_size=16, max_len=64,
                           updates_per_epoch=3, freeze_embeddings=True, progress=False)
    trainer = Trainer(options)
    trainer.train()
    model = trainer.model.eval()
    model.save(str(tmp_path / "lowrank"), store_dtype="float16", lowrank=8)
    size = os.path.getsize(os.path.join(str(tmp_path / "lowrank"), "model.safetensors"))
    assert size < 2 * 2**20  # no embeddings, rank-8 factors
    loaded = Seq2Labels.load(str(tmp_path / "lowrank"))
    base = Seq2Labels.create(model.vocab, ModelConfig("all-MiniLM-L6-v2"))
    key = "encoder.encoder.layer.5.intermediate.dense.weight"
    delta = loaded.state_dict()[key] - base.state_dict()[key]
    assert 0 < torch.linalg.matrix_rank(delta.float(), atol=1e-4) <= 8
    full_delta = model.state_dict()[key] - base.state_dict()[key]
    u, s, vh = torch.linalg.svd(full_delta, full_matrices=False)
    best_rank8 = (u[:, :8] * s[:8]) @ vh[:8]
    assert torch.allclose(delta, best_rank8, atol=1e-3)  # the optimal rank-8 approximation, up to float16
    assert torch.equal(loaded.state_dict()["encoder.embeddings.word_embeddings.weight"],
                       base.state_dict()["encoder.embeddings.word_embeddings.weight"])
    model.save(str(tmp_path / "int8"), store_dtype="float16", lowrank=8, lowrank_bits=8)  # int8 factors
    assert os.path.getsize(os.path.join(str(tmp_path / "int8"), "model.safetensors")) < 0.75 * size
    delta8 = Seq2Labels.load(str(tmp_path / "int8")).state_dict()[key] - base.state_dict()[key]
    assert torch.allclose(delta8, best_rank8, atol=2e-2 * best_rank8.abs().max().item())  # int8 rounding
