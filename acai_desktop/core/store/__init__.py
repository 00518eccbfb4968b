"""The SQLite store (see docs/architecture.md, "Storage and concurrency").

sqlite-utils is imported here, before any module of the store uses it, without its
optional numpy support: it imports numpy at its own import only to map numpy scalars to
column types, for its table-insertion helpers, which the store never uses (every
statement is our SQL). The window opens the profile from this package right after it
paints, and numpy is a third of that (issue 22, start-up measured from outside); the
assistant loads numpy behind the data that is on screen.
"""

from acai_desktop.core.store.library import import_sqlite_utils_without_numpy

import_sqlite_utils_without_numpy()
