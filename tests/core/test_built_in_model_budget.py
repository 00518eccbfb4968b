"""The built-in model's prompt budget fits the server it runs on. A bigger budget was
measured slower (`bench answers`): the small model's attention over a long prompt costs
every turn more than the rarer history cuts save, so its automatic budget stays small
(core.models.prompt_budget), whatever the window."""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core.conversations.chat_settings import effective_settings
from acai_desktop.core.memory.prompt_history import history_room
from acai_desktop.core.memory.tokens import estimate_message_tokens
from acai_desktop.core.models.context_window import BUILT_IN_SERVER, ContextWindow, WindowSource
from acai_desktop.core.models.local_server import LocalModelServer
from acai_desktop.core.models.presets import BUNDLED_LOCAL_MODEL, ProviderName
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.resources import resource_text

#: A short question, as most messages are.
QUESTION = "Any tips for sleeping after a night shift?"


def built_in_budget(settings: ModelSettings, n_ctx: int) -> int:
    """The budget the built-in model's chats get, as the assistant works it out."""
    window = ContextWindow(n_ctx, BUNDLED_LOCAL_MODEL, WindowSource.SERVER, BUILT_IN_SERVER)
    defaults = settings.chat_defaults(BUNDLED_LOCAL_MODEL)
    return effective_settings(defaults, window=window).context_budget_tokens


def test_the_prompt_and_the_longest_answer_fit_the_built_in_servers_context():
    bundled = ModelSettings.for_preset(ProviderName.LOCAL)
    command = LocalModelServer().command(Path("model.gguf"))
    context = int(command[command.index("--n_ctx") + 1])
    budget = built_in_budget(bundled, context)
    assert budget == 3000  # what `bench answers` measured best
    assert budget + bundled.resolved_answer_max_tokens() <= context


def test_several_exchanges_with_the_longest_answers_fit_before_the_history_is_cut():
    """Each cut of the history makes the next message read the rest of the conversation
    again before its first word (issue 22: 6-14 s with the built-in model on the test
    machine). With the longest answers, at least six exchanges go between two cuts (at
    320 tokens an answer, the history was cut every 2-3 messages)."""
    bundled = ModelSettings.for_preset(ProviderName.LOCAL)
    system_prompt = resource_text("prompts", "system.txt").strip()
    room = history_room(system_prompt, built_in_budget(bundled, LocalModelServer().n_ctx))
    longest_answer = "word " * bundled.resolved_answer_max_tokens()  # one token a word
    exchange = estimate_message_tokens(QUESTION) + estimate_message_tokens(longest_answer)
    assert room // exchange >= 6


def test_what_a_turn_recalls_stays_small_for_the_built_in_model():
    """It reads a 1,200-token prompt in about 5 s (`bench local-model`): a question that
    finds 40 relevant messages and memories still sends it about 600 tokens of them,
    while a provider's model gets half its budget."""
    from acai_desktop.core.memory.context_builder import build_context, prompt_shares
    from acai_desktop.core.memory.retrieval import RetrievedMemory, RetrievedMessage
    from acai_desktop.core.records.conversations import RecalledMessage
    from acai_desktop.core.records.memories import MemoryItem, MemoryKind, Origin

    words = "word " * 30
    found = [
        RetrievedMessage(
            RecalledMessage(i, 1, "Chat", "user", f"{i} {words}", "2024-01-01T00:00:00"),
            i,
            1.0,
            ["lexical"],
        )
        for i in range(1, 41)
    ] + [
        RetrievedMemory(
            MemoryItem(
                i,
                MemoryKind.FACT,
                f"{i} {words}",
                origin=Origin.USER,
                created_at="2024-01-01T00:00:00",
                updated_at="2024-01-01T00:00:00",
            ),
            i,
            1.0,
            ["lexical"],
        )
        for i in range(1, 41)
    ]

    def recalled_tokens(built_in: bool) -> int:
        return build_context(
            system_prompt="Be brief.",
            user_message=QUESTION,
            budget_tokens=3000,
            retrieved=found,
            **prompt_shares(built_in),
        ).memory_tokens

    assert recalled_tokens(True) <= 0.25 * 3000 + 60  # and the best memory, always
    assert recalled_tokens(False) > 2 * recalled_tokens(True)
