"""Whether the chosen model can answer, known before the user sends anything.

The window asks at start and after every settings change: :func:`probe_model` lists
the server's models (one cheap request, no tokens spent) and sorts the outcome into a
:class:`ModelStatus`: ready, unreachable, no key, key refused, a model name the server
doesn't have, or why the model could not be started at all. Each state has its own
words for the chip, and each problem its own reason and next step for the banner.

The listing is kept on the status (``models``): a chat's header offers those names, and
a chat's own model is checked against them by :func:`check_model_name`, the same check
as the profile's, so a name the server doesn't know reads "wrong model name" either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from acai_desktop.core.errors import (
    LocalModelUnavailableError,
    MissingApiKeyError,
    ModelError,
    ModelNotChosenError,
    ModelSettingsError,
    ModelUnauthorizedError,
    ModelUnreachableError,
)
from acai_desktop.core.models.chat_model import NoModelError, next_step
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.presets import ProviderName, has_model, preset


class ModelState(StrEnum):
    CHECKING = "checking"
    READY = "ready"
    UNREACHABLE = "unreachable"
    NO_KEY = "no_key"
    KEY_REFUSED = "key_refused"
    UNKNOWN_MODEL = "unknown_model"
    NOT_CHOSEN = "not_chosen"
    CANNOT_START = "cannot_start"


#: The chip's words for each state (after the model's name).
CHIP_WORDS = {
    ModelState.CHECKING: "checking…",
    ModelState.READY: "ready",
    ModelState.UNREACHABLE: "unreachable",
    ModelState.NO_KEY: "no API key",
    ModelState.KEY_REFUSED: "key refused",
    ModelState.UNKNOWN_MODEL: "wrong model name",
    ModelState.NOT_CHOSEN: "no model chosen",
    ModelState.CANNOT_START: "can't start",
}

#: Servers that answer to any model name (one model loaded): no name can be wrong.
ANY_NAME_SERVES = frozenset({ProviderName.LOCAL, ProviderName.LLAMACPP})
#: What to do when the server doesn't answer, by provider.
SERVER_DOWN_STEP = "Start the server or correct its address in Settings, then press Try again."
SERVER_DOWN_STEPS = {
    ProviderName.OLLAMA: "Start Ollama (`ollama serve`) or correct its address in Settings, "
    "then press Try again.",
    ProviderName.LMSTUDIO: "Start LM Studio's server (Developer tab) or correct its address "
    "in Settings, then press Try again.",
    ProviderName.OPENAI: "Check this computer's connection to the internet, then press Try again.",
}
#: How many of a server's model names the banner lists.
LISTED_NAMES = 6
#: Where the user picks another model: the profile's in Settings, a chat's own in its
#: header.
PICK_IN_SETTINGS = "Pick one of its models in Settings (for Ollama, `ollama pull` it first)."
PICK_IN_CHAT = (
    "Pick one of its models in this chat's settings (⚙ in the header), or let the chat "
    "use the model from Settings."
)


@dataclass(frozen=True)
class ModelStatus:
    state: ModelState
    #: What went wrong, for the banner (None when ready or checking).
    reason: str | None = None
    #: What the user can do about it.
    next_step: str | None = None
    #: The model names the server listed (empty: none listed, or not asked).
    models: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        return self.state == ModelState.READY

    @property
    def chip_words(self) -> str:
        return CHIP_WORDS[self.state]

    @property
    def problem_text(self) -> str | None:
        """The banner's text, or None when there is nothing to say."""
        if self.reason is None:
            return None
        return f"{self.reason}\n{self.next_step}" if self.next_step else self.reason


def status_of_error(error: ModelError) -> ModelStatus:
    """The status a model error stands for (a start that failed, or a failed probe)."""
    if isinstance(error, NoModelError):
        error = error.cause
    step = next_step(error)
    if isinstance(error, ModelNotChosenError):
        return ModelStatus(ModelState.NOT_CHOSEN, str(error), step)
    if isinstance(error, MissingApiKeyError):
        return ModelStatus(ModelState.NO_KEY, str(error), step)
    if isinstance(error, ModelUnauthorizedError):
        return ModelStatus(ModelState.KEY_REFUSED, str(error), step)
    if isinstance(error, ModelUnreachableError):
        return ModelStatus(ModelState.UNREACHABLE, str(error), step)
    if isinstance(error, LocalModelUnavailableError | ModelSettingsError):
        return ModelStatus(ModelState.CANNOT_START, str(error), step)
    return ModelStatus(ModelState.UNREACHABLE, str(error), step)


async def probe_model(client: ModelClient) -> ModelStatus:
    """Ask the server for its models: is it there, does it take the key, does it have the
    chat model? Never raises a ModelError (the answer is the status)."""
    try:
        listed = await client.list_models()
    except LocalModelUnavailableError as error:
        return status_of_error(error)
    except ModelUnreachableError:
        where = preset(client.provider).label
        return ModelStatus(
            ModelState.UNREACHABLE,
            f"Nothing answers at {client.base_url}: {where} is not running there, or the "
            "address is wrong.",
            SERVER_DOWN_STEPS.get(client.provider, SERVER_DOWN_STEP),
        )
    except ModelError as error:
        return status_of_error(error)
    return check_model_name(
        ModelStatus(ModelState.READY, models=tuple(listed)),
        client.model_for("chat"),
        provider=client.provider,
        base_url=client.base_url,
    )


def check_model_name(
    status: ModelStatus,
    name: str | None,
    *,
    provider: ProviderName,
    base_url: str,
    next_step: str = PICK_IN_SETTINGS,
) -> ModelStatus:
    """The state of model ``name`` on a server whose probe gave ``status``: a server
    that answered (ready, or not having another name) is ready for ``name`` unless its
    listing lacks it; any other state (unreachable, no key…) stays what it is."""
    if status.state not in (ModelState.READY, ModelState.UNKNOWN_MODEL):
        return status
    listed = list(status.models)
    if name and listed and provider not in ANY_NAME_SERVES and not has_model(listed, name):
        shown = ", ".join(listed[:LISTED_NAMES]) + (", …" if len(listed) > LISTED_NAMES else "")
        return ModelStatus(
            ModelState.UNKNOWN_MODEL,
            f"The model server at {base_url} has no model named {name!r}. It has: {shown}.",
            next_step,
            models=status.models,
        )
    return ModelStatus(ModelState.READY, models=status.models)
