"""The profile's background jobs: which kinds there are, which need no model, which give
way to the user's turns, and the one runner that runs them all."""

from __future__ import annotations

import functools

from acai_desktop.core.conversations.chat_settings_service import ChatSettingsService
from acai_desktop.core.conversations.title_job import TITLE_JOB, TitleProcessor
from acai_desktop.core.events import EventBus
from acai_desktop.core.learning.fact_learner import FactLearner
from acai_desktop.core.learning.job_runner import JobHandler, JobRunner
from acai_desktop.core.learning.learning_models import LearningModels
from acai_desktop.core.learning.summary_learner import SummaryLearner
from acai_desktop.core.memory.front_door import Memory
from acai_desktop.core.memory.quiet_learning import learning_quietly
from acai_desktop.core.memory.suggestions import MemorySuggestions
from acai_desktop.core.models.chat_model import NoModelClient
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.start import model_answers
from acai_desktop.core.routing.router import TurnRouter
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.documents import INDEX_JOB
from acai_desktop.core.store.imported_conversations import LEARN_IMPORTED_JOB
from acai_desktop.core.store.jobs import JobRepository

#: Background jobs that need no model: they run even when the model can't be started.
MODEL_FREE_JOBS = frozenset({INDEX_JOB})
#: Background jobs that ask the chat's model server (learning from the conversation).
LEARNING_JOBS = frozenset({"critical_info", "summary", LEARN_IMPORTED_JOB})
#: Background jobs that ask the model and give way to the user's turns on a server that
#: answers one request at a time: the learning, and naming a new chat. On the built-in
#: model they ask a server of their own instead (core.models.learning_server).
YIELDING_JOBS = LEARNING_JOBS | {TITLE_JOB}


def profile_learners(
    learner: ModelClient | NoModelClient,
    router: TurnRouter | None,
    *,
    memories: Memory,
    conversations: ConversationRepository,
    events: EventBus,
    chat_settings: ChatSettingsService,
    suggestions: MemorySuggestions | None,
    built_in: bool,
    own_learning_server: bool,
) -> tuple[FactLearner, SummaryLearner, TitleProcessor]:
    """The profile's learning jobs' handlers: facts, summaries and titles, each asking
    the model ``LearningModels`` gives it for its chat (the learner, the router's
    choice, never one that runs elsewhere for a local-only chat)."""

    async def routing_of(conversation_id: int | None) -> str | None:
        return (await chat_settings.in_effect(conversation_id)).routing

    models = LearningModels(
        learner,
        router,
        own_learning_server=own_learning_server,
        routing=routing_of,
        privacy=conversations.privacy_of,
    )
    facts = FactLearner(
        client=learner,
        memories=memories,
        conversations=conversations,
        suggestions=suggestions,
        facts_by_rules=built_in,
        models=models,
    )
    summaries = SummaryLearner(
        client=learner, memories=memories, conversations=conversations, models=models
    )
    titles = TitleProcessor(
        learner, conversations, events, chat_settings, first_words_only=built_in, models=models
    )
    return facts, summaries, titles


def profile_job_runner(
    jobs: JobRepository,
    events: EventBus,
    *,
    critical_info: FactLearner,
    summary: SummaryLearner,
    titles: TitleProcessor,
    index_document: JobHandler,
    learner: ModelClient | NoModelClient,
    one_at_a_time: bool,
    own_learning_server: bool,
) -> JobRunner:
    """The runner of every job kind of the profile. ``learner``: the client learning asks
    (its check that the model is back); ``one_at_a_time``: the chat's server answers one
    request at a time; ``own_learning_server``: learning asks a server of its own."""
    # Learning gives way to turns only where it shares the chat's server. On its own
    # server (the built-in model) a running job is not cancelled and redone when a turn
    # starts: its request just waits while the server is suspended and carries on
    # where it stood (llama.cpp can't take back a read it began, so a redo would read
    # the whole prompt again), and jobs need not wait after a turn or while the user
    # types, because nothing they do reaches the chat's server.
    yields = one_at_a_time and not own_learning_server
    return JobRunner(
        jobs,
        {
            "critical_info": critical_info.handle,
            "summary": summary.handle,
            INDEX_JOB: index_document,
            # Told by its progress (the status bar), not memory by memory.
            LEARN_IMPORTED_JOB: learning_quietly(critical_info.handle),
            TITLE_JOB: titles.handle,
        },
        events,
        probe=functools.partial(model_answers, learner),
        # One request at a time on the server: the user's answer goes first, and one job
        # at a time (llama.cpp's server cuts a streamed reply short when another request
        # arrives: two jobs would keep cutting each other's replies; the learning server
        # is such a server too).
        yield_to_turns=YIELDING_JOBS if yields else (),
        max_concurrent=1 if one_at_a_time else 2,
    )
