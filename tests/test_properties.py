"""Property-based tests (hypothesis): the readers never fail but with a
CorpusError, normalisation is idempotent, IRI minting gives the same valid IRI
for any label, and any Unicode label survives the Turtle and N-Triples
exports, read back by Oxigraph and by rdflib."""

import json
import tempfile
import warnings
from pathlib import Path

import pyoxigraph
import pytest
import rdflib
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kg.corpus import READERS, read_file
from kg.errors import CorpusError, CorpusWarning
from kg.export import export_graph, graph_triples
from kg.graph import open_store
from kg.link import identity
from kg.link.normalise import concept_key
from kg.pipeline import build
from kg.records import CONCEPT_TYPES, Paper, Rejected
from kg.text import fold, is_blank, match_key, normalise_whitespace

# Every code point, lone surrogates included (JSON's "\ud800" escape makes them).
ANY_CHAR = st.characters(exclude_categories=())
ANY_TEXT = st.text(ANY_CHAR)
# What breaks a serialiser or a page if it is pasted instead of escaped.
HOSTILE = [
    '"""',
    "'''",
    "\\",
    '\\"',
    'x" } ; DROP ALL ; #',
    "<script>alert(1)</script>",
    "</script><!--",
    "@prefix x: <http://evil/> .",
    "<http://a> <http://b> <http://c> .",
    "a\nb\r\nc\u2028d",
    "_:b0",
    "^^xsd:int",
    "@en",
    "\u0000\u001b[31m\u007f",
    "e\u200d\u0301",
    "\ud800",
    "𝓐𝓑 ﷽ 🙂 \ufffe\uffff",
    "#",
    "{{ x }}",
    "${x}",
]
LABEL = st.one_of(st.sampled_from(HOSTILE), ANY_TEXT)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Readers ----------------------------------------------------------------------------------


def _json_value():
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), LABEL)
    return st.recursive(
        scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(LABEL, inner, max_size=3)), max_leaves=8
    )


def _record():
    keys = st.sampled_from(["id", "title", "abstract", "authors", "year", "venue", "categories", "url", "doi", "extra"])
    return st.dictionaries(keys, st.one_of(LABEL, st.lists(LABEL, max_size=3), _json_value()), max_size=6)


JSONL = st.lists(st.one_of(_record().map(json.dumps), LABEL), max_size=6).map("\n".join)


@pytest.mark.parametrize("reader", sorted(READERS))
@FAST
@given(text=st.one_of(ANY_TEXT, JSONL))
def test_readers_yield_papers_or_rejected_records_for_any_text(reader, text):
    """Any text: papers, rejected records, or one CorpusError for a file that is
    not of the format at all (malformed XML); never another exception."""
    try:
        records = list(READERS[reader].read(text, "f.txt", "0" * 64))
    except CorpusError as exc:
        assert str(exc).startswith("f.txt: ") and "\n" not in str(exc)
        return
    for record in records:
        assert isinstance(record, (Paper, Rejected))
        if isinstance(record, Paper):
            assert record.abstract and record.abstract == normalise_whitespace(record.abstract)
            record.abstract.encode("utf-8")  # no lone surrogate left


@FAST
@given(
    data=st.one_of(st.binary(max_size=400), JSONL.map(lambda t: t.encode("utf-8", "surrogatepass"))),
    suffix=st.sampled_from(sorted({s for reader in READERS.values() for s in reader.SUFFIXES} | {".jsonl.gz"})),
    strict=st.booleans(),
)
def test_read_file_raises_nothing_but_corpus_errors(data, suffix, strict):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(data)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                papers = list(read_file(path, strict=strict))
            except CorpusError as exc:
                assert "\n" not in str(exc) and path.name in str(exc)
                return
        assert papers
        assert all(issubclass(w.category, CorpusWarning) and "\n" not in str(w.message) for w in caught)
        assert len(caught) <= 1 and not (strict and caught)  # one summary per file; none when strict


# Normalisation -----------------------------------------------------------------------------


@FAST
@given(LABEL)
@example("e\u200d\u0301")  # dropping the joiner leaves a pair that composes: compose last
def test_normalise_whitespace_is_idempotent_for_any_code_point(text):
    once = normalise_whitespace(text)
    assert normalise_whitespace(once) == once
    once.encode("utf-8")


@FAST
@given(st.text(alphabet=st.sampled_from(" \t\n\u00a0\u2028\u200b\ufeff\x00\x85\x1c\u3000\u0301\u2060\x7fa\ud800")) | LABEL)
def test_is_blank_agrees_with_normalising(text):
    # the file check that avoids copying a whole file must say what normalising would
    assert is_blank(text) == (not normalise_whitespace(text))


@FAST
@given(LABEL)
def test_fold_of_ascii_is_lower_and_of_anything_drops_combining_marks(text):
    import unicodedata

    folded = fold(text)
    assert not any(unicodedata.combining(c) for c in folded)
    if text.isascii():
        assert folded == text.lower()


@FAST
@given(LABEL)
def test_concept_key_and_match_key_are_idempotent(text):
    assert concept_key(concept_key(text)) == concept_key(text)
    assert match_key(match_key(text)) == match_key(text)


# IRI minting ---------------------------------------------------------------------------------


def _minted(label: str, concept_type: str) -> list[pyoxigraph.NamedNode]:
    paper = identity.paper_iri_for_key("abstract:" + match_key(label))
    concept = identity.concept_iri(concept_type, concept_key(label))
    return [
        paper,
        identity.person_iri(label),
        identity.topic_iri(label),
        identity.venue_iri(label),
        concept,
        identity.component_iri(label),
        identity.form_iri(concept.value, label),
        identity.authorship_iri(paper.value, 3),
        identity.mention_iri(paper.value, 0, 5, concept_type),
        identity.claim_iri(paper.value, 0, 5),
        identity.relation_mention_iri(paper.value, concept, "uses", concept, 0),
        identity.broader_evidence_iri(concept.value, concept.value, label, paper.value, 0),
    ]


@FAST
@given(label=LABEL, concept_type=st.sampled_from(CONCEPT_TYPES))
def test_minted_iris_are_valid_and_stable_for_any_label(label, concept_type):
    first, second = _minted(label, concept_type), _minted(label, concept_type)
    assert first == second
    for iri in first:
        assert pyoxigraph.NamedNode(iri.value) == iri  # a valid IRI
        assert iri.value.startswith("https://w3id.org/kg/") and iri.value.isascii()
        assert str(rdflib.URIRef(iri.value)) == iri.value
        rdflib.Graph().parse(data=f"<{iri.value}> <{iri.value}> <{iri.value}> .", format="nt")


# Export round trip --------------------------------------------------------------------------


def _oxigraph_key(term):
    if isinstance(term, pyoxigraph.NamedNode):
        return ("iri", term.value)
    if isinstance(term, pyoxigraph.BlankNode):
        return ("blank",)
    return ("literal", term.value, term.datatype.value, term.language)


def _rdflib_key(term):
    if isinstance(term, rdflib.URIRef):
        return ("iri", str(term))
    if isinstance(term, rdflib.BNode):
        return ("blank",)
    datatype = term.datatype or (rdflib.RDF.langString if term.language else rdflib.XSD.string)
    return ("literal", str(term), str(datatype), term.language)


def _keys(triples, key) -> set:
    return {tuple(key(term) for term in triple) for triple in triples}


PAPERS = st.lists(
    st.fixed_dictionaries(
        {
            "title": LABEL,
            "abstract": LABEL,
            "authors": st.lists(LABEL, max_size=2),
            "venue": LABEL,
            "categories": st.lists(LABEL, max_size=2),
        }
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(papers=PAPERS)
def test_any_unicode_label_survives_the_turtle_and_ntriples_round_trip(papers):
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        records = [dict(p, abstract=f"Paper {i}. {p['abstract']}") for i, p in enumerate(papers)]
        corpus = folder / "papers.jsonl"
        corpus.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CorpusWarning)  # a label over MAX_FIELD_CHARS would skip its paper
            build([corpus], store=folder / "store")
        store = open_store(folder / "store")
        expected = _keys(graph_triples(store), _oxigraph_key)
        titles = {normalise_whitespace(r["title"]) for r in records} - {""}
        for fmt, oxigraph_format, rdflib_format in (
            ("ttl", pyoxigraph.RdfFormat.TURTLE, "turtle"),
            ("nt", pyoxigraph.RdfFormat.N_TRIPLES, "nt"),
        ):
            out = folder / f"kg.{fmt}"
            export_graph(store, out, fmt)
            assert _keys((q.triple for q in pyoxigraph.parse(path=str(out), format=oxigraph_format)), _oxigraph_key) == expected
            read = rdflib.Graph().parse(out, format=rdflib_format)
            assert _keys(read, _rdflib_key) == expected
            assert titles <= {str(o) for o in read.objects(None, rdflib.DCTERMS.title)}
