"""Typed records for the rows of every table (ARCHITECTURE §3).

Repositories build these from rows; services and views pass them around. They are
plain data: no I/O, no serialisation to files (export has its own module).
"""
