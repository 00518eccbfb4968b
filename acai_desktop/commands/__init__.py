"""Command-line commands; each module adds one sub-command to the parser."""

#: The frozen app's first argument when it runs as ``bench startup``'s probe
#: (acai_desktop.ui.startup_probe): a bundle has no ``python -m``. Here, light, so the
#: command line can check it at start, as it does --serve-local-model.
STARTUP_PROBE_FLAG = "--startup-probe"
