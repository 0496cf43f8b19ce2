"""What the words of a spoken sentence say of how an editor writes it: whether it asks, whether it opens with
a greeting, whether it holds a spoken number. Which language a line is in is ``language.guess_language``'s.

In: a sentence's or a line's words (their cores, lower-case: ``units.split_edges(word)[1].lower()``). Out:
yes or no. The decoding's line rules (``prediction.line_rules``) read these where the model's marks alone
are not what an editor writes: a ``?`` on a fragment that does not ask (``Ok then?``, ``If not?``), a ``!``
after a greeting that the sentence goes on from (``Hello! Thank you for calling``), a Spanish question
without its ``¿`` (``Qué hora es?``).

* ``asks(cores)``: an English sentence asks when, past its lead-in words (``and``, ``so``, ``okay`` ...), it
  opens with a question word or an auxiliary verb (``what``, ``how``, ``do``, ``can``, ``isn't``), when it
  ends with a tag (``right``, ``isn't it``, ``or not``), when it offers a choice (``... or the blue one``),
  or when it is a one-word question (``really``, ``sorry``). A question said as a statement (``you're
  coming?``) is not seen: it is written with ``.``, as a transcript's editor without the voice does.
* ``greeting_length(cores)``: how many words open the sentence as a greeting (``hello``, ``good morning``,
  ``bonjour``), 0 when none does; ``addressee_length(cores)``: how many name those greeted (``everyone``,
  ``à tous``); ``THANKS``: a thanks said alone (``grazie``), ``THANKING``: words that open a thanks.
* ``NUMBER_WORDS``, ``spoken_numbers(cores)``, ``code_letter(core)``: the words of a spoken number (``five oh
  one``, ``march third``) and a letter said alone as in a code (``gate b twelve``), which no mark splits.
* ``asks_in_chinese(text)``: a Chinese sentence asks with a final particle (``CHINESE_QUESTION_PARTICLES``:
  吗, 呢) or an A-not-A form (``CHINESE_A_NOT_A``: 要不要), unless a verb reports it (``CHINESE_REPORTING``:
  我不知道他要什么). ``CONDITIONAL_OPENERS``: ``should`` and ``were`` open a condition by inversion (``should
  you need help, ...``), not a question, when a pause follows.
"""
from __future__ import annotations

QUESTION_WORDS = frozenset("what who whom whose which when where why how".split())
CONDITIONAL_OPENERS = frozenset({"should", "were"})
CHINESE_QUESTION_PARTICLES = "吗呢"
# A-not-A forms. Question words (什么, 怎么, 几, 谁 ...) are left to the model: as often indefinite as asking
# (没有什么, 几个人), they cost the zh dev set's QUESTION F1 (models/multilingual/README.md).
CHINESE_A_NOT_A = ("是不是", "要不要", "有没有", "好不好", "对不对", "能不能", "会不会", "可不可以", "行不行")
CHINESE_REPORTING = ("知道", "告诉", "记得", "明白")  # 我不知道他要什么: a question reported, not asked
AUXILIARIES = frozenset("""is are am was were do does did have has had can could will would shall should may
might must isn't aren't wasn't weren't don't doesn't didn't haven't hasn't hadn't can't couldn't won't wouldn't
shouldn't mustn't ain't""".split())
# Words that open a question that has no verb of its own: "any questions?", "anything else?".
OPENING_ASKERS = frozenset("any anyone anybody anything".split())
# One-word questions an editor writes with ``?``.
ONE_WORD_QUESTIONS = frozenset("really right sorry pardon seriously what why how where when who".split())
# Lead-in words passed over before the word that says whether a sentence asks ("and what about you?").
LEAD_INS = frozenset("and but so or well oh okay ok then now also um uh like hello hi hey".split())
# Tags that end a question ("you're coming, right?"); with a pronoun after an auxiliary ("isn't it").
END_TAGS = frozenset("right okay ok huh eh correct".split())
PRONOUNS = frozenset("i you he she it we they there that this".split())
# Greetings of the languages read here (en, fr, it, es, de): a greeting opening a sentence the line goes on
# from is set off with a comma (``Ciao, come stai?``, ``Hello, thank you for calling``).
GREETINGS = frozenset("""hello hi hey hiya howdy morning evening afternoon ciao salve buongiorno buonasera bonjour
bonsoir salut hola hallo servus""".split())
GREETING_PAIRS = frozenset({("good", "morning"), ("good", "afternoon"), ("good", "evening"), ("buenos", "días"),
                            ("buenas", "tardes"), ("buenas", "noches"), ("guten", "morgen"), ("guten", "tag"),
                            ("guten", "abend"), ("buona", "sera")})
# Greetings that are nouns too (``morning is when ...``): a sentence opening with one is a greeting only
# where the tags set it off.
NOUN_GREETINGS = frozenset("morning evening afternoon".split())
ADDRESSEES = frozenset("everyone everybody all guys folks team there tutti todos zusammen".split())  # hi everyone
ADDRESSEE_PHRASES = (("à", "tous"), ("a", "tutti"), ("a", "todos"), ("a", "todas"), ("tout", "le", "monde"))
# Words that go on from a greeting without a comma (``hello and welcome``, ``hello to my sisters``, ``hello
# again``, ``bonjour et bienvenue``).
GREETING_LINKS = frozenset("and to from again back et e y und a à".split())
# A word that thanks, alone: a sentence of one is said after what it thanks for (``I'm fine, thanks``).
THANKS = frozenset("thanks merci grazie gracias danke".split())
# Words that say "thank you" at the start of a sentence (``merci d'être venus``, ``thank you for calling``).
THANKING = THANKS | {"thank"}
# One-word questions of the other languages read here (``Perché?``, ``Pourquoi?``, ``¿Cuándo?``, ``Warum?``).
OTHER_ONE_WORD_QUESTIONS = frozenset("""perché come cosa quando dove chi davvero pourquoi comment quoi quand où qui
vraiment qué cómo cuándo dónde quién verdad warum wie was wann wo wer wirklich""".split())
# A voice assistant's name is said with its greeting as one wake phrase: "Hey Siri", "OK Google".
# A listener's tokens of attention or assent, said over or between another speaker's words: statements, never
# questions, whatever a one-word line's mark would be (``Right.``, ``Mm-hmm.``, not ``Right?``).
BACKCHANNELS = frozenset("""mm-hmm mhm mm hmm uh-huh huh-uh yeah yes yep yup ya right okay ok alright sure exactly
true wow oh ah aha cool nice great totally absolutely definitely correct indeed gotcha no nope""".split())
BACKCHANNEL_PHRASES = frozenset({("uh", "huh"), ("i", "see"), ("got", "it"), ("of", "course"), ("all", "right"),
                                 ("oh", "wow"), ("oh", "okay"), ("oh", "yeah"), ("yeah", "yeah")})
WAKE_WORDS = frozenset("siri alexa google cortana bixby".split())
# Words and phrases that open a subordinate clause: a sentence of one such clause is no sentence of its own.
SUBORDINATORS = frozenset("before after when whenever while if unless until once although though".split())
SUBORDINATOR_PHRASES = (("as", "soon", "as"), ("as", "long", "as"), ("even", "if"), ("even", "though"))
def _head(core: str) -> str:
    """A contraction's first part (``what's`` -> ``what``), other words as they are."""
    return core.split("'")[0] if "'" in core and not core.endswith("n't") else core


def after_lead_ins(words: list[str]) -> int:
    """Where a sentence's words (no empty ones) begin after their lead-ins (``LEAD_INS``: ``and``, ``so``,
    ``well``); ``len(words)`` when all are lead-ins."""
    return next((k for k, w in enumerate(words) if w not in LEAD_INS), len(words))


def asks(cores: list[str]) -> bool:
    """Whether an English sentence's words ask (module docstring)."""
    words = [c for c in cores if c]
    if not words:
        return False
    if len(words) == 1:
        return words[0] in ONE_WORD_QUESTIONS
    start = after_lead_ins(words)
    opener = _head(words[start]) if start < len(words) else ""
    if opener in QUESTION_WORDS or opener in AUXILIARIES or opener in OPENING_ASKERS:
        return True
    last, before = words[-1], words[-2]
    if last in END_TAGS or (before in AUXILIARIES and last in PRONOUNS) or (before, last) == ("or", "not"):
        return True
    return "or" in words[1:-1] or ("what", "about") in zip(words, words[1:]) or ("how", "about") in zip(words, words[1:])


# Subjects an auxiliary goes before in a question (``do you``, ``can everyone``); after a form of ``be`` also
# ``that``, ``this``, ``there`` (``is that right``, ``are there any``), which after ``do`` or ``have`` are objects of
# an imperative (``do that again``).
SUBJECTS = frozenset("i you he she it we they everyone anyone someone everybody anybody somebody".split())
BE_FORMS = frozenset("is are am was were isn't aren't wasn't weren't".split())
DEMONSTRATIVES = frozenset("that this there".split())
NOUN_ASKERS = frozenset("what which whose how".split())  # what time does, how much does; not "when people are"


def inverted(cores: list[str]) -> bool:
    """Whether an English sentence opens as a question by its word order (``inversion``)."""
    return inversion([c for c in cores if c]) is not None


def inversion(words: list[str]) -> int | None:
    """Where the auxiliary is by which a sentence's words (no empty ones) open as a question, after lead-ins:
    an auxiliary before its subject (``do you``, ``is there``, ``should we``; not ``had``, whose inversion is
    a condition: ``had we known``), or a question word before an auxiliary, next to it (``who is``; in the
    word: ``what's``) or, after what, which, whose or how, one word on (``what time does``, ``how much does``;
    ``when people are`` opens a clause), unless a form of ``be`` follows (``what's interesting is``, ``what is
    needed is``: a statement). None where they do not."""
    start = after_lead_ins(words)
    if start >= len(words) - 1:
        return None
    first, rest = words[start], words[start + 1:]
    if first in AUXILIARIES and first != "had":
        asks = rest[0] in SUBJECTS or (first in BE_FORMS and rest[0] in DEMONSTRATIVES)
        return start if asks else None
    if _head(first) not in QUESTION_WORDS:
        return None
    if first != _head(first):  # what's, who's, where're: the auxiliary is in the word
        at = start
    elif rest[0] in AUXILIARIES:
        at = start + 1
    elif len(rest) > 1 and first in NOUN_ASKERS and rest[0] not in SUBJECTS | DEMONSTRATIVES \
            and rest[1] in AUXILIARIES:
        at = start + 2
    else:
        return None
    return None if any(w in BE_FORMS or w.endswith("'s") for w in words[at + 1:]) else at


# What a meeting asks for with "any" alone, the rest of the question unsaid ("any questions?").
ASKED_FOR = frozenset("""questions question comments thoughts ideas objections volunteers suggestions takers concerns
updates news feedback""".split())


def asks_for_any(cores: list[str]) -> bool:
    """Whether an English sentence, after lead-ins, asks for something with ``any`` and the rest unsaid: ``any
    questions``, ``any other comments before we move on`` (``ASKED_FOR`` within two words of ``any``, no
    auxiliary after it: ``any feedback is welcome`` is a statement)."""
    words = [c for c in cores if c]
    start = after_lead_ins(words)
    if start >= len(words) or words[start] != "any":
        return False
    noun = next((k for k in range(start + 1, min(start + 3, len(words))) if words[k] in ASKED_FOR), None)
    return noun is not None and (noun + 1 == len(words) or words[noun + 1] not in AUXILIARIES)


def subordinate(cores: list[str], most: int) -> bool:
    """Whether an English sentence of at most ``most`` words opens with a subordinator (``SUBORDINATORS``,
    ``SUBORDINATOR_PHRASES``: ``before we wrap up``, ``if not``, ``as soon as it ends``)."""
    words = [c for c in cores if c]
    if not words or len(words) > most:
        return False
    return words[0] in SUBORDINATORS or any(tuple(words[:len(p)]) == p for p in SUBORDINATOR_PHRASES)


def greeting_length(cores: list[str]) -> int:
    """How many of a sentence's first words are a greeting (``hello``, ``hi``, ``good morning``, ``ciao``,
    ``buenos días``; not ``thank you``, which an editor leaves a sentence of its own); 0 when it opens
    otherwise."""
    if len(cores) >= 2 and (cores[0], cores[1]) in GREETING_PAIRS:
        return 2
    return 1 if cores and cores[0] in GREETINGS else 0


def addressee_length(cores: list[str]) -> int:
    """How many of the first words (after a greeting) name those greeted: ``everyone``, ``there``, ``à tous``,
    ``a tutti``, ``tout le monde``; 0 when none do."""
    for phrase in ADDRESSEE_PHRASES:
        if tuple(cores[:len(phrase)]) == phrase:
            return len(phrase)
    return 1 if cores and cores[0] in ADDRESSEES else 0


# The words num2words writes for numbers in English (cardinals and ordinals, ``point`` of a decimal), hyphened
# ones in parts: the spoken forms of the training data (gector_punct_data/corpora/spoken.py) come from it.
# tests/test_decoding_rules.py checks this set against num2words' output (num2words is no run-time need).
NUMBER_WORDS = frozenset("""zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
million billion trillion point zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh
twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth fortieth
fiftieth sixtieth seventieth eightieth ninetieth hundredth thousandth millionth billionth trillionth""".split())
# Words said in a string of digits that num2words does not write: ``oh`` (zero), ``double`` and ``triple``.
# Each is part of a number only in a run of number words holding two or more of num2words' (five oh one,
# oh seven nine, six double one two); beside one number word it is a word of its own (oh, one more thing).
SPOKEN_DIGIT_WORDS = frozenset({"oh", "double", "triple"})
MONTHS = set("january february march april may june july august september october november december".split())


def spoken_numbers(cores: list[str]) -> list[bool]:
    """Per word (its core, lower-case), whether it is a word of a spoken number: a ``NUMBER_WORDS`` word
    (``twenty-one`` in its parts), or a ``SPOKEN_DIGIT_WORDS`` word in a run with two of those."""
    number = [core in NUMBER_WORDS or ("-" in core and all(p in NUMBER_WORDS for p in core.split("-")))
              for core in cores]
    out, start = list(number), 0
    while start < len(cores):
        end = start
        while end < len(cores) and (number[end] or cores[end] in SPOKEN_DIGIT_WORDS):
            end += 1
        if sum(number[start:end]) >= 2:
            out[start:end] = [True] * (end - start)
        start = end + 1
    return out


def code_letter(core: str) -> bool:
    """A letter said alone, as in a code (``gate b twelve``, ``seat fourteen c``): not ``a`` or ``i``, which
    are words."""
    return len(core) == 1 and core.isalpha() and core not in "ai"


def asks_in_chinese(text: str) -> bool:
    """Whether a Chinese sentence (its characters, marks left out) asks: ``CHINESE_QUESTION_PARTICLES`` at its
    end or a form of ``CHINESE_A_NOT_A``, and no verb of ``CHINESE_REPORTING``."""
    asks = text[-1:] in CHINESE_QUESTION_PARTICLES or any(form in text for form in CHINESE_A_NOT_A)
    return asks and not any(verb in text for verb in CHINESE_REPORTING)
