"""``bench documents`` on a tiny size: every figure is produced from a real run."""

from __future__ import annotations

from benchmarks.bench_documents import documents_benchmark
from benchmarks.commands.bench_documents import format_report
from benchmarks.documents_corpus import manual_pages
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
    # 300 chunks are searched exactly either way: the comparison must find no difference.
    latency = result["latency"]
    assert latency["same_passages"] == latency["semantic_overlap_min"] == 1.0
    assert latency["rss_mb"] is None or latency["rss_mb"] > 0
    report = format_report(result)
    assert "pages/s" in report and "recall@5" in report and "p95" in report
    assert "against the exact search" in report


def test_the_memory_cases_index_each_file_in_a_child_and_report_its_peak():
    from benchmarks.commands.bench_documents import memory_lines
    from benchmarks.documents_memory import memory_benchmark

    lines: list[str] = []
    memory = memory_benchmark(size_mb=0.05, large_mb=0, report=lines.append)
    assert memory["available"] and memory["baseline_peak_mb"] > 0
    cases = {case["case"]: case for case in memory["cases"]}
    assert list(cases) == ["one line, no whitespace (0.05 MB)", "minified JSON (0.05 MB)"]
    for case in cases.values():
        # A real `docs add` indexed it: bounded chunks, many of them, not one.
        assert case["status"] == "ready" and case["chunks"] > 10
        assert case["peak_mb"] > 0
        assert case["above_baseline_mb"] == round(case["peak_mb"] - memory["baseline_peak_mb"], 1)
        # Whether the child's peak is its own (Linux counts the parent's peak until exec;
        # under pytest, the parent is this big process).
        assert case["valid"] == (case["peak_mb"] > case["bench_peak_mb"])
    report = "\n".join(memory_lines(memory))
    assert "above the baseline" in report and "minified JSON" in report
