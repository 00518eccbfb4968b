"""``bench documents`` on a tiny size: every figure is produced from a real run."""

from __future__ import annotations

from acai_desktop.commands.bench_documents import format_report
from acai_desktop.evaluation.documents_bench import documents_benchmark
from acai_desktop.evaluation.documents_corpus import manual_pages
from tests.support.aio import run


def test_the_manual_holds_each_fact_on_its_page_once():
    pages, facts = manual_pages(4)
    assert len(pages) == 4 and len(facts) == 8
    for fact in facts:
        holding = [n for n, lines in enumerate(pages, 1) if fact.key_phrase in " ".join(lines)]
        assert holding == [fact.page]


def test_the_documents_benchmark_indexes_searches_and_reports(tmp_path):
    lines: list[str] = []
    result = run(documents_benchmark(pages=3, chunks=300, queries=6, report=lines.append))
    pdf, text = result["indexing"]["pdf"], result["indexing"]["text"]
    assert pdf["status"] == text["status"] == "ready"
    assert pdf["chunks"] >= 3 and pdf["pages_per_s"] > 0
    assert result["indexing"]["pdf"]["recall"]["questions"] == 6
    assert result["latency"]["chunks"] == 300 and result["latency"]["queries"] == 6
    report = format_report(result)
    assert "pages/s" in report and "recall@5" in report and "p95" in report
