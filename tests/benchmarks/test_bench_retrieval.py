"""The retrieval benchmark, at tiny sizes: structure and sanity, never timings."""

from __future__ import annotations

import json

import psycopg

from benchmarks.bench_retrieval import benchmark_queries, run_benchmark
from benchmarks.chat_corpus import memory_texts
from benchmarks.cli import main
from tests.support.aio import run
from tests.support.memory import shared_embedder


def test_bench_reports_every_size_with_sane_figures():
    report = run(run_benchmark((40, 150), queries=8, embedder=shared_embedder()))
    rows = report["sizes"]
    assert [row["size"] for row in rows] == [40, 150]
    for row in rows:
        assert set(row) == {
            "size",
            "store",
            "p50_ms",
            "p95_ms",
            "floor_p95_ms",
            "floor_with_embedding_p95_ms",
            "turn_p50_ms",
            "turn_p95_ms",
            "inserts_per_s",
            "db_mb",
        }
        assert 0 < row["p50_ms"] <= row["p95_ms"]
        assert 0 < row["turn_p50_ms"] <= row["turn_p95_ms"]
        assert 0 < row["floor_p95_ms"] <= row["floor_with_embedding_p95_ms"]
        assert row["inserts_per_s"] > 0
        assert row["db_mb"] > 0
    assert rows[1]["db_mb"] > rows[0]["db_mb"]


def test_bench_command_json_and_table(capsys):
    assert main(["bench", "retrieval", "--sizes", "30", "--queries", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["size"] for row in report["sizes"]] == [30]
    assert main(["bench", "retrieval", "--sizes", "30", "--queries", "4"]) == 0
    out = capsys.readouterr().out
    assert "p95 ms" in out and "floor" in out


def test_bench_with_a_server_measures_each_size_on_both_stores(capsys, postgres_cluster):
    server = postgres_cluster.url()
    args = ["bench", "retrieval", "--sizes", "30", "--queries", "4", "--store", server]
    assert main([*args, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["sizes"]
    assert [(row["size"], row["store"]) for row in rows] == [(30, "sqlite"), (30, "postgresql")]
    assert all(row["p95_ms"] > 0 and row["db_mb"] > 0 for row in rows)
    assert main(args) == 0
    table = capsys.readouterr().out.splitlines()
    assert "store" in table[0] and "sqlite" in table[1] and "postgresql" in table[2]
    # The scratch databases are gone again.
    with psycopg.connect(server) as connection:
        names = connection.execute("SELECT datname FROM pg_database").fetchall()
    assert not [name for (name,) in names if name.startswith("acai_scratch")]


def test_bench_command_refuses_bad_sizes(capsys):
    assert main(["bench", "retrieval", "--sizes", "ten"]) == 2
    assert main(["bench", "retrieval", "--sizes", "0"]) == 2
    assert "--sizes" in capsys.readouterr().err


def test_synthetic_text_is_varied_and_deterministic():
    texts = memory_texts(2000)
    assert len(texts) == 2000
    assert len(set(texts)) > 1000
    assert texts == memory_texts(2000)
    queries = benchmark_queries(50)
    assert len(set(queries)) > 30


def test_every_template_of_the_chat_corpus_file_fills():
    """The corpus is data (benchmarks/data/chat_corpus.json): each event's turns and
    questions name only its own slots and the speakers."""
    from benchmarks.chat_corpus import DISTRACTORS, EVENTS, NAMES, SMALL_TALK

    assert len(EVENTS) >= 20 and len(NAMES) >= 20 and SMALL_TALK and DISTRACTORS
    for event in EVENTS:
        values = {slot: options[0] for slot, options in event.slots.items()}
        values.update(S="Ana", O="Wei", date="8 May 2023")
        templates = [*event.tells, event.detail, event.observation, event.detail_observation]
        templates += [question for question, _answer, _category, _evidence in event.questions]
        for template in templates:
            filled = template.format(**values)
            assert "{" not in filled and "}" not in filled, (event.key, template)
