"""FactLearner through the real SDK against the scripted server."""

from acai_desktop.core.records.memories import MemoryKind, MemoryStatus
from acai_desktop.core.rules.user_subject import name_the_subject
from acai_desktop.core.store.memories import MemoryFilter
from acai_lab.scripted_model import call_counts, extraction_inputs, fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant


async def _say(assistant, conversation_id, text, role="user"):
    message = await assistant.conversations.add_message(conversation_id, role, text)
    outcome = await assistant.critical_info.process_message(message.id)
    return message, outcome


def test_seed_messages_become_named_facts_with_sources(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            first, _ = await _say(
                assistant, conversation.id, "My name is John, and I'm a big fan of sci-fi novels."
            )
            second, _ = await _say(
                assistant, conversation.id, "I prefer Python for backend development."
            )
            for small_talk in ("okay", "thanks", "got it"):
                _, outcome = await _say(assistant, conversation.id, small_talk)
                assert outcome.triage_called is False
            facts = await assistant.memories.list(MemoryFilter(kinds=[MemoryKind.FACT]))
            sources = {f.id: await assistant.memories.sources(f.id) for f in facts}
            return first, second, facts, sources

    first, second, facts, sources = run(scenario())
    by_content = {f.content: f for f in facts}
    assert set(by_content) == {
        "The user's name is John",
        "The user is a big fan of sci-fi novels",
        "The user prefers Python for backend development",
    }
    assert sources[by_content["The user's name is John"].id] == [first.id]
    assert sources[by_content["The user prefers Python for backend development"].id] == [second.id]
    assert by_content["The user's name is John"].category == "Personal"
    assert all(f.origin == "critical_info" for f in facts)
    counts = call_counts(fake_openai)
    assert counts["triage"] == 2 and counts["extraction"] == 2
    assert not any(t in ("okay", "thanks", "got it") for t in extraction_inputs(fake_openai))


def test_questions_pass_triage_but_never_reach_extraction(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            _, outcome = await _say(assistant, conversation.id, "What is the capital of Peru?")
            return outcome

    outcome = run(scenario())
    assert outcome.triage_called and not outcome.extraction_called
    assert call_counts(fake_openai) == {
        "triage": 1, "title": 0, "extraction": 0, "reconcile": 0, "summary": 0, "chat": 0
    }  # fmt: skip


def test_assistant_words_and_temporary_chats_are_never_mined(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            _, from_assistant = await _say(
                assistant, conversation.id, "My name is Ada and I live in Paris.", "assistant"
            )
            temporary = await assistant.conversations.create(temporary=True)
            _, from_temporary = await _say(assistant, temporary.id, "My name is Bob.")
            return from_assistant, from_temporary, await assistant.memories.list()

    from_assistant, from_temporary, memories = run(scenario())
    assert from_assistant.reason.startswith("only the user's own words")
    assert from_temporary.reason == "temporary conversation"
    assert memories == []
    assert fake_openai.chat_requests() == []


def test_duplicate_reinforces_and_contradiction_supersedes(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            first, _ = await _say(assistant, conversation.id, "I live in Paris.")
            again, repeated = await _say(assistant, conversation.id, "As I said, I live in Paris.")
            moved, changed = await _say(assistant, conversation.id, "I live in Berlin now.")
            every = await assistant.memories.list(MemoryFilter(statuses=None))
            history = {m.id: await assistant.memories.history(m.id) for m in every}
            sources = {m.id: await assistant.memories.sources(m.id) for m in every}
            return first, again, moved, repeated, changed, every, history, sources

    first, again, _, repeated, changed, every, history, sources = run(scenario())
    paris = next(m for m in every if m.content == "The user lives in Paris")
    berlin = next(m for m in every if m.content == "The user lives in Berlin now")
    assert repeated.reinforced == [paris.id] and repeated.stored == []
    assert sources[paris.id] == [first.id, again.id]
    assert paris.status == MemoryStatus.SUPERSEDED and paris.superseded_by == berlin.id
    assert berlin.status == MemoryStatus.ACTIVE
    assert changed.stored[0].id == berlin.id
    assert len(every) == 2  # nothing destroyed, nothing duplicated
    actors = {e.actor for e in history[paris.id]}
    assert actors == {"critical_info_processor"}
    assert history[berlin.id][0].action == "created"


def test_fact_contradicting_a_pinned_memory_becomes_a_conflict(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            await _say(assistant, conversation.id, "I live in Paris.")
            [paris] = await assistant.memories.list()
            await assistant.memories.pin(paris.id)
            _, outcome = await _say(assistant, conversation.id, "I live in Rome.")
            return paris.id, outcome, await assistant.memories.list(MemoryFilter(statuses=None))

    paris_id, outcome, every = run(scenario())
    paris = next(m for m in every if m.id == paris_id)
    rome = outcome.stored[0]
    assert paris.status == MemoryStatus.ACTIVE and paris.pinned
    assert paris.content == "The user lives in Paris"
    assert rome.status == MemoryStatus.CONFLICT
    assert rome.meta["conflicts_with"] == paris_id


def test_malformed_extraction_stores_nothing_and_raises_nothing(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            outcomes = []
            for bad in (
                Reply(raw='{"choices": [{"message": {"content": "{\\"facts\\": [{\\"fa'),
                Reply(json_obj={"facts": [{"fact": "x" * 50, "confidence": "very"}]}),
                Reply(json_obj={"facts": "The user likes tea"}),
                Reply(text="Sure! Here are the facts: the user likes tea."),
                Reply(text=""),
            ):
                fake_openai.script(Reply(json_obj={"durable_fact": True}), bad)
                _, outcome = await _say(assistant, conversation.id, "I like tea very much.")
                outcomes.append(outcome)
            return outcomes, await assistant.memories.list(MemoryFilter(statuses=None))

    outcomes, memories = run(scenario())
    assert memories == []
    assert all(o.extraction_called and o.stored == [] for o in outcomes)
    assert all(o.reason.startswith("extraction reply unusable") for o in outcomes)


def test_fragments_are_given_their_subject(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            fake_openai.script(
                Reply(json_obj={"durable_fact": True}),
                Reply(
                    json_obj={
                        "facts": [
                            {"fact": "has a PhD in physics", "category": "professional",
                             "confidence": 0.8},
                            {"fact": "The user has a PhD, like Bob", "category": "nonsense",
                             "confidence": 0.7},
                        ]
                    }
                ),
            )  # fmt: skip
            await _say(assistant, conversation.id, "I have a PhD in physics, like Bob.")
            return await assistant.memories.list(MemoryFilter(statuses=None))

    memories = run(scenario())
    contents = {m.content: m.category for m in memories}
    assert contents == {
        "The user has a PhD in physics": "Professional",
        "The user has a PhD, like Bob": "Other",
    }


def test_a_memory_forgotten_while_the_model_decides_leaves_the_new_fact_stored(
    tmp_path, fake_openai
):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            await _say(assistant, conversation.id, "I live in Paris.")
            [paris] = await assistant.memories.list()
            processor = assistant.critical_info
            deciding = processor._relation

            async def user_forgets_meanwhile(existing, content, similarity, learning):
                relation = await deciding(existing, content, similarity, learning)
                await assistant.memories.forget(existing.id)  # the user, mid-decision
                return relation

            processor._relation = user_forgets_meanwhile
            _, outcome = await _say(assistant, conversation.id, "I live in Lyon.")
            return paris.id, outcome, await assistant.memories.list(MemoryFilter(statuses=None))

    paris_id, outcome, every = run(scenario())
    by_id = {m.id: m for m in every}
    assert by_id[paris_id].status == MemoryStatus.FORGOTTEN  # the user's action stands
    [lyon] = outcome.stored
    assert lyon.content == "The user lives in Lyon" and lyon.status == MemoryStatus.ACTIVE


#: What a small extraction model really returns, and why none of it may be stored.
ADVERSARIAL = [
    ("Hello! What can you do?", "The user moved to Lisbon last spring", "prompt_example"),
    ("Hello! What can you do?", "The user's name is John", "unsupported"),
    ("Hello! What can you do?",
     "I'm a professional in the field of [insert profession here]", "placeholder"),
    ("Hello! What can you do?", "The assistant can answer questions and write code",
     "about_assistant"),
    ("My sister Anna lives in Rome.", "The user lives in Rome", "third_party_as_user"),
    ("What is the capital of France?", "The capital of France is Paris", "answer_to_question"),
    ("What is the capital of France?", "Paris", "fragment"),
    ("My dog's name is Buster.", "Buster", "fragment"),
    ("I have two kids.", "The user has " + "two kids and " * 160 + "a cat", "too_long"),
    ("I live in Madrid with my family.", "El usuario vive en Madrid con su familia",
     "other_language"),
    ("I have 2 kids.", "The user has three kids", "unsupported"),
]  # fmt: skip


def test_invented_facts_are_refused_and_counted_by_reason(tmp_path, fake_openai):
    """The extraction model returns each failure seen with small models; the grounding
    check refuses every one, stores what the message does say, and counts by reason."""

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            outcomes = []
            for message, fact, _ in ADVERSARIAL:
                facts = [{"fact": fact, "category": "Personal", "confidence": 0.9}]
                if message.startswith("My sister"):
                    facts.append({"fact": "The user's sister Anna lives in Rome",
                                  "category": "Relationship", "confidence": 0.9})  # fmt: skip
                fake_openai.script(
                    Reply(json_obj={"durable_fact": True}), Reply(json_obj={"facts": facts})
                )
                _, outcome = await _say(assistant, conversation.id, message)
                outcomes.append(outcome)
            memories = await assistant.memories.list(MemoryFilter(statuses=None))
            return outcomes, memories, assistant.critical_info.counts.rejected

    outcomes, memories, rejected = run(scenario())
    assert [m.content for m in memories] == ["The user's sister Anna lives in Rome"]
    for (_, fact, reason), outcome in zip(ADVERSARIAL, outcomes, strict=True):
        assert [(f, v.rejection) for f, v in outcome.rejected] == [
            (name_the_subject(fact), reason)
        ], fact
    expected = {}
    for _, _, reason in ADVERSARIAL:
        expected[reason] = expected.get(reason, 0) + 1
    assert dict(rejected) == expected


def test_with_facts_by_rules_plain_statements_are_stored_without_a_model_call(
    tmp_path, fake_openai
):
    # The bundled 135M model can't pick facts: the processor takes the user's own
    # lasting statements instead, and asks the model nothing (not even to reconcile).
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            assistant.critical_info.facts_by_rules = True
            assistant.critical_info.suggestions = None
            conversation = await assistant.conversations.create()
            said, _ = await _say(
                assistant, conversation.id, "Hi! I'm vegetarian, so no meat or fish for me."
            )
            _, madrid = await _say(assistant, conversation.id, "I live in Madrid.")
            await _say(assistant, conversation.id, "I love Spanish guitar.")
            _, moved = await _say(assistant, conversation.id, "I moved to Berlin last month.")
            _, passing = await _say(assistant, conversation.id, "I'm so tired today.")
            facts = await assistant.memories.list(MemoryFilter(kinds=[MemoryKind.FACT]))
            vegetarian = next(f for f in facts if "vegetarian" in f.content)
            old_home = await assistant.memories.get(madrid.stored[0].id)
            return (
                said,
                moved,
                passing,
                facts,
                vegetarian,
                await assistant.memories.sources(vegetarian.id),
                old_home,
            )

    said, moved, passing, facts, vegetarian, sources, old_home = run(scenario())
    # A new home replaces the one before (kept, superseded); other facts stay side by side.
    assert {f.content for f in facts} == {
        "The user is vegetarian, so no meat or fish for them.",
        "The user loves Spanish guitar.",
        "The user moved to Berlin last month.",
    }
    assert old_home.content == "The user lives in Madrid."
    assert old_home.status == MemoryStatus.SUPERSEDED
    assert old_home.superseded_by == moved.stored[0].id
    assert vegetarian.status == MemoryStatus.ACTIVE and vegetarian.category == "Health"
    assert sources == [said.id]
    assert passing.stored == [] and passing.reason == "no lasting statement of the user's own"
    assert moved.triage_called is False and moved.extraction_called is False
    assert sum(call_counts(fake_openai).values()) == 0


def test_asked_to_remember_the_built_in_model_stores_it_without_asking(tmp_path, fake_openai):
    """ "Remember that ..." is the user's yes: with the built-in model's rules it is
    stored, active, even with "Ask before remembering" on and though a passport's date
    sounds like no lasting fact; a reminder ("remember to ...") is not a fact."""
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(
            tmp_path, fake_openai, start_jobs=False, ask_before_remembering=True
        ) as assistant:
            assistant.critical_info.facts_by_rules = True
            conversation = await assistant.conversations.create()
            _, passport = await _say(
                assistant, conversation.id, "Remember that my passport expires in May 2027."
            )
            _, reminder = await _say(assistant, conversation.id, "Remember to buy milk.")
            _, plain = await _say(assistant, conversation.id, "I'm allergic to shellfish.")
            return passport, reminder, plain, await assistant.memories.list()

    passport, reminder, plain, memories = run(scenario())
    assert [m.content for m in memories] == ["The user's passport expires in May 2027."]
    assert memories[0].status == MemoryStatus.ACTIVE and memories[0].meta.get("explicit")
    assert passport.suggested == []
    assert reminder.stored == [] and reminder.suggested == []
    # Not asked for: it waits for the user's yes, as before.
    assert plain.stored == [] and len(plain.suggested) == 1


def test_asked_to_remember_a_model_that_finds_nothing_lasting_still_keeps_it(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            # The model's triage says nothing lasting: the request's own words are kept.
            fake_openai.script(Reply(json_obj={"durable_fact": False}))
            _, outcome = await _say(
                assistant, conversation.id, "Please remember: the garage code is 4512."
            )
            # The model finds a fact: its wording is kept, as asked (explicit).
            fake_openai.script(
                Reply(json_obj={"durable_fact": True}),
                Reply(json_obj={"facts": [{"fact": "The user has a dentist appointment "
                                           "on Friday", "category": "Plan",
                                           "confidence": 0.7}]}),
            )  # fmt: skip
            _, dentist = await _say(
                assistant, conversation.id, "Don't forget I have a dentist appointment on Friday."
            )
            return outcome, dentist, await assistant.memories.list()

    outcome, dentist, memories = run(scenario())
    assert [m.content for m in outcome.stored] == ["The garage code is 4512."]
    assert [m.content for m in dentist.stored] == ["The user has a dentist appointment on Friday"]
    assert {m.content for m in memories} == {
        "The garage code is 4512.",
        "The user has a dentist appointment on Friday",
    }
    assert all(m.status == MemoryStatus.ACTIVE for m in memories)


def test_asked_to_forget_the_memories_that_hold_it_are_forgotten_for_the_user(
    tmp_path, fake_openai
):
    """ "Forget that I have a dog" forgets what holds every informative word of it
    ("dog"; pinned too: the user asks) and learns nothing back from the request."""
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            assistant.critical_info.facts_by_rules = True
            memories = assistant.memories
            dog = await memories.remember("The user has a dog named Pico.", explicit=True)
            walks = await memories.remember("The user walks the dog every morning.", explicit=True)
            cats = await memories.remember("The user has two cats.", explicit=True)
            await memories.pin(dog.id)
            conversation = await assistant.conversations.create()
            _, outcome = await _say(assistant, conversation.id, "Please forget that I have a dog.")
            _, nothing = await _say(assistant, conversation.id, "Forget my lunch order.")
            history = await memories.history(dog.id)
            return dog, walks, cats, outcome, nothing, await memories.list(), history

    dog, walks, cats, outcome, nothing, current, history = run(scenario())
    assert {m.id for m in outcome.forgotten} == {dog.id, walks.id}
    assert all(m.status == MemoryStatus.FORGOTTEN for m in outcome.forgotten)
    assert [m.id for m in current] == [cats.id]
    assert outcome.stored == [] and nothing.forgotten == []
    assert history[-1].action == "forgotten" and history[-1].actor == "user"


#: Four facts that all hold "sister": "forget about my sister" matches too many.
SISTER_FACTS = (
    "The user's sister lives in Ohio.",
    "The user's sister is a nurse.",
    "The user's sister has twins.",
    "The user's sister loves jazz.",
)


def test_a_loose_request_to_forget_forgets_nothing(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            assistant.critical_info.facts_by_rules = True
            for fact in SISTER_FACTS:
                await assistant.memories.remember(fact, explicit=True)
            conversation = await assistant.conversations.create()
            _, outcome = await _say(assistant, conversation.id, "Forget about my sister.")
            return outcome, await assistant.memories.list()

    outcome, current = run(scenario())
    assert outcome.forgotten == [] and len(current) == 4


def test_asked_to_forget_a_model_that_reads_a_fact_in_the_request_does_not_learn_it_back(
    tmp_path, fake_openai
):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            await assistant.memories.remember("The user has a dog named Pico.", explicit=True)
            conversation = await assistant.conversations.create()
            fake_openai.script(
                Reply(json_obj={"durable_fact": True}),
                Reply(json_obj={"facts": [{"fact": "The user has a dog", "category":
                                           "Relationship", "confidence": 0.9}]}),
            )  # fmt: skip
            _, outcome = await _say(assistant, conversation.id, "Forget that I have a dog.")
            return outcome, await assistant.memories.list()

    outcome, current = run(scenario())
    assert [m.content for m in outcome.forgotten] == ["The user has a dog named Pico."]
    assert outcome.stored == [] and current == []


def test_asked_to_forget_what_the_built_in_rules_wrote_forgets_it(tmp_path, fake_openai):
    """The rules write "I live in Lisbon" as "The user lives in Lisbon": "Forget that I
    live in Lisbon" must find it (one word normalisation for both), and so must "Forget
    that I love jazz" find "The user loves jazz"."""
    from acai_desktop.core import events as ev

    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            assistant.critical_info.facts_by_rules = True
            assistant.critical_info.suggestions = None
            heard: list = []
            assistant.events.subscribe(ev.ForgottenOnRequest, heard.append)
            conversation = await assistant.conversations.create()
            for text in ("I live in Lisbon.", "I love jazz.", "I'm a nurse."):
                await _say(assistant, conversation.id, text)
            learned = await assistant.memories.list()
            outcomes = []
            for text in ("Forget that I live in Lisbon.", "Forget that I love jazz."):
                outcomes.append((await _say(assistant, conversation.id, text))[1])
            return learned, outcomes, await assistant.memories.list(), heard

    learned, (lisbon, jazz), current, heard = run(scenario())
    assert {m.content for m in learned} == {
        "The user lives in Lisbon.",
        "The user loves jazz.",
        "The user is a nurse.",
    }
    assert [m.content for m in lisbon.forgotten] == ["The user lives in Lisbon."]
    assert [m.content for m in jazz.forgotten] == ["The user loves jazz."]
    assert [m.content for m in current] == ["The user is a nurse."]
    assert lisbon.stored == [] and jazz.stored == []
    assert [(e.asked, [m.content for m in e.memories]) for e in heard] == [
        ("I live in Lisbon", ["The user lives in Lisbon."]),
        ("I love jazz", ["The user loves jazz."]),
    ]


def test_asked_to_forget_what_nothing_holds_it_says_so(tmp_path, fake_openai):
    """Nothing matches (or too much does): nothing is forgotten, and the news says what
    was asked and how many memories held it, so the window can say so and offer the
    panel's search."""
    from acai_desktop.core import events as ev

    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            assistant.critical_info.facts_by_rules = True
            for fact in SISTER_FACTS:
                await assistant.memories.remember(fact, explicit=True)
            heard: list = []
            assistant.events.subscribe(ev.ForgottenOnRequest, heard.append)
            conversation = await assistant.conversations.create()
            _, unknown = await _say(assistant, conversation.id, "Forget that I live in Lisbon.")
            _, loose = await _say(assistant, conversation.id, "Forget about my sister.")
            return unknown, loose, heard, await assistant.memories.list()

    unknown, loose, heard, current = run(scenario())
    assert unknown.forgotten == [] and loose.forgotten == [] and len(current) == 4
    assert [(e.asked, e.memories, e.matching) for e in heard] == [
        ("I live in Lisbon", (), 0),
        ("my sister", (), 4),
    ]


def test_a_fact_about_the_project_is_kept_in_its_chats_only(tmp_path, fake_openai):
    said = "In this project we use Postgres 16."
    extracted = {"fact": "The project uses Postgres 16", "category": "Work", "confidence": 0.9}

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            project = await assistant.projects.create("Backend")
            outcomes = []
            for project_id in (project.id, None):
                conversation = await assistant.conversations.create(project_id=project_id)
                fake_openai.script(
                    Reply(json_obj={"durable_fact": True}), Reply(json_obj={"facts": [extracted]})
                )
                outcomes.append((await _say(assistant, conversation.id, said))[1])
            return project, outcomes, await assistant.memories.list()

    project, (in_project, outside), memories = run(scenario())
    assert [(m.content, m.project_id) for m in memories] == [
        ("The project uses Postgres 16", project.id)
    ]
    assert not in_project.rejected
    assert [v.rejection for _, v in outside.rejected] == ["not_about_user"]
