"""The built-in model's prompt budget fits the server it runs on. A bigger budget was
measured slower (`bench answers`): the small model's attention over a long prompt costs
every turn more than the rarer history cuts save, so the default stays."""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core.llm.local_server import LocalModelServer
from acai_desktop.core.llm.presets import ProviderName
from acai_desktop.core.llm.settings import ModelSettings


def test_the_prompt_and_the_longest_answer_fit_the_built_in_servers_context():
    bundled = ModelSettings.for_preset(ProviderName.LOCAL)
    command = LocalModelServer().command(Path("model.gguf"))
    context = int(command[command.index("--n_ctx") + 1])
    assert bundled.context_budget_tokens + bundled.resolved_answer_max_tokens() <= context
