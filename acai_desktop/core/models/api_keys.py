"""API keys: in the OS keyring, or — when there is none — in a file only the user can read.

Never in SQLite, the settings file, logs or QSettings. When the fallback file is in use,
``SecretStore.warning`` says so in words the UI and the command line show as they are
(only when a key is stored there: no keyring and no key is nothing to warn about).
An OPENAI_API_KEY in the environment wins over a stored key for the OpenAI provider: the
person who sets it for a session means it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import keyring
import keyring.errors
from keyring.backend import KeyringBackend

from acai_desktop.core.redaction import remember_secret

log = logging.getLogger(__name__)

SERVICE = "acai-desktop"
FALLBACK_FILE = "secrets.json"
ENVIRONMENT_KEYS = {"openai": "OPENAI_API_KEY"}


def key_variable(provider: str) -> str | None:
    """The environment variable the app reads a key from for ``provider``, if any."""
    return ENVIRONMENT_KEYS.get(str(provider))


def _usable(backend: KeyringBackend) -> bool:
    # keyring answers with a "fail" or "null" backend when the system has no keyring
    # (a headless Linux, a container); its priority is then below zero.
    try:
        return backend.priority > 0
    except Exception:  # a backend that cannot even say is not usable
        return False


class SecretStore:
    def __init__(self, data_dir: Path, *, backend: KeyringBackend | None = None) -> None:
        """``backend`` None means the system keyring as ``keyring`` finds it."""
        self.data_dir = Path(data_dir)
        self._backend = backend if backend is not None else keyring.get_keyring()
        self._keyring_works = _usable(self._backend)

    @property
    def fallback_path(self) -> Path:
        return self.data_dir / FALLBACK_FILE

    @property
    def uses_keyring(self) -> bool:
        return self._keyring_works

    @property
    def warning(self) -> str | None:
        """Set when keys are kept in the fallback file; None when none is stored there
        (no keyring and no key is nothing to warn about at every start)."""
        if not self._read_file():
            return None
        return (
            f"API keys are stored in {self.fallback_path}, readable only by your user "
            "account, not in a system keyring. Install or unlock a keyring (GNOME Keyring, "
            "KWallet, macOS Keychain, Windows Credential Manager) and save the key again in "
            "Settings to keep it there instead."
        )

    @property
    def new_key_warning(self) -> str | None:
        """Set when a key saved now would go to the fallback file (no usable keyring)."""
        if self._keyring_works:
            return None
        return (
            f"No usable system keyring was found, so an API key you save is stored in "
            f"{self.fallback_path}, readable only by your user account."
        )

    # -- keys ---------------------------------------------------------------------

    def get_api_key(self, provider: str, *, environ: Mapping[str, str] | None = None) -> str | None:
        """The provider's key; from now on it is cut from every error text and log line
        (see ``redaction.remember_secret``)."""
        key = self._find_api_key(provider, environ)
        remember_secret(key)
        return key

    def _find_api_key(self, provider: str, environ: Mapping[str, str] | None) -> str | None:
        environ = os.environ if environ is None else environ
        variable = ENVIRONMENT_KEYS.get(provider)
        if variable and environ.get(variable, "").strip():
            return environ[variable].strip()
        if self._keyring_works:
            try:
                value = self._backend.get_password(SERVICE, provider)
            except keyring.errors.KeyringError as error:
                self._give_up_on_keyring(error)
            else:
                if value:
                    return value
        return self._read_file().get(provider)

    def set_api_key(self, provider: str, key: str) -> None:
        self._save(provider, key.strip())

    def _save(self, provider: str, key: str) -> None:
        if not key:
            self.delete_api_key(provider)
            return
        remember_secret(key)
        if self._keyring_works:
            try:
                self._backend.set_password(SERVICE, provider, key)
            except keyring.errors.KeyringError as error:
                self._give_up_on_keyring(error)
            else:
                self._forget_in_file(provider)  # one place per key
                return
        entries = self._read_file()
        entries[provider] = key
        self._write_file(entries)

    def delete_api_key(self, provider: str) -> None:
        if self._keyring_works:
            with contextlib.suppress(keyring.errors.KeyringError):
                self._backend.delete_password(SERVICE, provider)
        self._forget_in_file(provider)

    # -- database passwords (a PostgreSQL store, core/profile/store_choice.py) --------------

    def get_server_password(self, name: str) -> str | None:
        """The password saved for ``ServerAddress.secret_name``, kept like an API key
        (keyring, else the owner-only file) and cut from every error text from now on."""
        return self.get_api_key(name, environ={})

    def set_server_password(self, name: str, password: str) -> None:
        """Save it as typed (spaces are a password's own; an empty one forgets it).
        Never written to the settings file."""
        self._save(name, password)

    # -- fallback file ------------------------------------------------------------

    def _give_up_on_keyring(self, error: Exception) -> None:
        # Locked or broken keyring: use the file for the rest of this run (the error's
        # text never carries the key).
        log.warning("system keyring failed (%s); falling back to %s", error, self.fallback_path)
        self._keyring_works = False

    def _read_file(self) -> dict[str, str]:
        try:
            data = json.loads(self.fallback_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            log.warning("secrets file %s is unreadable: %s", self.fallback_path, type(error))
            return {}
        return (
            {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}
        )

    def _forget_in_file(self, provider: str) -> None:
        entries = self._read_file()
        if provider in entries:
            del entries[provider]
            if entries:
                self._write_file(entries)
            else:
                self.fallback_path.unlink(missing_ok=True)

    def _write_file(self, entries: dict[str, str]) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # mkstemp creates the file 0600 from the start: the key is never readable by others,
        # not even for the moment between writing and a chmod.
        descriptor, temp_name = tempfile.mkstemp(prefix=".secrets-", dir=self.data_dir)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(entries, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temp_name, 0o600)
            os.replace(temp_name, self.fallback_path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
