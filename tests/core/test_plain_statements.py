"""Lasting facts out of the user's plain first-person statements, without a model."""

import pytest

from acai_desktop.core.learning.plain_statements import (
    forget_requests,
    lasting_statements,
    requested_facts,
)


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I'm vegetarian, so no meat or fish for me", [
            ("The user is vegetarian, so no meat or fish for them.", "Health"),
        ]),
        ("My name is Alice.", [("The user's name is Alice.", "Personal")]),
        ("just so you know i'm allergic to peanuts", [
            ("The user is allergic to peanuts.", "Health"),
        ]),
        ("I work as a nurse at St Mary's.", [
            ("The user works as a nurse at St Mary's.", "Professional"),
        ]),
        ("I go to the gym every morning", [
            ("The user goes to the gym every morning.", "Preference"),
        ]),
        ("I grew up in Leeds.", [("The user grew up in Leeds.", "Personal")]),
        ("I'm vegan.", [("The user is vegan.", "Health")]),
        # an initial or a title ends no sentence
        ("My favourite author is Ursula K. Le Guin. My best friend is Mr. Lee.", [
            ("The user's favourite author is Ursula K. Le Guin.", "Preference"),
            ("The user's best friend is Mr. Lee.", "Relationship"),
        ]),
        ("I never eat pork.", [("The user never eats pork.", "Preference")]),
        ("I really don't eat meat.", [("The user really doesn't eat meat.", "Health")]),
        # an adverb before the verb is kept as it is; the verb is the word after it
        ("I now live in Berlin.", [("The user now lives in Berlin.", "Location")]),
        ("I currently work at Acme.", [("The user currently works at Acme.", "Professional")]),
        ("I rely on my car for work.", [
            ("The user relies on their car for work.", "Professional"),
        ]),
        ("Honestly I hate flying, I'd rather take the train.", [
            ("The user hates flying.", "Preference"),
        ]),
        # a new first-person clause after a comma is a statement of its own
        ("Bee stings are dangerous for me, I carry an EpiPen.", [
            ("The user carries an EpiPen.", "Health"),
        ]),
        # the rest of the sentence is about the user too
        ("I've been into dancing since I was twelve, it's my passion.", [
            ("The user has been into dancing since they were twelve, it's their passion.",
             "Preference"),
        ]),
        # who the user is, in capitalised words: a name, a nationality, a faith
        ("Hi! I'm Marta.", [("The user is Marta.", "Personal")]),
        ("hello, im Marta Silva", [("The user is Marta Silva.", "Personal")]),
        ("I'm Greek.", [("The user is Greek.", "Personal")]),
        ("I'm Marta, by the way.", [("The user is Marta.", "Personal")]),
        ("I live in Lyon btw!", [("The user lives in Lyon.", "Location")]),
        ("I live here, in Lyon.", [("The user lives here, in Lyon.", "Location")]),
        ("Hey there! My name's Tom.", [("The user's name is Tom.", "Personal")]),
        ("You can call me Jo!", [("The user wants to be called Jo.", "Personal")]),
        ("Please call me Dr. Lee", [("The user wants to be called Dr. Lee.", "Personal")]),
        # pets, more than one
        ("I have two cats, Miso and Tofu.", [
            ("The user has two cats, Miso and Tofu.", "Relationship"),
        ]),
        ("Hi! My sister lives in Ohio. My brother studies law.", [
            ("The user's sister lives in Ohio.", "Relationship"),
            ("The user's brother studies law.", "Relationship"),
        ]),
    ],
)  # fmt: skip
def test_a_lasting_statement_becomes_a_fact_about_the_user(said, expected):
    assert lasting_statements(said) == expected


@pytest.mark.parametrize(
    "said",
    [
        "I'm so tired today.",  # a mood, today
        "I'm home.",  # where the user is this moment
        "I'm off to go swimming with the kids.",  # what the user does now
        "I may have found a job at a tech company.",  # unsure
        # the whole sentence is passing, its second clause too
        "I'm so annoyed right now, my neighbor's dog won't stop barking.",
        "Am I allergic to anything?",  # a question
        "I think I'm allergic to cats.",  # unsure
        "I'd love to live in Lisbon one day.",  # a wish
        "I love your idea about my garden.",  # about the other side of the chat
        "I love that!",  # a bare reaction
        "We moved to Denver.",  # whose "we"?
        "I'm OK.",  # capitals, but a state
        "I'm Back!",
        "I'm fine.",
        "Call me back later.",  # not a name
        "Call me crazy, but I love rain.",
        "The weather is lovely.",  # not about the user
        "okay",
    ],
)
def test_what_is_not_a_lasting_statement_of_the_user_gives_nothing(said):
    assert lasting_statements(said) == []


def test_the_same_statement_twice_is_one_fact():
    assert lasting_statements("My dog is called Rex. My dog is called Rex!") == [
        ("The user's dog is called Rex.", "Personal")
    ]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("Remember that my passport expires in May 2027.", [
            ("The user's passport expires in May 2027.", "Other"),
        ]),
        ("Please note: I prefer metric units.", [("The user prefers metric units.", "Preference")]),
        ("Don't forget I'm allergic to shellfish!", [
            ("The user is allergic to shellfish.", "Health"),
        ]),
        ("Can you remember that the spare key is under my mat?", [
            ("The spare key is under the user's mat.", "Other"),
        ]),
        ("Keep in mind that I have a meeting tomorrow at 3pm.", [
            ("The user has a meeting tomorrow at 3pm.", "Other"),
        ]),
        # not a request to keep a fact
        ("Remember to buy milk.", []),  # a reminder
        ("Remember when we went to Paris?", []),  # a question about the past
        ("Note the difference between a list and a tuple.", []),  # not about the user
        ("Remember that you promised me a recipe.", []),  # about the assistant
        ("I remember that day well.", []),
        ("Remember that", []),
    ],
)  # fmt: skip
def test_a_request_to_remember_is_kept_as_said(said, expected):
    assert requested_facts(said) == expected


@pytest.mark.parametrize(
    ("said", "named"),
    [
        ("Forget that I have a dog.", ["I have a dog"]),
        ("Please forget my address", ["my address"]),
        ("Forget what I said about my ex.", ["my ex"]),
        ("Can you forget that I'm vegetarian?", ["I'm vegetarian"]),
        ("Remove my old phone number from your memory.", ["my old phone number"]),
        ("Forget about my sister's wedding, it was cancelled.", ["my sister's wedding"]),
        # not a request to forget a memory
        ("Delete my old files", []),  # a task: no "memory" said
        ("Forget it.", []),
        ("Never mind, forget about it", []),
        ("I forget my keys all the time", []),
    ],
)  # fmt: skip
def test_a_request_to_forget_names_what_to_forget(said, named):
    assert forget_requests(said) == named
