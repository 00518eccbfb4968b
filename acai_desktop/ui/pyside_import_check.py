"""A cheaper answer to the question PySide6 asks of every module imported after it.

Once PySide6 is loaded, it looks at each newly imported module to learn whether the
module uses PySide (for its opt-in ``from __feature__ import ...``): it reads the
module's source with ``inspect.getsource``, which decodes, splits and caches every
line, to look for the word "PySide6". The window's start imports a few hundred modules
after PySide6 (its own, the store, the model client), and that reading was a tenth of
them (issue 22, start-up measured from outside). The same question is answered here by
looking for the word in the file's bytes; modules without a ``.py`` file keep PySide's
own answer. Nothing of ours uses ``__feature__``.
"""

from __future__ import annotations

import sys

#: Where PySide6 keeps its check (its private module; left alone if it moved).
FEATURE_MODULE = "shibokensupport.feature"
CHECK_NAME = "_mod_uses_pyside"


def install() -> bool:
    """Swap in the cheaper check; False if this PySide6 has no such check."""
    feature = sys.modules.get(FEATURE_MODULE)
    original = getattr(feature, CHECK_NAME, None)
    if original is None or getattr(original, "reads_bytes", False):
        return False

    def uses_pyside(module) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return original(module)
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            return original(module)

    uses_pyside.reads_bytes = True
    setattr(feature, CHECK_NAME, uses_pyside)
    return True
