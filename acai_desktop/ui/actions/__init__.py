"""What the window's requests do, grouped by concern; each group wires its own signals
in one ``connect`` method, and runs its work through :func:`in_background`."""
