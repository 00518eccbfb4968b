"""The shared-store soak, small (issue 27 items 3 and 6): two app processes, each with a
data dir of its own, open at once on one PostgreSQL database (so the profile lock is the
data dir's, not the memory's), send 20 turns between them with background learning in
both, and every message is stored once and learned from exactly once; a memory edited
in one reaches the other. Conditions are waited on, never timed."""

from __future__ import annotations

from benchmarks.cli import main
from benchmarks.store_soak import count_in_database, run_store_soak

TURNS = 20


def _assert_one_memory(report: dict) -> None:
    assert report["turns_sent"] == TURNS
    assert report["turns_by_process"] == {1: TURNS // 2, 2: TURNS // 2}  # both ran turns
    assert report["messages_lost"] == [] and report["messages_stored_twice"] == []
    assert report["answers_not_complete"] == []
    assert report["learned_twice"] == [] and report["triaged_twice"] == []
    assert report["not_learned"] == []
    assert report["learning_jobs_done"] == report["learning_claims"] == TURNS
    assert report["turns_triaged"] == TURNS
    assert set(report["jobs"]) == {"done"}
    # Each process edited a memory and the other was told of it.
    assert [edit["by"] for edit in report["edits"]] == [1, 2]
    assert all(edit["memory_id"] is not None for edit in report["edits"])
    assert [hop["process"] for edit in report["edits"] for hop in edit["reached"]] == [2, 1]


def test_two_processes_on_one_database_lose_nothing_and_learn_each_message_once(
    postgres_url,
):
    _assert_one_memory(run_store_soak(postgres_url, TURNS, 2))


def test_the_soak_counts_a_message_learned_twice(postgres_url):
    """The check itself can fail: a second done job for one message, or a job claimed
    twice, is counted from the rows."""

    def learn_twice(database: str) -> None:
        import psycopg

        learning = "SELECT id FROM jobs WHERE kind = 'critical_info' ORDER BY id"
        with psycopg.connect(database) as db:
            first, second = (row[0] for row in db.execute(learning).fetchmany(2))
            db.execute("UPDATE jobs SET attempts = 2 WHERE id = %s", [second])
            db.execute(
                "INSERT INTO jobs (kind, payload, status, attempts, created_at, updated_at) "
                "SELECT kind, payload, 'done', 1, created_at, updated_at FROM jobs "
                "WHERE id = %s",
                [first],
            )

    report = run_store_soak(postgres_url, 4, 2, before_counting=learn_twice)
    assert len(report["learned_twice"]) == 2
    assert report["messages_lost"] == []


def test_the_soak_counts_a_lost_message(postgres_url):
    def lose_one(database: str) -> None:
        import psycopg

        with psycopg.connect(database) as db:
            db.execute("UPDATE messages SET content = 'gone' WHERE content LIKE '%[soak turn 3]%'")

    report = run_store_soak(postgres_url, 4, 2, before_counting=lose_one)
    assert report["messages_lost"] == [3]
    assert count_in_database(postgres_url, [1, 2, 4])["messages_lost"] == []


def test_the_bench_command_runs_the_store_soak(postgres_cluster, capsys):
    server = postgres_cluster.url()
    assert main(["bench", "soak", "--store", server, "--turns", "4", "--processes", "2"]) == 0
    out = capsys.readouterr().out
    assert "messages lost:  0" in out
    assert "learned twice:  0" in out
    assert "edits reaching the other processes: 2 of 2" in out
