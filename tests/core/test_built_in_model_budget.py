"""The bundled model's prompt budget: with the prompt cache, a turn reads only what is new,
and the whole prompt is read again only when old messages leave it. The budget holds about
ten of the small model's turns before that happens, and the server has room for it."""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core.llm.local_server import BUNDLED_MODEL_CONTEXT, LocalModelServer
from acai_desktop.core.llm.presets import ProviderName
from acai_desktop.core.llm.settings import (
    BUNDLED_MODEL_BUDGET_TOKENS,
    DEFAULT_CONTEXT_BUDGET_TOKENS,
    ModelSettings,
)
from acai_desktop.core.memory.context_builder import TURN_SHARE
from acai_desktop.core.memory.tokens import estimate_message_tokens
from acai_desktop.core.resources import resource_text


def context_of(server: LocalModelServer) -> int:
    command = server.command(Path("model.gguf"))
    return int(command[command.index("--n_ctx") + 1])


def test_the_bundled_model_gets_its_own_budget_and_the_room_for_it():
    bundled = ModelSettings.for_preset(ProviderName.LOCAL)
    assert bundled.resolved_context_budget_tokens() == BUNDLED_MODEL_BUDGET_TOKENS
    # The prompt and the longest answer fit the context the server is started with.
    assert context_of(LocalModelServer()) == BUNDLED_MODEL_CONTEXT
    assert BUNDLED_MODEL_BUDGET_TOKENS + bundled.resolved_answer_max_tokens() <= (
        BUNDLED_MODEL_CONTEXT
    )
    # The history before the tenth message fits its room: no cut in the first ten. A turn
    # costs its longest answer, as estimated (about 1.2 estimated tokens a real one: the
    # estimate errs high), and a question.
    system = estimate_message_tokens(resource_text("prompts", "system.txt").strip())
    room = BUNDLED_MODEL_BUDGET_TOKENS * (1 - TURN_SHARE) - system
    turn = 1.2 * bundled.resolved_answer_max_tokens() + estimate_message_tokens("a question" * 6)
    assert 9 * turn <= room


def test_another_model_or_a_budget_the_user_chose_is_left_as_it_is():
    chosen_file = ModelSettings.for_preset(ProviderName.LOCAL, local_model_path="/m.gguf")
    assert chosen_file.resolved_context_budget_tokens() == DEFAULT_CONTEXT_BUDGET_TOKENS
    assert context_of(LocalModelServer("/m.gguf")) == 4096
    assert ModelSettings.for_preset(ProviderName.OPENAI).resolved_context_budget_tokens() == (
        DEFAULT_CONTEXT_BUDGET_TOKENS
    )
    chosen = ModelSettings.for_preset(ProviderName.LOCAL, context_budget_tokens=1500)
    assert chosen.resolved_context_budget_tokens() == 1500
