"""Command-line commands; each module adds one sub-command to the parser."""
