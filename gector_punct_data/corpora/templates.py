"""Written lines where spoken numbers, codes, addresses and names sit at and across sentence ends (issue 42).

The corpora seldom put a reference number, a seat, a gate or an e-mail address right before a sentence end,
and a model taught on them breaks sentences inside such runs (``gate B. Twelve.``) or joins two sentences
across them (``we have two one is red``). These lines teach both: each is two to four sentences, at least one
of which ends with a slot or opens with one, joined in one line as a recogniser writes an utterance.

``template_lines(n, rng)`` -> ``n`` restored target lines (marks and case as an editor writes them; the
slots' words as a recogniser writes them: numbers in words, digit by digit where they are read so, a code's
letter upper-case). ``utils/data/speech_templates.py`` writes them; ``shaping.shape_pair`` and
``preprocess_data.py`` make training pairs of them like any other target line. The output depends only on
``n`` and the generator's state.
"""
from __future__ import annotations

import random

from num2words import num2words

DIGIT_WORDS = "zero one two three four five six seven eight nine".split()
NAMES = """John Sarah Priya Ahmed Maria Tom Lisa David Mei Carlos Anna James Fatima Kevin Olga Raj Emma Luis
Grace Daniel Aisha Peter Sofia Mark Yuki Omar Hannah Ben Chloe Ivan Nadia Paul Rosa Sam Helen""".split()
MONTHS = """January February March April May June July August September October November December""".split()
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
DOMAINS = """gmail.com outlook.com acme-insurance.com example.org northwind.co.uk city-clinic.net contoso.com
school.edu""".split()
MAILBOXES = "support help info billing sales admin team hello bookings".split()
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"

# A sentence that ends with a slot: the next sentence starts right after it.
ENDS_WITH_SLOT = [
    "My claim number is {digits}.", "Your reference number is {digits}.", "The order number is {digits}.",
    "I'm calling about my claim number {digits}.", "The tracking number is {digits}.",
    "My account number is {digits}.", "Please call me back on {phone}.", "You can reach me at {phone}.",
    "My number is {phone}.", "Call us on {phone}.", "It costs {amount}.", "The total comes to {amount}.",
    "That will be {amount}.", "The flight leaves at {time} from gate {code}.", "Boarding starts at {time}.",
    "My seat is {seat}.", "We're in room {code}.", "The meeting is in room {code}.", "Go to gate {code}.",
    "Next on the agenda is the budget review for Q {quarter}.", "The meeting is on {date}.",
    "I filed it on {date}.", "It's due on {day}.", "Send your questions to {email}.",
    "You can write to {email}.", "My e-mail is {email}.", "We have {count}.", "I bought {count}.",
    "There are {count}.", "Thanks, {name}.", "That's a good point, {name}.", "Over to you, {name}.",
    "Nice to meet you, {name}.", "It's on platform {small}.", "Turn to page {number}.", "We won by {small}.",
    "I'll be there at {time}.", "The train is at {time}.", "Take the exit for junction {small}.",
]
# A sentence that opens with a slot or a word that could be read as one.
STARTS_WITH_SLOT = [
    "{Name}, do you want to start?", "{Name}, can you hear me?", "{Name}, what do you think?",
    "{Name}, are you still there?", "{Name} will send the notes.", "{Count} of them are broken.",
    "One is red, and one is blue.", "One of them is mine.", "{Count} people signed up.",
    "{Count} more are coming tomorrow.", "Two weeks later, it arrived.", "Ten minutes is enough.",
    "{Digits} is the number to call.", "{Day} works for me.", "{Month} is too late.",
]
# Slots in the middle: no sentence end at the slot.
SLOT_INSIDE = [
    "Send your questions to {email} and we'll get back to you.", "Call {phone} and ask for {name}.",
    "Write to {email} if you have any questions.", "My seat is {seat} and my wife is in {seat}.",
    "The flight to Boston leaves at {time} from gate {code} tomorrow.", "Room {code} is on the {ordinal} floor.",
    "The code {digits} didn't work.", "I paid {amount} for it last week.", "Gate {code} is closed today.",
    "We'll meet on {date} at {time}.", "Email {email} or call {phone}.", "Seat {seat} is free.",
    "The report is due on {day}, I think.", "We need {count} more chairs, you know.",
    "Flight {code} is delayed by {small} minutes.", "Press {small} to speak to an agent.",
]
PLAIN = [
    "I filed it last week.", "Is that right?", "Thank you so much.", "Let me check that for you.",
    "I think that's everything.", "Can you hear me?", "It was a long day.", "We'll get back to you.",
    "Do you want to start?", "That sounds good.", "I'm not sure.", "Let's move on.", "It didn't arrive.",
    "Could you repeat that?", "Have a nice day.", "I'll send you the details.", "What time is it now?",
    "Okay, that's fine.", "I need to change my booking.", "Sorry, the line is bad.", "Is there anything else?",
    "They said it would take a week.", "I have a question about my bill.", "We can finish early today.",
    "And then we went home.", "But that's not the point.", "So what happens next?", "I think so.",
]


def spoken_digits(rng: random.Random, low: int = 4, high: int = 8) -> str:
    """A number read digit by digit, as reference and phone numbers are: ``oh`` for a zero at times,
    ``double`` for a repeated digit at times."""
    digits = [rng.choice(DIGIT_WORDS) for _ in range(rng.randint(low, high))]
    words, i = [], 0
    while i < len(digits):
        word = "oh" if digits[i] == "zero" and rng.random() < 0.6 else digits[i]
        if i + 1 < len(digits) and digits[i + 1] == digits[i] and rng.random() < 0.5:
            words.append(f"double {word}")
            i += 2
        else:
            words.append(word)
            i += 1
    return " ".join(words)


def number_words(value: int) -> str:
    """``value`` in words as a recogniser writes them: no hyphens, no commas (``twenty one``)."""
    return num2words(value).replace("-", " ").replace(",", "")


def _amount(rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:  # nineteen ninety nine
        return f"{number_words(rng.randint(2, 99))} {number_words(rng.randint(10, 99))}"
    if kind == 1:
        return f"{number_words(rng.choice([5, 10, 20, 25, 40, 50, 75, 100, 120, 350]))} dollars"
    return f"{number_words(rng.randint(2, 9))} fifty"


def _time(rng: random.Random) -> str:
    hour, minute = number_words(rng.randint(1, 12)), rng.choice(["", "fifteen", "thirty", "forty five", "ten"])
    return f"{hour} {minute} {rng.choice(['a.m.', 'p.m.'])}".replace("  ", " ") if rng.random() < 0.7 \
        else f"{hour} o'clock"


def _code(rng: random.Random) -> str:
    return f"{rng.choice(LETTERS)} {number_words(rng.randint(1, 40))}"


def _seat(rng: random.Random) -> str:
    return f"{number_words(rng.randint(1, 40))} {rng.choice('ABCDEF')}"


def _email(rng: random.Random) -> str:
    box = rng.choice(MAILBOXES) if rng.random() < 0.5 else \
        f"{rng.choice(NAMES).lower()}{rng.choice(['.', '_', ''])}{rng.choice(NAMES).lower()}"
    return f"{box}@{rng.choice(DOMAINS)}"


def ordinal_words(value: int) -> str:
    return num2words(value, to="ordinal").replace("-", " ")


# Each slot's value, drawn afresh where it occurs; a slot named with a capital ({Name}) is the same slot's
# value with one (a sentence's first word).
SLOTS = {
    "digits": spoken_digits, "phone": lambda rng: spoken_digits(rng, 7, 11), "amount": _amount, "time": _time,
    "code": _code, "seat": _seat, "email": _email, "quarter": lambda rng: rng.choice(DIGIT_WORDS[1:5]),
    "date": lambda rng: f"{rng.choice(MONTHS)} {ordinal_words(rng.randint(1, 28))}",
    "day": lambda rng: rng.choice(DAYS), "month": lambda rng: rng.choice(MONTHS),
    "name": lambda rng: rng.choice(NAMES), "count": lambda rng: number_words(rng.randint(2, 12)),
    "small": lambda rng: number_words(rng.randint(1, 20)), "number": lambda rng: number_words(rng.randint(1, 400)),
    "ordinal": lambda rng: ordinal_words(rng.randint(1, 20)),
}


def fill(frame: str, rng: random.Random) -> str:
    """A frame with its slots filled; two slots of one name get different values (``{seat} and ... {seat}``)."""
    parts = frame.split("{")
    out = [parts[0]]
    for part in parts[1:]:
        name, rest = part.split("}", 1)
        value = SLOTS[name.lower()](rng)
        value = value[:1].upper() + value[1:] if name[:1].isupper() else value
        out.append(value + (rest[1:] if value.endswith(".") and rest.startswith(".") else rest))  # p.m. ends it
    return "".join(out)


def template_line(rng: random.Random) -> str:
    """Two to four sentences, at least one with a slot at a sentence end or start (module docstring)."""
    kind = rng.randrange(3)
    if kind == 0:  # a slot ends a sentence, another sentence follows
        frames = [rng.choice(ENDS_WITH_SLOT), rng.choice(STARTS_WITH_SLOT + PLAIN + PLAIN)]
    elif kind == 1:  # a sentence ends, the next opens with a slot
        frames = [rng.choice(PLAIN + ENDS_WITH_SLOT), rng.choice(STARTS_WITH_SLOT)]
    else:
        frames = [rng.choice(SLOT_INSIDE), rng.choice(PLAIN + STARTS_WITH_SLOT)]
    if rng.random() < 0.4:
        frames.insert(rng.randrange(len(frames) + 1), rng.choice(PLAIN + SLOT_INSIDE))
    return " ".join(fill(frame, rng) for frame in frames)


def template_lines(n: int, rng: random.Random) -> list[str]:
    return [template_line(rng) for _ in range(n)]
