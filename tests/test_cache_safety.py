"""Extraction caches are not trusted: a shard from another machine (`kg build
--cache-from`) or a damaged local cache may hold any bytes. Every record is
checked against its abstract before it is used or merged; one that fails is
counted in a warning and its paper extracted afresh, so the graph is the one
a clean build gives and the poison never reaches the local cache."""

from __future__ import annotations

import json
import sqlite3
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from kg.corpus import read_paths
from kg.errors import KgWarning
from kg.extract.cache import (
    CachingExtractor,
    ExtractionCache,
    abstract_key,
    decode_extraction,
)
from kg.graph import open_store
from kg.link import link_papers

ABSTRACTS = [
    "We propose LoRA, a parameter-efficient fine-tuning method for large language models (LLMs). LoRA outperforms full fine-tuning on GLUE.",
    "We evaluate BERT on the SQuAD dataset and report the F1 score. BERT improves question answering accuracy.",
    "Transformers are used for machine translation. Our experiments show that the method improves BLEU on WMT14 by two points.",
]


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """A tiny corpus, the shard `kg extract --shard 0/1 --cache` makes of it, and the graph built from that shard."""
    from kg.cli import main

    root = tmp_path_factory.mktemp("cache-safety")
    corpus = root / "tiny.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"p{i}", "title": f"Paper {i}", "abstract": a}) + "\n" for i, a in enumerate(ABSTRACTS)))
    shard, store = root / "shard.sqlite", root / "clean-store"
    assert main(["extract", str(corpus), "--shard", "0/1", "--cache", str(shard), "--quiet", "--out", str(root / "out.jsonl")]) == 0
    assert (
        main(
            [
                "build",
                str(corpus),
                "--cache-from",
                str(shard),
                "--cache",
                str(root / "clean.sqlite"),
                "--store",
                str(store),
                "--no-page",
                "--quiet",
            ]
        )
        == 0
    )
    return {"corpus": corpus, "shard": shard, "rows": rows(shard), "graph": graph(store), "papers": link_papers(read_paths([corpus]))}


def sql(path, *statements: tuple) -> list:
    """Run statements on an SQLite file and commit; the last one's rows."""
    db = sqlite3.connect(path)
    try:
        with db:
            for statement in statements:
                found = db.execute(*statement).fetchall()
        return found
    finally:
        db.close()


def rows(path) -> dict[str, tuple[str, bytes]]:
    return {key: (version, record) for key, version, record in sql(path, ("SELECT abstract, version, record FROM extraction",))}


def graph(store) -> list[str]:
    return sorted(str(quad) for quad in open_store(store))


def key(number: int) -> str:
    return abstract_key(ABSTRACTS[number])


def edited(record: bytes, edit) -> bytes:
    parts = json.loads(zlib.decompress(record))
    parts = edit(*parts) or parts
    return zlib.compress(json.dumps(parts).encode())


def set_field(part: int, field: int, value):
    def edit(*parts):
        parts[part][0][field] = value

    return edit


def zlib_bomb(megabytes: int) -> bytes:
    """A valid zlib stream of ``megabytes`` MiB of spaces, about a thousandth of that compressed,
    made fast by repeating one flushed block (deflate blocks are byte-aligned after a full flush)."""
    chunk = b" " * (1 << 20)
    deflate = zlib.compressobj(9)
    head = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    block = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    assert block == deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    final = deflate.flush()[:-4]  # the last (empty) block, without the checksum of three chunks
    checksum = 1
    for _ in range(megabytes):
        checksum = zlib.adler32(chunk, checksum)
    return head + block * (megabytes - 1) + final + struct.pack(">I", checksum)


#: Ways to poison the record of the first abstract: (name, new record from the clean one).
POISONS = [
    ("offsets outside the abstract", lambda r: edited(r, set_field(0, 2, 5000))),
    ("text is not the abstract's slice", lambda r: edited(r, set_field(0, 0, "BERT"))),
    ("unknown concept type", lambda r: edited(r, set_field(0, 1, "Weapon"))),
    ("unknown relation type", lambda r: edited(r, set_field(2, 2, "kills"))),
    ("relation offsets outside the abstract", lambda r: edited(r, set_field(2, 6, 99999))),
    ("confidence over 1", lambda r: edited(r, set_field(0, 6, 7.5))),
    ("a string for an offset", lambda r: edited(r, set_field(0, 2, "11"))),
    ("sentence not holding the mention", lambda r: edited(r, lambda m, c, rel, a: m[0].__setitem__(slice(4, 6), [50, 20]))),
    ("a mention of three fields", lambda r: edited(r, lambda m, c, rel, a: m.__setitem__(0, m[0][:3]))),
    ("acronym not in the abstract", lambda r: edited(r, set_field(3, 0, "ZZZ"))),
    ("wrong JSON shape", lambda r: zlib.compress(b'{"mentions": []}')),
    ("not JSON", lambda r: zlib.compress(b"[[[")),
    ("not zlib", lambda r: b"\x00not zlib at all"),
    ("trailing bytes", lambda r: r + b"junk"),
    ("text, not a BLOB", lambda r: "a string"),
    ("a zlib bomb", lambda r: zlib_bomb(64)),
]


class Recording:
    """The extractor behind the cache: the clean extractions, noting which papers it was asked for."""

    name, version = "recording", "1"

    def __init__(self, clean):
        self.records, self.asked = clean["rows"], []

    def extract(self, papers):
        for paper in papers:
            self.asked.append(paper.paper.abstract)
            yield decode_extraction(self.records[abstract_key(paper.paper.abstract)][1], paper.iri)


@pytest.mark.parametrize("poison", [p for _, p in POISONS], ids=[name for name, _ in POISONS])
def test_a_poisoned_local_cache_record_is_never_used(tmp_path, clean, poison):
    cache = ExtractionCache(tmp_path / "local.sqlite", "v")
    inserts = [("INSERT INTO extraction VALUES (?, 'v', ?)", (k, record)) for k, (_, record) in clean["rows"].items()]
    sql(
        tmp_path / "local.sqlite",
        *inserts,
        ("UPDATE extraction SET record = ? WHERE abstract = ?", (poison(clean["rows"][key(0)][1]), key(0))),
    )
    inner = Recording(clean)
    extractor = CachingExtractor(inner, cache)
    with pytest.warns(KgWarning, match=r"local\.sqlite: ignored 1 extraction record .* extracted afresh"):
        found = list(extractor.extract(clean["papers"]))
    assert found == list(Recording(clean).extract(clean["papers"]))  # as a clean cache gives
    assert inner.asked == [ABSTRACTS[0]] and extractor.extracted == 1
    assert rows(tmp_path / "local.sqlite")[key(0)][1] == clean["rows"][key(0)][1]  # the fresh record replaced the poison


def poisoned_shard(tmp_path, clean, poisons: dict[int, bytes]):
    shard = tmp_path / "from-elsewhere.sqlite"
    shard.write_bytes(clean["shard"].read_bytes())
    sql(shard, *(("UPDATE extraction SET record = ? WHERE abstract = ?", (record, key(n))) for n, record in poisons.items()))
    return shard


def test_a_poisoned_shard_is_not_merged_and_the_graph_is_the_clean_one(tmp_path, clean, run):
    record = clean["rows"][key(0)][1]
    shard = poisoned_shard(tmp_path, clean, {0: edited(record, set_field(0, 2, 5000)), 1: b"not zlib"})
    before = shard.read_bytes()
    local, store = tmp_path / "local.sqlite", tmp_path / "store"
    code, out, err = run("build", clean["corpus"], "--cache-from", shard, "--cache", local, "--store", store, "--no-page")
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("kg: warning:")]
    assert len(warnings) == 1 and f"{shard}: ignored 2 extraction records" in warnings[0] and "outside the" in warnings[0], err
    assert "2 abstracts extracted, 1 from the cache" in out
    assert rows(local) == clean["rows"]  # the fresh extractions, never the poison
    assert graph(store) == clean["graph"]
    assert shard.read_bytes() == before and [p.name for p in tmp_path.glob("from-elsewhere*")] == [shard.name]  # no journal either


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak memory from /proc")
def test_a_zlib_bomb_in_a_shard_costs_neither_memory_nor_time(tmp_path, clean):
    shard = poisoned_shard(tmp_path, clean, {0: zlib_bomb(1100)})  # 1.1 MB that inflate to 1.15 GB
    assert shard.stat().st_size < 2 << 20
    # The peak is VmHWM, this process's own: ru_maxrss would keep pytest's, as it survives exec.
    script = (
        "import re, time; from pathlib import Path; from kg.cli import main; start = time.monotonic(); "
        f"code = main(['build', {str(clean['corpus'])!r}, '--cache-from', {str(shard)!r}, '--cache', {str(tmp_path / 'local.sqlite')!r}, "
        f"'--store', {str(tmp_path / 'store')!r}, '--no-page', '--quiet']); "
        "peak = int(re.search(r'VmHWM:\\s*(\\d+)', Path('/proc/self/status').read_text()).group(1)) // 1024; "
        "print(code, peak, time.monotonic() - start)"
    )
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=300)
    code, peak_mib, seconds = done.stdout.split()
    assert int(peak_mib) < 500, done.stderr  # the build itself takes about 200 MiB; inflating the bomb, over 2,000
    assert float(seconds) < 60
    assert code == "0" and "ignored 1 extraction record" in done.stderr, done.stderr
    assert key(0) in rows(tmp_path / "local.sqlite") and rows(tmp_path / "local.sqlite")[key(0)][1] == clean["rows"][key(0)][1]
    assert graph(tmp_path / "store") == clean["graph"]


def not_sqlite(path, clean):
    path.write_text("just some notes\n")


def another_schema(path, clean):
    sql(
        path,
        ("CREATE TABLE extraction (abstract TEXT, record BLOB)",),
        ("INSERT INTO extraction VALUES (?, ?)", (key(0), clean["rows"][key(0)][1])),
    )


def another_version(path, clean):
    path.write_bytes(clean["shard"].read_bytes())
    sql(path, ("UPDATE extraction SET version = 'made-by-an-older-kg'",))


@pytest.mark.parametrize(
    "make, message",
    [
        (not_sqlite, "not an extraction cache"),
        (another_schema, "not an extraction cache (no table extraction(abstract, version, record))"),
        (another_version, "its extractions are from another pipeline version"),
    ],
)
def test_a_file_that_is_not_a_usable_shard_is_an_error_and_changes_nothing(tmp_path, clean, run, make, message):
    bad = tmp_path / "bad.sqlite"
    make(bad, clean)
    local = tmp_path / "local.sqlite"
    ExtractionCache(local, "unused").close()  # a local cache from an earlier build, with one paper
    sql(local, ("INSERT INTO extraction VALUES (?, ?, ?)", (key(2), *clean["rows"][key(2)])))
    before = local.read_bytes()
    code, _, err = run(
        "build", clean["corpus"], "--cache-from", clean["shard"], "--cache-from", bad, "--cache", local, "--store", tmp_path / "store"
    )
    assert code == 2 and err.startswith(f"kg: error: {bad}: {message}") and len(err.splitlines()) == 1, err
    assert local.read_bytes() == before  # the good shard before it was not merged either
    assert not (tmp_path / "store").exists()


def test_a_merge_that_fails_halfway_leaves_the_local_cache_as_it_was(tmp_path, clean, monkeypatch):
    from kg.extract.cache import Shard

    def records_then_fail(self, abstracts):
        yield from list(original(self, abstracts))[:2]
        raise KeyboardInterrupt

    original = Shard.records
    monkeypatch.setattr(Shard, "records", records_then_fail)
    version = clean["rows"][key(0)][0]
    cache = ExtractionCache(tmp_path / "local.sqlite", version)
    extractor = CachingExtractor(Recording(clean), cache, shards=[Shard(clean["shard"], version)])
    with pytest.raises(KeyboardInterrupt):
        list(extractor.extract(clean["papers"]))
    assert rows(tmp_path / "local.sqlite") == {}
