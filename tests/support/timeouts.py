"""How long a test waits for a program it started.

pytest-timeout stops any test after 300 s (``timeout`` in pyproject.toml) with nothing but
a stack dump. Waiting for a subprocess a little less than that lets a hung program fail the
test as ``subprocess.TimeoutExpired`` instead, with the command and its output so far. A
test that needs longer (the real local model) raises its own pytest timeout with
``@pytest.mark.timeout`` and says why.
"""

#: Below the 300 s pytest timeout, with 30 s left for what the test does around the call
#: (48 parallel `memories add` took 101 s on two busy cores).
PROGRAM_TIMEOUT_S = 270
