"""utils/data/prepare_game_dialogue.py: the strings of a message catalogue, which of them become training lines
and how they are joined. Each test states its bug."""
import importlib.util
import struct

spec = importlib.util.spec_from_file_location("prepare_game_dialogue", "utils/data/prepare_game_dialogue.py")
dialogue = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dialogue)


def write_mo(path, pairs: dict) -> None:
    """A GNU message catalogue (.mo) of ``pairs`` (msgid -> msgstr), with its header entry."""
    pairs = {"": "Content-Type: text/plain; charset=UTF-8\n", **pairs}
    keys = sorted(pairs)
    ids = [k.encode() for k in keys]
    strs = [pairs[k].encode() for k in keys]
    start = 7 * 4 + 16 * len(keys)
    table, data = [], b""
    for blob in ids + strs:
        table.append((len(blob), start + len(data)))
        data += blob + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, len(keys), 28, 28 + 8 * len(keys), 0, 0)
    body = b"".join(struct.pack("<2I", *entry) for entry in table)
    path.write_bytes(header + body + data)


def test_a_catalogue_gives_its_translations_not_its_header(tmp_path):
    path = tmp_path / "wesnoth-test.mo"
    write_mo(path, {"Where are you going?": "Dove stai andando?", "Hello": "Ciao"})
    assert sorted(dialogue.catalogue_strings(str(path))) == ["Ciao", "Dove stai andando?"]


def test_only_edited_plain_dialogue_becomes_lines():
    """Markup (``$name``, ``<b>``), a battle cry's ``!``, a dash, a title without an end mark and a Spanish
    question without its ``¿`` are left out; the rest is joined, in order, into lines of --min_words words."""
    strings = ["Possiamo fidarci di lui?", "Forse, ma non ne sono sicuro.", "Attacca $unit.name subito.",
               "<b>Vittoria</b> è nostra.", "Alle armi, uomini!", "Aspetta — ascolta.", "La Valle della Morte",
               "Hai visto il fiume a nord?", "Sì, ieri sera."]
    assert dialogue.dialogue_lines(strings, "it", min_words=8, max_words=40) == [
        "Possiamo fidarci di lui? Forse, ma non ne sono sicuro.", "Hai visto il fiume a nord? Sì, ieri sera."]
    assert dialogue.dialogue_lines(["Vienes con nosotros?", "¿Vienes con nosotros esta noche?"], "es", 3, 40) == \
        ["¿Vienes con nosotros esta noche?"]
    assert dialogue.dialogue_lines(["Hai visto il fiume a nord oggi?"], "it", 3, 5) == []  # over --max_words
