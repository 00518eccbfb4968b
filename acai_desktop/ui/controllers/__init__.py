"""One controller per feature of the window (chat, conversations, memory panel, documents,
settings, memory health). Each is built once the window exists, given its widgets, its
Qt model, the current chat and the :class:`~acai_desktop.ui.controllers.base.Services`
facade, and wires its widgets' signals to its own slots (docs/architecture.md, "The
window and its controllers")."""
