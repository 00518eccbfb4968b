"""The PostgreSQL store (issue 27; docs/architecture.md, "Two stores"). Needs the
``postgresql`` extra (psycopg 3); SQLite users never import it."""
