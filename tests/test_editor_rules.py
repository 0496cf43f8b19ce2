"""Issue 42's line rules, each alone on a ``Line``: the marks an editor would not write (a greeting's ``!``, a
fragment's ``?``, an ellipsis at an utterance's end), numbers and codes kept whole, Spanish ``¿`` by its
question words; and the words the rules read (``gector_punct.text.speech``). Each test states its bug."""
import numpy as np
import pytest

from gector_punct.model.config import DecodeConfig
from gector_punct.prediction.decoding import closing_columns
from gector_punct.prediction.decoded_line import decide
from gector_punct.prediction.line_rules import (LINE_RULES, WORD_RULES, close_utterance, join_after_addresses,
                                                join_spoken_numbers, pair_openings)
from gector_punct.prediction.sentence_rules import (ask_inverted_questions, greet_with_commas, join_question_fragments,
                                                    join_subordinate_clauses, plain_statements, thank_with_commas)
from gector_punct.text.sentences import trails_off
from gector_punct.text.language import language_of
from gector_punct.text.speech import asks, asks_for_any, greeting_length, inverted, subordinate
from gector_punct.text.tags import CAPITAL, KEEP, MARK_CONTEXTS, NONE_CONTEXT, PAUSE_CONTEXT, Tag
from test_decoding_rules import line_of, written

CAP = Tag(case=CAPITAL)


def test_a_greeting_the_line_goes_on_from_takes_a_comma():
    """``hello thank you for calling acme insurance`` gave ``Hello! Thank you ...``: an editor writes ``Hello,
    thank you``; the next word takes the model's case after a comma (lower here)."""
    words = "hello thank you for calling".split()
    tags = [Tag(case=CAPITAL, append="!"), CAP, Tag(), Tag(), Tag(append=".")]
    lower_after_comma = [(KEEP,) * len(MARK_CONTEXTS)] * len(words)
    line = line_of(words, tags, case=lower_after_comma)
    assert written(greet_with_commas(line)) == "Hello, thank you for calling."


def test_a_greeting_tempered_from_an_exclamation_still_takes_a_comma():
    """The greeting rule reads the tagger's own ``!``: run after ``temper_exclamations`` (which had turned an
    unsure ``Hello!`` into ``Hello.``), it no longer saw the greeting, and the ensemble wrote ``Hello. Thank
    you for calling``. In the rules' order, the greeting takes its comma whatever the ``!``'s probability."""
    words = "hello thank you for calling".split()
    tags = [Tag(case=CAPITAL, append="!"), CAP, Tag(), Tag(), Tag(append=".")]
    line = line_of(words, tags, case=[(KEEP,) * len(MARK_CONTEXTS)] * len(words), config=DecodeConfig(exclamation=0.9),
                   exclaim=[0.6, 0.0, 0.0, 0.0, 0.0])
    assert written(decide(line, LINE_RULES[len(WORD_RULES):])) == "Hello, thank you for calling."
    # Before anything but a thanks (a tempered "Hello." before a thanks takes its comma in either order).
    words = "hello we are open today".split()
    line = line_of(words, tags, case=[(KEEP,) * len(MARK_CONTEXTS)] * len(words), config=DecodeConfig(exclamation=0.9),
                   exclaim=[0.6, 0.0, 0.0, 0.0, 0.0])
    assert written(decide(line, LINE_RULES[len(WORD_RULES):])) == "Hello, we are open today."


def test_a_greeting_with_a_name_and_what_stays():
    """``Hey Siri! Set a timer``: a greeting and a name are set off too; a greeting alone on its line, one
    that asks (``Hello?``) or ends with ``.`` (``Good afternoon. My name is``) and a sentence that only begins
    with a greeting keep their marks."""
    case = [(KEEP,) * len(MARK_CONTEXTS)] * 5
    words = "hey siri set a timer".split()
    tags = [CAP, Tag(case=CAPITAL, append="!"), CAP, Tag(), Tag(append=".")]
    assert written(greet_with_commas(line_of(words, tags, case=case))) == "Hey Siri, set a timer."
    words = "hi everyone thanks for joining".split()  # an addressee as a name: it was "Hi everyone! Thanks"
    tags = [CAP, Tag(append="!"), CAP, Tag(), Tag(append=".")]
    assert written(greet_with_commas(line_of(words, tags, case=case))) == "Hi everyone, thanks for joining."
    assert written(greet_with_commas(line_of(["hello"], [Tag(case=CAPITAL, append="!")]))) == "Hello!"
    words = "hello is anyone there".split()
    tags = [Tag(case=CAPITAL, append="?"), CAP, Tag(), Tag(append="?")]
    assert written(greet_with_commas(line_of(words, tags))) == "Hello? Is anyone there?"
    words = "good afternoon my name".split()
    tags = [CAP, Tag(append="."), CAP, Tag()]
    assert written(greet_with_commas(line_of(words, tags))) == "Good afternoon. My name"
    words = "hi there everyone welcome".split()
    tags = [CAP, Tag(), Tag(append="!"), CAP]
    assert written(greet_with_commas(line_of(words, tags))) == "Hi there everyone! Welcome"
    words = "buongiorno a tutti iniziamo".split()  # those greeted in a phrase: no comma before it either
    tags = [Tag(case=CAPITAL, append=","), Tag(), Tag(append=","), Tag(append=".")]
    assert written(greet_with_commas(line_of(words, tags))) == "Buongiorno a tutti, iniziamo."


def test_the_case_after_the_new_comma_is_the_models_pause_case():
    """A name after a greeting keeps its capital: the model's case in the pause context says so."""
    words = "hi sarah".split()
    case = [(KEEP,) * len(MARK_CONTEXTS), tuple(CAPITAL if c == PAUSE_CONTEXT else KEEP for c in range(4))]
    tags = [Tag(case=CAPITAL, append="!"), Tag(case=CAPITAL, append=".")]
    assert written(greet_with_commas(line_of(words, tags, case=case))) == "Hi, Sarah."


def test_a_fragment_that_does_not_ask_ends_with_a_period():
    """``ok then`` gave ``Ok, then?``, ``if not we can finish early today`` ``If not? We can finish early
    today?``: no question word, auxiliary, tag or choice, no ``?``. Questions keep theirs."""
    words = "ok then".split()
    assert written(plain_statements(line_of(words, [Tag(append=","), Tag(append="?")]))) == "ok, then."
    words = "does anyone have any business if not we can finish early today".split()
    tags = [Tag()] * 4 + [Tag(append="?"), Tag(), Tag(append="?")] + [Tag()] * 4 + [Tag(append="?")]
    assert written(plain_statements(line_of(words, tags))) == \
        "does anyone have any business? if not. we can finish early today."
    words = "lisa do you have an update".split()  # a clause after a pause asks
    tags = [Tag(append=","), Tag(), Tag(), Tag(), Tag(), Tag(append="?")]
    assert written(plain_statements(line_of(words, tags))) == "lisa, do you have an update?"
    words = "hello is this the pharmacy".split()  # a greeting is a lead-in
    tags = [Tag(), Tag(), Tag(), Tag(), Tag(append="?")]
    assert written(plain_statements(line_of(words, tags))) == "hello is this the pharmacy?"
    words = "which one the red one or the blue one".split()
    tags = [Tag(), Tag(append="?")] + [Tag()] * 6 + [Tag(append="?")]
    assert written(plain_statements(line_of(words, tags))) == "which one? the red one or the blue one?"


def test_a_question_the_model_is_sure_of_stays_as_said():
    """``you condemn their interference?``: a question said as a statement keeps a ``?`` the model gives at
    least ``DecodeConfig.sure_question``."""
    words = "you condemn their interference".split()
    tags = [Tag(), Tag(), Tag(), Tag(append="?")]
    assert written(plain_statements(line_of(words, tags, asking=[0, 0, 0, 0.9]))) == "you condemn their interference?"
    assert written(plain_statements(line_of(words, tags, asking=[0, 0, 0, 0.6]))) == "you condemn their interference."


def test_a_question_mark_in_another_language_or_the_inputs_own_stays():
    """The English rule leaves a Spanish or German question alone, and a ``?`` the input already had."""
    words = "kommst du mit".split()
    assert written(plain_statements(line_of(words, [Tag(), Tag(), Tag(append="?")]))) == "kommst du mit?"
    words = "ok then?".split()
    assert written(plain_statements(line_of(words))) == "ok then?"


def test_what_asks_in_english():
    for text in ["what time is it", "and what about you", "can you hear me now", "isn't it great",
                 "you're coming right", "it's fine isn't it", "the red one or the blue one", "any questions",
                 "so how's it going", "really", "ok so do we agree", "what's up"]:
        assert asks(text.split()), text
    for text in ["ok then", "if not", "we can finish early today", "better", "thanks", "i think so"]:
        assert not asks(text.split()), text
    assert language_of("ok then".split()) == "en" and language_of("qué hora es".split()) == "es"
    assert language_of("wie spät ist es".split()) == "de"
    assert greeting_length("good morning everyone".split()) == 2 and greeting_length(["hi"]) == 1
    assert greeting_length("highly unusual".split()) == 0


def test_an_ellipsis_at_an_utterances_end_becomes_its_mark():
    """``... two three eight...``: a recogniser's utterance ended; it did not trail off. Mid-line it stays, and
    so does an ellipsis the input had."""
    words = "call me on eight".split()
    tags = [Tag(), Tag(), Tag(), Tag(append="...")]
    assert written(close_utterance(line_of(words, tags, whole=True))) == "call me on eight."
    assert written(close_utterance(line_of(words, tags, whole=True, last_mark="?"))) == "call me on eight?"
    assert written(close_utterance(line_of(words, tags))) == "call me on eight..."  # a fragment: as tagged
    words = "well... i don't know".split()
    tags = [Tag(), Tag(), Tag(), Tag(append="...")]
    assert written(close_utterance(line_of(words, tags, whole=True))) == "well... i don't know."
    assert written(close_utterance(line_of(["so..."], whole=True))) == "so..."
    assert trails_off('..."') and trails_off("…") and not trails_off(".")


def test_an_ellipsis_is_no_sure_sentence_end_between_numbers():
    """``nine oh two one... Oh.``: the ``...`` labels' probability counted as a sure sentence end; only the
    labels that close a sentence count (``closing_columns``)."""
    names = ["$KEEP", "$APPEND_,", "$APPEND_.", "$APPEND_...", "$APPEND_?", "$APPEND_!", "$APPEND_…"]
    assert [names[j] for j in closing_columns(names)] == ["$APPEND_.", "$APPEND_?", "$APPEND_!"]
    p = np.array([[0.1, 0.1, 0.2, 0.6, 0.0, 0.0, 0.0]], dtype=np.float32)
    assert abs(float(p[:, closing_columns(names)].sum()) - 0.2) < 1e-6


def test_a_letter_and_a_number_are_one_code():
    """``gate b twelve`` gave ``gate B. Twelve.``: a letter said beside a number is part of a code, written
    upper-case (``fourteen d`` stayed lower-case); ``a`` and ``i`` are words; a sentence end the model is sure
    of still stays."""
    words = "from gate b twelve".split()
    tags = [Tag(), Tag(), Tag(case=CAPITAL, append="."), Tag(case=CAPITAL, append=".")]
    assert written(join_spoken_numbers(line_of(words, tags))) == "from gate B twelve."
    words = "seat twelve c please".split()
    tags = [Tag(), Tag(append="."), Tag(case=CAPITAL, append=","), Tag()]
    assert written(join_spoken_numbers(line_of(words, tags))) == "seat twelve C, please"
    words = "in fourteen d and b two".split()  # the model left the letter lower-case: "fourteen d"
    assert written(join_spoken_numbers(line_of(words, [Tag()] * 6))) == "in fourteen D and B two"
    words = "i want a two".split()
    tags = [Tag(), Tag(), Tag(append=","), Tag()]
    assert written(join_spoken_numbers(line_of(words, tags))) == "i want a, two"
    words = "plan b two more".split()
    sure = [0.0, 0.95, 0.0, 0.0]
    tags = [Tag(), Tag(case=CAPITAL, append="."), CAP, Tag()]
    assert written(join_spoken_numbers(line_of(words, tags, sentence_end=sure))) == "plan B. Two more"


def test_a_spanish_question_word_opens_the_question():
    """``qué hora es`` gave ``Qué hora es?``: P(¿) at ``qué`` was 0.40, under ``question_opening``; an
    accented question word says the line is Spanish, and the ``¿`` goes where the model likes it best."""
    words = "qué hora es".split()
    tags = [Tag(case=CAPITAL), Tag(), Tag(append="?")]
    opening = [0.40, 0.01, 0.0]
    assert written(pair_openings(line_of(words, tags, question_opening=opening))) == "¿Qué hora es?"
    words = "y tú cuántos años tienes".split()
    tags = [Tag(case=CAPITAL), Tag(append=","), Tag(), Tag(), Tag(append="?")]
    opening = [0.05, 0.0, 0.09, 0.0, 0.0]
    assert written(pair_openings(line_of(words, tags, question_opening=opening))) == "Y tú, ¿cuántos años tienes?"
    words = "qué tal el fin de semana".split()  # two openings, one sentence: the first stays
    tags = [Tag(prepend="¿", case=CAPITAL), Tag(), Tag(prepend="¿"), Tag(), Tag(), Tag(append="?")]
    assert written(pair_openings(line_of(words, tags))) == "¿Qué tal el fin de semana?"
    words = "who is it".split()  # no Spanish word and a small P(¿): no ¿
    tags = [Tag(case=CAPITAL), Tag(), Tag(append="?")]
    assert written(pair_openings(line_of(words, tags, question_opening=[0.1, 0, 0],
                                          config=DecodeConfig()))) == "Who is it?"


def test_a_spanish_exclamation_opens_with_its_mark_as_a_question_does():
    """Issue 49: Spanish opens every exclamation with ``¡``, not only its questions with ``¿``. In a Spanish
    line (a question word, or an opening the model likes), a sentence closed with ``!`` opens where ``¡`` is
    likeliest; an English exclamation stays as it is, and a ``¡`` whose sentence ends otherwise goes."""
    words = "qué bien me alegro mucho".split()
    tags = [Tag(case=CAPITAL), Tag(append="!"), Tag(case=CAPITAL), Tag(), Tag(append=".")]
    assert written(pair_openings(line_of(words, tags, exclamation_opening=[0.3, 0.01, 0.02, 0, 0]))) == \
        "¡Qué bien! Me alegro mucho."
    words = "vamos ya dónde estás".split()  # a question word says the line is Spanish: both open
    tags = [Tag(case=CAPITAL), Tag(append="!"), Tag(case=CAPITAL), Tag(append="?")]
    assert written(pair_openings(line_of(words, tags, exclamation_opening=[0.1, 0.05, 0, 0],
                                          question_opening=[0, 0, 0.2, 0.1]))) == "¡Vamos ya! ¿Dónde estás?"
    words = "wow that is great".split()
    tags = [Tag(case=CAPITAL, append="!"), Tag(case=CAPITAL), Tag(), Tag(append="!")]
    assert written(pair_openings(line_of(words, tags, exclamation_opening=[0.01, 0.01, 0, 0]))) == \
        "Wow! That is great!"
    words = "hola amigo".split()
    tags = [Tag(prepend="¡", case=CAPITAL), Tag(append=".")]
    assert written(pair_openings(line_of(words, tags))) == "Hola amigo."
    words = "has visto mi correo de esta mañana".split()  # no question word, no likely ¿: its words are Spanish
    tags = [Tag(case=CAPITAL), Tag(), Tag(), Tag(), Tag(), Tag(), Tag(append="?")]
    opening = [0.04, 0.01, 0, 0, 0, 0, 0]
    assert written(pair_openings(line_of(words, tags, question_opening=opening))) == \
        "¿Has visto mi correo de esta mañana?"
    for text in ("wie spät ist es", "il y a un problème", "was ist los"):  # German and French: no opening
        words = text.split()
        tags = [Tag(case=CAPITAL)] + [Tag()] * (len(words) - 2) + [Tag(append="?")]
        assert "¿" not in written(pair_openings(line_of(words, tags, question_opening=[0.04] * len(words))))
    words = "hai visto la mia mail".split()  # Italian: no opening
    tags = [Tag(case=CAPITAL), Tag(), Tag(), Tag(), Tag(append="?")]
    assert written(pair_openings(line_of(words, tags, question_opening=opening[:5]))) == "Hai visto la mia mail?"


def test_a_question_by_its_word_order_takes_a_question_mark():
    """accurate_en closed half the everyday questions with ``.`` (``Do you want to come with us tomorrow.``,
    ``How much does it cost.``): a sentence that opens with an auxiliary before its subject, or a question
    word before an auxiliary, asks. Statements that open alike stay (``Had we known``, ``What's interesting
    is``, ``Do that again``), and so do the first and last sentences of a line cut anywhere."""
    for text in ["do you want to come with us tomorrow", "how much does it cost", "is there a problem",
                 "what time does the store close on sunday", "so what do you think", "who is picking up the kids"]:
        assert inverted(text.split()), text
    for text in ["had we known we would have come", "what's interesting is that it works", "do that again",
                 "when people are finished they leave", "what he said was wrong", "have a nice day"]:
        assert not inverted(text.split()), text
    words = "lisa do you have an update".split()
    tags = [Tag(case=CAPITAL, append=","), Tag(), Tag(), Tag(), Tag(), Tag(append=".")]
    assert written(ask_inverted_questions(line_of(words, tags, whole=True))) == "Lisa, do you have an update?"
    words = "it works how much does it cost fine".split()
    tags = [CAP, Tag(append="."), CAP, Tag(), Tag(), Tag(), Tag(append="."), CAP]
    assert written(ask_inverted_questions(line_of(words, tags))) == "It works. How much does it cost? Fine"
    fragment = "how much does it cost".split()  # a line cut anywhere: not known to start or end a sentence
    tags = [CAP, Tag(), Tag(), Tag(), Tag(append=".")]
    assert written(ask_inverted_questions(line_of(fragment, tags))) == "How much does it cost."
    assert written(ask_inverted_questions(line_of(fragment, tags, whole=True))) == "How much does it cost?"
    # A condition's inversion followed by a pause is no question (an exception no test held).
    for text, pause in (("should you need help call us", 3), ("were it not for you we would be lost", 4)):
        words = text.split()
        tags = [CAP] + [Tag(append=",") if k == pause else Tag() for k in range(1, len(words) - 1)] + [Tag(append=".")]
        assert written(ask_inverted_questions(line_of(words, tags, whole=True))).endswith(".")


def test_a_subordinate_clause_is_joined_to_the_next_sentence():
    """``before we wrap up does anyone have any questions`` gave ``Before we wrap up. Does anyone ...?``: a
    sentence of one subordinate clause is joined to the next with a comma, the next word in the model's case
    after a comma. A clause with a pause inside (a main clause after it), a longer one, one the line ends
    with, and a fragment line's first sentence (it may begin mid-sentence) stay."""
    case = [(KEEP,) * len(MARK_CONTEXTS)] * 7
    words = "before we wrap up does anyone ask".split()
    tags = [CAP, Tag(), Tag(), Tag(append="."), CAP, Tag(), Tag(append="?")]
    assert written(join_subordinate_clauses(line_of(words, tags, case=case, whole=True))) == \
        "Before we wrap up, does anyone ask?"
    assert written(join_subordinate_clauses(line_of(words, tags, case=case))) == "Before we wrap up. Does anyone ask?"
    words = "we left if not we stay".split()
    tags = [CAP, Tag(append="."), CAP, Tag(append="."), CAP, Tag(append=".")]
    assert written(join_subordinate_clauses(line_of(words, tags, case=case[:6]))) == "We left. If not, we stay."
    words = "when it rained we left it was late".split()
    tags = [CAP, Tag(), Tag(append=","), Tag(), Tag(append="."), CAP, Tag(), Tag(append=".")]
    assert written(join_subordinate_clauses(line_of(words, tags, whole=True))) == \
        "When it rained, we left. It was late."
    words = "if you can get here before six or seven we could".split()
    tags = [CAP] + [Tag()] * 7 + [Tag(append=".")] + [CAP, Tag()]
    assert written(join_subordinate_clauses(line_of(words, tags, whole=True))) == \
        "If you can get here before six or seven. We could"
    words = "we go. if not".split()
    tags = [CAP, Tag(), Tag(case=CAPITAL), Tag(append=".")]
    assert written(join_subordinate_clauses(line_of(words, tags, whole=True))) == "We go. If not."
    assert subordinate(["as", "soon", "as", "it", "ends"], 8) and not subordinate(["as", "it", "ends"], 8)


def test_a_greeting_and_its_name_take_no_comma_between_them():
    """The ensemble wrote ``Hey, Siri, set a timer``: a voice assistant's name goes with its greeting (``Hey
    Siri, set``), an addressee too (``Hi everyone!``); a comma after a greeting before other words, or before
    a person's name (the cased dev text's ``Hey, Michael,``), stays."""
    words = "hey siri set a timer".split()
    tags = [Tag(case=CAPITAL, append=","), Tag(case=CAPITAL, append=","), Tag(), Tag(), Tag(append=".")]
    assert written(greet_with_commas(line_of(words, tags))) == "Hey Siri, set a timer."
    words = "hi everyone".split()
    assert written(greet_with_commas(line_of(words, [Tag(case=CAPITAL, append=","), Tag(append="!")]))) == "Hi everyone!"
    words = "hello thank you".split()
    tags = [Tag(case=CAPITAL, append=","), Tag(), Tag(append=".")]
    assert written(greet_with_commas(line_of(words, tags))) == "Hello, thank you."
    words = "hey michael come".split()  # a person's name keeps its comma of address
    tags = [Tag(case=CAPITAL, append=","), Tag(case=CAPITAL, append=","), Tag(append=".")]
    assert written(greet_with_commas(line_of(words, tags))) == "Hey, Michael, come."


def test_a_question_that_asks_for_any_takes_a_question_mark():
    """``any questions before we move on to the next topic`` ended with ``.`` (the ensemble): a sentence
    asking for something with ``any`` and the rest unsaid is a question; ``any feedback is welcome`` is not."""
    words = "any questions before we move on".split()
    tags = [CAP, Tag(), Tag(), Tag(), Tag(), Tag(append=".")]
    assert written(ask_inverted_questions(line_of(words, tags, whole=True))) == "Any questions before we move on?"
    words = "any feedback is welcome".split()
    tags = [CAP, Tag(), Tag(), Tag(append=".")]
    assert written(ask_inverted_questions(line_of(words, tags, whole=True))) == "Any feedback is welcome."
    assert asks_for_any(["so", "any", "other", "comments"]) and not asks_for_any(["any", "time", "you", "want"])


NO_CASE = (KEEP,) * len(MARK_CONTEXTS)


def test_greetings_of_other_languages_take_their_commas():
    """``ciao come stai oggi`` gave ``Ciao come stai?``, ``bonjour à tous merci d'être venus`` ``Bonjour à
    tous. Merci d'être venus.``: a greeting left unmarked before the rest of its sentence, or ended with ``.``
    before a thanks, is set off with a comma. A greeting that is a noun too, a wake word or a name after the
    greeting, and a greeting's ``.`` before anything but a thanks stay."""
    def greeted(text, tags, case=None):
        words = text.split()
        return written(greet_with_commas(line_of(words, tags, case=case or [NO_CASE] * len(words))))

    assert greeted("ciao come stai", [CAP, Tag(), Tag(append="?")]) == "Ciao, come stai?"
    assert greeted("bonjour à tous merci d'être venus", [CAP, Tag(), Tag(append="."), CAP, Tag(), Tag(append=".")]) \
        == "Bonjour à tous, merci d'être venus."
    assert greeted("good morning everyone thank you", [CAP, Tag(), Tag(append="."), CAP, Tag(append=".")]) \
        == "Good morning everyone, thank you."
    assert greeted("morning is the best time", [CAP, Tag(), Tag(), Tag(), Tag(append=".")]) \
        == "Morning is the best time."
    assert greeted("hey siri set a timer", [CAP, CAP, Tag(), Tag(), Tag(append=".")]) == "Hey Siri set a timer."
    assert greeted("hello john how are you", [CAP, CAP, Tag(), Tag(), Tag(append="?")]) == "Hello John how are you?"
    assert greeted("buongiorno a tutti iniziamo", [CAP, Tag(), Tag(append="."), CAP]) == "Buongiorno a tutti. Iniziamo"


def test_a_thanks_said_alone_joins_the_sentence_before():
    """``io sto bene grazie`` gave ``Io sto bene. Grazie.``: a one-word thanks after a short reply closed with
    ``.`` joins it with a comma, lower-case. A thanks after a longer sentence, a question or another thanks
    (``Merci beaucoup. Merci.``), one after a fragment's first sentence (not known to start there: ``...
    l'intérêt général. Merci.``) and an English one (``I bought it. Thanks.``) stay."""
    def thanked(text, tags, whole=True):
        words = text.split()
        return written(thank_with_commas(line_of(words, tags, case=[NO_CASE] * len(words), whole=whole)))

    reply = [CAP, Tag(), Tag(append="."), Tag(case=CAPITAL, append=".")]
    assert thanked("io sto bene grazie", reply) == "Io sto bene, grazie."
    four, five = [CAP, Tag(), Tag(), Tag(append=".")], [CAP, Tag(), Tag(), Tag(), Tag(append=".")]
    assert thanked("io sto molto bene grazie", four + [reply[-1]]) == "Io sto molto bene, grazie."  # DecodeConfig.reply_words
    assert thanked("oggi io sto molto bene grazie", five + [reply[-1]]) == "Oggi io sto molto bene. Grazie."
    assert thanked("io sto bene grazie", reply, whole=False) == "Io sto bene. Grazie."
    assert thanked("non merci", [Tag(case=CAPITAL, append="."), Tag(case=CAPITAL, append=".")]) == "Non, merci."
    assert thanked("i bought it thanks", [CAP, Tag(), Tag(append="."), CAP]) == "I bought it. Thanks"  # English
    assert thanked("sei sicuro grazie", [CAP, Tag(append="?"), Tag(case=CAPITAL, append=".")]) \
        == "Sei sicuro? Grazie."
    assert thanked("merci beaucoup merci", [CAP, Tag(append="."), Tag(case=CAPITAL, append=".")]) \
        == "Merci beaucoup. Merci."
    assert thanked("pour le projet du tramway merci", [CAP] + [Tag()] * 3 + [Tag(append="."), CAP]) \
        == "Pour le projet du tramway. Merci"


def test_a_one_word_fragment_joins_the_question_its_mark_spread_from():
    """``come stai oggi`` gave ``Come stai? Oggi?``: an unsure one-word ``?`` sentence after a question is its
    last word (Spanish: without a ``¿`` of its own). A sure one, a word that asks alone (``Perché?``), a name
    (``Parigi? Londra?``) and an English line's (mostly the next sentence's start) stay."""
    asked = Tag(append="?")

    def joined(text, tags, asking, case=None):
        words = text.split()
        line = line_of(words, tags, asking=asking, case=case or [NO_CASE] * len(words))
        return written(join_question_fragments(line))

    tags = [CAP, asked, Tag(case=CAPITAL, append="?")]
    assert joined("come stai oggi", tags, [0.0, 0.6, 0.3]) == "Come stai oggi?"
    assert joined("come stai oggi", tags, [0.0, 0.6, 0.9]) == "Come stai? Oggi?"
    assert joined("lo sai perché", tags, [0.0, 0.6, 0.3]) == "Lo sai? Perché?"
    name = tuple(CAPITAL if c == NONE_CONTEXT else KEEP for c in range(len(MARK_CONTEXTS)))
    assert joined("vai parigi londra", tags, [0.0, 0.6, 0.3], case=[NO_CASE, NO_CASE, name]) == "Vai parigi? Londra?"
    assert joined("what about boy", tags, [0.0, 0.6, 0.3]) == "What about? Boy?"  # English: plain_statements
    spanish = [Tag(prepend="¿", case=CAPITAL), Tag(append="?"), Tag(prepend="¿", case=CAPITAL, append="?")]
    assert joined("vienes hoy mañana", spanish, [0.0, 0.6, 0.3]) == "¿Vienes hoy mañana?"


def test_an_unsure_sentence_end_after_an_address_goes():
    """``send your questions to support@acme-insurance.com and we'll get back to you`` gave ``...insurance.com.
    And we'll get back``: after an address the line goes on from, a sentence end below ``DecodeConfig.sure_sentence_end``
    goes and the next word takes its case after no mark. A sure one, one at the line's end and the input's own
    stay."""
    words = "write to support@acme.com and we'll answer".split()
    tags = [CAP, Tag(), Tag(append="."), CAP, Tag(), Tag(append=".")]
    case = [NO_CASE] * len(words)

    def joined(words, sure):
        return written(join_after_addresses(line_of(words, tags, case=case, sentence_end=[0, 0, sure, 0, 0, 0.9])))

    assert joined(words, 0.55) == "Write to support@acme.com and we'll answer."
    assert joined(words, 0.9) == "Write to support@acme.com. And we'll answer."
    own = line_of(["write", "to", "support@acme.com."] + words[3:], [CAP, Tag(), Tag()] + tags[3:], case=case,
                  sentence_end=[0, 0, 0.55, 0, 0, 0.9])
    assert written(join_after_addresses(own)) == "Write to support@acme.com. And we'll answer."
    last = line_of(words[:3], tags[:3], case=case[:3], sentence_end=[0, 0, 0.55])
    assert written(join_after_addresses(last)) == "Write to support@acme.com."
    # A period a stream already wrote (given) stays, and so does the capital after it.
    decided = line_of(words, tags, given=tags[:3], case=case, sentence_end=[0, 0, 0.55, 0, 0, 0.9])
    assert written(join_after_addresses(decided)) == "Write to support@acme.com. And we'll answer."


# ---- pair_openings' edges: which lines are Spanish, which sentences open, what an opening is kept with ------

def test_a_line_of_no_language_opens_only_on_the_models_evidence():
    """A line whose words name no language (``ok``) opens its questions when a word is ``question_opening``
    likely (the threshold itself counts) or an opening is there already; without evidence it stays; an Italian
    line never opens, whatever the evidence (``chi tiene le chiavi?``)."""
    words, tags = ["mm", "ok"], [Tag(), Tag(append="?")]
    assert language_of(words) is None
    assert written(pair_openings(line_of(words, tags, question_opening=[0.1, 0.1]))) == "mm ok?"
    assert written(pair_openings(line_of(words, tags, question_opening=[0.5, 0.1]))) == "¿mm ok?"
    italian = "chi tiene le chiavi".split()
    tags = [Tag()] * 3 + [Tag(append="?")]
    assert written(pair_openings(line_of(italian, tags, question_opening=[0.9, 0, 0, 0]))) == "chi tiene le chiavi?"
    words = ["mm", "mm", "mm"]  # an opening the tags wrote makes the line Spanish: the first question opens too
    tags = [Tag(append="?"), Tag(prepend="¿"), Tag(append="?")]
    assert written(pair_openings(line_of(words, tags, question_opening=[0.1, 0.1, 0.1]))) == "¿mm? ¿mm mm?"


def test_a_spanish_question_opens_only_where_the_label_set_can():
    """A label set without ``¿`` gives every word 0: nothing to open with, the question stays as tagged."""
    words, tags = "dónde está la estación".split(), [Tag()] * 3 + [Tag(append="?")]
    assert written(pair_openings(line_of(words, tags, question_opening=[0.0] * 4))) == "dónde está la estación?"


def test_a_sentence_is_closed_by_its_kept_words_last_sentence_mark():
    """A comma ends no sentence (its opening stays), and of ``?!`` the last mark says how the sentence
    opens."""
    tags = [Tag(prepend="¿", append=","), Tag(append="?")]
    assert written(pair_openings(line_of(["qué", "tal"], tags))) == "¿qué, tal?"
    words, tags = ["qué", "dices"], [Tag(), Tag(append="?!")]
    assert written(pair_openings(line_of(words, tags, question_opening=[0.5, 0], exclamation_opening=[0.5, 0]))) \
        == "¡qué dices?!"
    words, tags = "bueno pues dónde estás".split(), [Tag(), Tag(append="…"), Tag(), Tag(append="?")]  # trails off
    assert written(pair_openings(line_of(words, tags, question_opening=[0.6, 0, 0.9, 0]))) == \
        "bueno pues… ¿dónde estás?"


def test_a_chinese_line_loses_its_openings_and_keeps_its_other_marks(monkeypatch):
    units = ["你", "好", "吗"]
    tags = [Tag(prepend="“(¿"), Tag(), Tag(append="?")]
    assert written(pair_openings(line_of(units, tags, question_opening=[1.0] * 3))) == "“（你好吗？"


def test_a_line_that_asks_and_exclaims_nothing_needs_no_language_guess(monkeypatch):
    """The language identifier loads on its first guess: a line with no ``? !`` and no opening is passed over
    without one."""
    import gector_punct.prediction.line_rules as line_rules

    monkeypatch.setattr(line_rules, "language_of", lambda words: pytest.fail("guessed a language"))
    line = line_of("dónde está".split(), [Tag(), Tag(append=".")])
    assert written(pair_openings(line)) == "dónde está."


def test_a_subordinate_clause_joins_only_an_english_lines_next_words_not_decided():
    """Only a clause closed with ``.`` joins (``Before we wrap up?`` stays), only in an English line (Spanish
    ``once`` is eleven), and not where its ``.`` was decided before (``given``: a stream's words already out),
    which gave ``Before we wrap up. does anyone ask?``."""
    case = [(KEEP,) * len(MARK_CONTEXTS)] * 7
    words = "before we wrap up does anyone ask".split()
    asked = [CAP, Tag(), Tag(), Tag(append="?"), CAP, Tag(), Tag(append="?")]
    assert written(join_subordinate_clauses(line_of(words, asked, case=case, whole=True))) == \
        "Before we wrap up? Does anyone ask?"
    tags = [CAP, Tag(), Tag(), Tag(append="."), CAP, Tag(), Tag(append="?")]
    assert written(join_subordinate_clauses(line_of(words, tags, case=case, whole=True, given=tags[:3]))) == \
        "Before we wrap up, does anyone ask?"
    for given in (tags[:4], tags[:5]):  # up. went out as it is: Does stays (it was "up. does")
        assert written(join_subordinate_clauses(line_of(words, tags, case=case, whole=True, given=given))) == \
            "Before we wrap up. Does anyone ask?"
    words = "once vamos a la playa mañana".split()
    tags = [Tag(case=CAPITAL, append="."), CAP] + [Tag()] * 3 + [Tag(append=".")]
    assert written(join_subordinate_clauses(line_of(words, tags, whole=True))) == "Once. Vamos a la playa mañana."


def test_no_language_is_guessed_for_a_line_a_rule_cannot_change(monkeypatch):
    """The English rules and the fragment rule look at a line's language only when it holds the mark they
    change (``.``, ``?``, two ``?``): the identifier is not loaded for the others."""
    import gector_punct.prediction.sentence_rules as sentence_rules

    monkeypatch.setattr(sentence_rules, "language_of", lambda words: pytest.fail("guessed a language"))
    line = line_of("before we wrap up does anyone ask".split(), [CAP] + [Tag()] * 5 + [Tag(append="!")])
    for rule in (join_subordinate_clauses, plain_statements, ask_inverted_questions, thank_with_commas,
                 join_question_fragments):
        assert written(rule(line)) == "Before we wrap up does anyone ask!"


def test_a_fragment_joins_only_a_question_of_two_words_right_before_it():
    """``Dove? Oggi?`` (a one-word question before), ``Dove sei? Come stai. Oggi?`` (a statement before),
    ``Come stai? Oggi?`` with a deleted word between them or the question already out (``given``), and an
    ``asking`` at ``sure_question`` itself stay; a later pair still joins after one that stays."""
    asked = Tag(append="?")

    def joined(text, tags, asking, **reading):
        words = text.split()
        line = line_of(words, tags, asking=asking, case=[NO_CASE] * len(words), **reading)
        return written(join_question_fragments(line))

    assert joined("dove oggi", [Tag(case=CAPITAL, append="?"), Tag(case=CAPITAL, append="?")], [0.6, 0.3]) == \
        "Dove? Oggi?"
    tags = [CAP, asked, CAP, Tag(append="."), Tag(case=CAPITAL, append="?")]
    assert joined("dove sei come stai oggi", tags, [0, 0.6, 0, 0, 0.3]) == "Dove sei? Come stai. Oggi?"
    tags = [CAP, asked, Tag(deletes=True), Tag(case=CAPITAL, append="?")]
    assert joined("come stai eh oggi", tags, [0, 0.6, 0, 0.3]) == "Come stai? Oggi?"
    tags = [CAP, asked, Tag(case=CAPITAL, append="?")]
    assert joined("come stai oggi", tags, [0, 0.6, 0.8]) == "Come stai? Oggi?"  # sure_question: 0.8
    assert joined("come stai oggi", tags, [0, 0.6, 0.3], given=tags[:2]) == "Come stai? Oggi?"
    assert joined("come stai oggi", tags, [0, 0.6, 0.3], given=tags[:1]) == "Come stai oggi?"
    tags = [Tag(case=CAPITAL, append="?"), Tag(case=CAPITAL, append="?"), CAP, asked, Tag(case=CAPITAL, append="?")]
    assert joined("dove oggi come stai domani", tags, [0.6, 0.3, 0, 0.6, 0.3]) == "Dove? Oggi? Come stai domani?"


def test_a_greeting_already_out_keeps_the_next_words_capital():
    """``Hello!`` given (a stream's words already out, its ``!`` with them): the next word keeps its capital
    (it was ``Hello! how are you?``); not given, the greeting takes a comma."""
    words = "hello how are you".split()
    tags = [Tag(case=CAPITAL, append="!"), CAP, Tag(), Tag(append="?")]
    case = [(KEEP,) * len(MARK_CONTEXTS)] * 4
    assert written(greet_with_commas(line_of(words, tags, case=case))) == "Hello, how are you?"
    assert written(greet_with_commas(line_of(words, tags, case=case, given=tags[:1]))) == "Hello! How are you?"


def test_a_thanks_joins_only_a_reply_right_before_it_in_a_line_not_english():
    """An English line keeps its thanks apart (``I am fine. Thanks.``); a deleted word between the reply and
    the thanks (``Très bien. Euh. Merci.``) keeps them apart; a later pair still joins after one that stays."""
    def thanked(text, tags):
        words = text.split()
        return written(thank_with_commas(line_of(words, tags, case=[NO_CASE] * len(words), whole=True)))

    thanks = Tag(case=CAPITAL, append=".")
    assert thanked("i am fine thanks", [CAP, Tag(), Tag(append="."), thanks]) == "I am fine. Thanks."
    assert thanked("très bien euh merci", [CAP, Tag(append="."), Tag(deletes=True), thanks]) == "Très bien. Merci."
    tags = [CAP, Tag(), Tag(), Tag(), Tag(), Tag(append="."), CAP, Tag(append="."), thanks]
    assert thanked("merci pour tout le projet ensemble très bien merci", tags) == \
        "Merci pour tout le projet ensemble. Très bien, merci."


def test_an_inverted_question_inside_a_fragment_line_asks_and_its_edges_stay():
    """A line read as a fragment (``--fragments``) may begin and end mid-sentence: its first and last sentences
    keep their ``.``, a sentence between them takes ``?``; one that opens an utterance (``opens``) asks from its
    first sentence. ``Lisa, do you ...`` asks after one word set off (two pauses too); ``Lisa, should you need
    help, call`` opens a condition."""
    words = "do you know it do you want tea do you see".split()
    tags = [CAP, Tag(), Tag(), Tag(append="."), CAP, Tag(), Tag(), Tag(append="."), CAP, Tag(), Tag(append=".")]
    assert written(ask_inverted_questions(line_of(words, tags))) == "Do you know it. Do you want tea? Do you see."
    assert written(ask_inverted_questions(line_of(words, tags, opens=True))) == \
        "Do you know it? Do you want tea? Do you see."
    words = "lisa do you want tea or coffee".split()
    tags = [Tag(case=CAPITAL, append=","), Tag(), Tag(), Tag(), Tag(append=","), Tag(), Tag(append=".")]
    assert written(ask_inverted_questions(line_of(words, tags, whole=True))) == "Lisa, do you want tea, or coffee?"
    tags = [CAP, Tag(), Tag(), Tag(), Tag(), Tag(), Tag(append=".")]
    assert written(ask_inverted_questions(line_of(words, tags, whole=True))) == "Lisa do you want tea or coffee."
    words = "lisa should you need help call me".split()
    tags = [Tag(case=CAPITAL, append=","), Tag(), Tag(), Tag(), Tag(append=","), Tag(), Tag(append=".")]
    assert written(ask_inverted_questions(line_of(words, tags, whole=True))) == "Lisa, should you need help, call me."


def test_a_later_subordinate_clause_joins_after_a_sentence_that_is_none():
    case = [(KEEP,) * len(MARK_CONTEXTS)] * 6
    words = "we left if not we stay".split()
    tags = [CAP, Tag(append="."), CAP, Tag(append="."), CAP, Tag(append=".")]
    assert written(join_subordinate_clauses(line_of(words, tags, case=case, whole=True))) == "We left. If not, we stay."


def test_a_greetings_comma_depends_on_what_follows_it():
    """``Michael! Come here.`` (a name, no greeting) stays; a greeting already out (``given``) keeps its mark,
    whatever its length; a later greeting takes its comma after a sentence with none; ``Good morning John!``
    greets a name (its last word); ``Hey, Siri set a timer.`` keeps the comma the name has no mark after;
    a greeting with the input's own comma is the input's to write; ``Hello and welcome`` takes none; a ``?`` as sure as ``sure_question`` stays a question."""
    case = [(KEEP,) * len(MARK_CONTEXTS)] * 10

    def greeted(text, tags, **reading):
        words = text.split()
        return written(greet_with_commas(line_of(words, tags, case=case[:len(words)], **reading)))

    assert greeted("michael come here", [Tag(case=CAPITAL, append="!"), CAP, Tag(append=".")]) == \
        "Michael! Come here."
    tags = [CAP, Tag(append="!"), CAP, Tag(), Tag(append="?")]
    assert greeted("hello everyone how are you", tags, given=tags[:1]) == "Hello everyone! How are you?"
    tags = [Tag(case=CAPITAL, append="."), Tag(case=CAPITAL, append="!"), CAP, Tag(), Tag(append="?")]
    assert greeted("okay hello how are you", tags) == "Okay. Hello, how are you?"
    tags = [CAP, Tag(), Tag(case=CAPITAL, append="!"), CAP, Tag(), Tag(append="?")]
    assert greeted("good morning john how are you", tags) == "Good morning John, how are you?"
    tags = [Tag(case=CAPITAL, append=","), CAP, Tag(), Tag(), Tag(append=".")]
    assert greeted("hey siri set a timer", tags) == "Hey, Siri set a timer."
    assert greeted("hello, how are you", [CAP, Tag(), Tag(), Tag(append="?")]) == "Hello, how are you?"
    tags = [CAP, Tag(), Tag(), Tag(append="?"), CAP, Tag(), Tag(), Tag(append="?")]  # each greeting its comma
    assert greeted("hello how are you hi what is new", tags) == "Hello, how are you? Hi, what is new?"
    tags = [CAP, Tag(), Tag(), Tag(), Tag(append="."), Tag(case=CAPITAL, append="!"), CAP, Tag(), Tag(append="?")]
    assert greeted("good morning everyone and welcome hello how are you", tags) == \
        "Good morning everyone and welcome. Hello, how are you?"
    assert greeted("hello and welcome", [CAP, Tag(), Tag(append=".")]) == "Hello and welcome."
    tags = [CAP, Tag(append="?")]
    assert written(plain_statements(line_of(["ok", "then"], tags, asking=[0, 0.8]))) == "Ok then?"
    assert written(plain_statements(line_of(["ok", "then"], tags, asking=[0, 0.79]))) == "Ok then."


def test_only_a_period_turns_into_a_question_mark_and_only_its_own():
    """``Do you hear me!`` keeps its ``!``; a period after a closing quote turns, the quote stays; ``Should,
    we go now.`` asks (a pause at the opener itself opens no condition); a later sentence asks after one that
    does not."""
    def asked(text, tags):
        return written(ask_inverted_questions(line_of(text.split(), tags, whole=True)))

    assert asked("do you hear me ok", [CAP, Tag(), Tag(), Tag(append="!"), Tag(case=CAPITAL, append=".")]) == \
        "Do you hear me! Ok."
    assert asked("do you know it", [CAP, Tag(), Tag(), Tag(prepend='"', append='".')]) == 'Do you know "it"?'
    assert asked("should we go now", [Tag(case=CAPITAL, append=","), Tag(), Tag(), Tag(append=".")]) == \
        "Should, we go now?"
    assert asked("it works do you see", [CAP, Tag(append="."), CAP, Tag(), Tag(append=".")]) == \
        "It works. Do you see?"
