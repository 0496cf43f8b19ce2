"""$DELETE: the target may leave source words out; what a deleted word carried moves where a reader expects
it, and apply_tags stays the exact inverse of tags_from_pair for pairs with deletions."""
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from gector_punct.text.alignment import resolve_deletions
from gector_punct.text.tags import AlignmentError, Tag, apply_tags, make_source, tags_from_pair
from test_tags import normalised, target_word

FILLERS = st.sampled_from(["uh", "um", "Uh,", "you", "know", "i", "mean", "the", "Well,", "uh.", "“uh"])
# Neither the latest copies ("¿i" at 1, "i" at 4) nor the earliest ("i" at 0, "i." at 3) fit the marks.
MARKS_PICK_THE_COPIES = (["i", "¿i", "a", "i.", "i", "a"], "¿i a i. a")


@st.composite
def disfluent_pairs(draw) -> tuple[list[str], str]:
    """A written line with disfluent words inserted into its ASR-like (or already written) source:
    (source words, target line). A written source's target is what apply_tags makes of it, deleting the
    inserted words."""
    words = draw(st.lists(target_word(), min_size=1, max_size=20))
    assume(all(len(w.lower()) == len(w) == len(w.upper()) for w in words))
    written_source = draw(st.booleans())
    fluent = [make_source(w) or "x" for w in words] if not written_source else list(words)
    source, inserted = [], []
    for w in fluent:
        extra = draw(st.lists(FILLERS, max_size=2))
        extra = extra if written_source else [make_source(x) for x in extra]  # ASR fillers carry no marks
        source += extra + [w]
        inserted += [True] * len(extra) + [False]
    if not written_source:
        return source, " ".join(words)
    return source, apply_tags(source, [Tag(deletes=True) if i else Tag() for i in inserted])


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(disfluent_pairs())
@example(MARKS_PICK_THE_COPIES)
def test_round_trip_with_deletions(pair):
    """The target made by apply_tags from any tags must come back from tags_from_pair(deletions=True)."""
    source, target = pair
    tags = tags_from_pair(source, target, deletions=True)
    assert normalised(apply_tags(source, tags)) == normalised(target)


def test_reparandum_is_the_copy_that_goes():
    source = "uh so we went to the the store".split()
    tags = tags_from_pair(source, "So we went to the store.", deletions=True)
    assert [t.deletes for t in tags] == [True, False, False, False, False, True, False, False]
    assert apply_tags(source, tags) == "So we went to the store."
    # Unless only the earlier copy fits the marks: the later "uh" goes, or the "." would land on "a".
    source = "a uh. uh a a".split()
    target = apply_tags(source, [Tag(), Tag(), Tag(deletes=True), Tag(), Tag()])
    assert target == "a uh. a a"
    assert [t.deletes for t in tags_from_pair(source, target, deletions=True)] == [False, False, True, False, False]


def test_copies_kept_are_those_whose_marks_fit_on_both_sides():
    """Of the two "i" before "a" the bare one goes ("¿i" deleted would hand its "¿" on to "a"); of the two
    after it "i." stays ("i." deleted would hand its "." back to "a") and the bare one goes."""
    source, target = MARKS_PICK_THE_COPIES
    tags = tags_from_pair(source, target, deletions=True)
    assert [t.deletes for t in tags] == [True, False, False, False, True, False]
    assert apply_tags(source, tags) == target
    # A dotted acronym is its bare source word, deletions or not.
    source = "we saw us uh navy".split()
    tags = tags_from_pair(source, "We saw U.S. navy.", deletions=True)
    assert [t.deletes for t in tags] == [False, False, False, True, False] and tags[2].acronym


def test_deleted_words_hand_on_capital_and_marks():
    # A sentence-initial "Uh," hands its capital on; its comma goes with it.
    assert apply_tags("Uh, so we went.".split(), [Tag(deletes=True)] + [Tag()] * 3) == "So we went."
    # A deleted word's sentence end moves to the word before, replacing a pause mark, never doubling one.
    assert apply_tags("the store, uh.".split(), [Tag(), Tag(), Tag(deletes=True)]) == "the store."
    assert apply_tags("the store. uh.".split(), [Tag(), Tag(), Tag(deletes=True)]) == "the store."
    # An opening quote goes to the next word; a capital inside a sentence is the deleted word's own.
    assert apply_tags('he said “uh okay'.split(), [Tag(), Tag(), Tag(deletes=True), Tag()]) == "he said “okay"
    assert apply_tags("so I I know".split(), [Tag(), Tag(deletes=True), Tag(), Tag()]) == "so I know"
    # The deleted word's case tag counts (a tagger that capitalises a line-initial "uh" it deletes).
    assert apply_tags("uh so".split(), [Tag(deletes=True, case="$TRANSFORM_CASE_CAPITAL"), Tag()]) == "So"


def test_resolve_deletions_keeps_positions():
    words = ["Um,", "yes", "uh."]
    assert resolve_deletions(words, [True, False, True]) == ["Um,", "Yes.", "uh."]


def test_deletions_must_be_asked_for():
    with pytest.raises(AlignmentError, match="words"):
        tags_from_pair("uh so we went".split(), "So we went.")
    with pytest.raises(AlignmentError, match="not among the source words"):
        tags_from_pair("uh so we went".split(), "So they went.", deletions=True)
    tags = tags_from_pair("so we went".split(), "So we went.", deletions=True)  # nothing left out: no $DELETE
    assert not any(t.deletes for t in tags) and tags[2].append == "."


def test_restored_copies_and_dev_scores_are_written_by_the_one_writer():
    """``--targets`` training copies and dev scores read the text ``predict`` writes (``tags.written_forms``):
    what a deleted word carried has moved, and a Chinese line has full-width marks."""
    from gector_punct.dataset.reader import Instance
    from gector_punct.scoring.evaluation import consistency, score_tags
    words = "Uh, so we went".split()
    tags = tags_from_pair(words, "So we went.", deletions=True)
    instance = Instance(words, tags)
    assert instance.restored().words == ["So", "we", "went."]
    assert Instance(["我", "们"], [Tag(append=","), Tag(append=".")]).restored().words == ["我，", "们。"]
    result = score_tags([instance], [tags])
    assert result["words"] == 3 and result["punct"]["COMMA"]["support"] == 0
    assert result["case"]["CAPITAL"]["support"] == 1 and result["case"]["overall"]["f1"] == 100  # "So"
    assert consistency([instance], [tags])["words"] == 3
