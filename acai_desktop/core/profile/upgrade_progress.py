"""Progress of long operations (updating an old profile's database), as log records on
one logger: the command line prints them on stderr, the window in its status bar. A
logger, not a callback threaded through every way of opening a database."""

from __future__ import annotations

import logging

PROGRESS_LOGGER = "acai_desktop.progress"
progress_log = logging.getLogger(PROGRESS_LOGGER)
