"""A bounded fuzzing run: pieces of the shipped corpus (and JSON Lines made from
them), mutated at random, go through the readers and `kg extract` in-process
(one extractor, loaded once). The only outcomes allowed are the documented
ones: exit 0 with one JSON object per paper (and at most one warning line per
file), or exit 2 with one error line. Runs in CI with a small budget;
KG_FUZZ_EXAMPLES=2000 python3 -m pytest -m fuzz runs longer.
"""

import contextlib
import io
import json
import os
import tempfile
import warnings
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kg.cli import main
from kg.corpus import read_paths
from kg.errors import CorpusError, CorpusWarning
from tests.conftest import CONFERENCE, DAILY

pytestmark = pytest.mark.fuzz

EXAMPLES = int(os.environ.get("KG_FUZZ_EXAMPLES", "40"))
WINDOW = 3000  # characters of corpus per example: a few abstracts, so extraction stays quick
SOURCES = [CONFERENCE.read_text(encoding="utf-8"), DAILY.read_text(encoding="utf-8")]
SOURCES.append(
    "\n".join(json.dumps({"title": p.title, "abstract": p.abstract, "authors": list(p.authors)}) for p in read_paths([CONFERENCE]))
)
NOISE = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=20),
    st.sampled_from(["\n", "\n\n", "\x00", "{", '"', "\\", "(" * 50, "\u2028", "\ufeff", "\r\n", "ORAL)", ", and ", "We propose "]),
)


@st.composite
def mutated_corpus(draw) -> tuple[bytes, str]:
    source = draw(st.sampled_from(range(len(SOURCES))))
    text = SOURCES[source]
    start = draw(st.integers(0, max(0, len(text) - WINDOW)))
    text = text[start : start + draw(st.integers(0, WINDOW) | st.just(WINDOW))]
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "swap"]))
        if kind == "insert":
            text = text[:at] + draw(NOISE) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(0, 200)) :]
        elif kind == "duplicate":
            text = text[:at] + text[at : at + draw(st.integers(0, 400))] + text[at:]
        else:
            text = text[at:] + text[:at]
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 3)) == 0 and data:  # now and then a few raw bytes: broken UTF-8, NUL
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=4)) + data[at:]
    suffix = draw(st.sampled_from([".jsonl", ".txt", ".md"] if source == 2 else [".txt", ".md", ".jsonl"]))
    return data, suffix


@pytest.fixture(scope="module")
def extractor():
    from kg.extract.extractor import SpacyExtractor

    shared = SpacyExtractor()
    _ = shared.nlp  # load the model once, before the clock starts
    return shared


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(corpus=mutated_corpus(), strict=st.booleans())
def test_mutated_corpora_through_kg_extract(extractor, corpus, strict):
    data, suffix = corpus
    with tempfile.TemporaryDirectory() as folder:
        path, out = Path(folder) / f"input{suffix}", Path(folder) / "out.jsonl"
        path.write_bytes(data)
        try:  # the library: papers, or a CorpusError
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", CorpusWarning)
                papers = list(read_paths([path], strict=strict))
        except CorpusError:
            papers = None
        stderr = io.StringIO()
        with mock.patch("kg.cli._extractor", return_value=extractor), contextlib.redirect_stderr(stderr):
            code = main(["extract", "--quiet", "--out", str(out), str(path)] + (["--strict"] if strict else []))
        lines = stderr.getvalue().splitlines()
        event(f"exit {code}, {'no papers' if not papers else 'papers'}, {len(lines)} stderr lines")
        if papers is None:
            assert code == 2 and len(lines) == 1 and lines[0].startswith("kg: error: "), lines
            assert not out.exists()
            return
        assert code == 0, lines
        assert len(lines) <= 1 and all(line.startswith("kg: warning: ") for line in lines) and not (strict and lines)
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert 1 <= len(records) <= len(papers)  # duplicates merge
        for record in records:
            assert set(record) == {"id", "title", "concepts", "claims", "relations"}
            assert all(0 <= c["start"] < c["end"] for c in record["concepts"] + record["claims"])
