"""Exports: deterministic bytes, and the same triples as the store when read
back by two independent parsers (rdflib and Oxigraph)."""

import pyoxigraph
import pytest
import rdflib
from rdflib.compare import isomorphic

from kg.errors import KgError
from kg.export import export_graph, graph_triples
from kg.graph import open_store


@pytest.fixture(scope="module")
def store(corpus_store):
    return open_store(corpus_store)


@pytest.fixture(scope="module")
def store_as_rdflib(store, tmp_path_factory):
    """The store's triples, read into rdflib from Oxigraph's N-Triples (which rdflib parses line by line)."""
    path = tmp_path_factory.mktemp("nt") / "store.nt"
    export_graph(store, path, "nt")
    return rdflib.Graph().parse(path, format="nt")


def test_turtle_reads_back_identically_in_rdflib_and_oxigraph(store, store_as_rdflib, tmp_path):
    path = tmp_path / "kg.ttl"
    count = export_graph(store, path, "ttl")
    expected = set(graph_triples(store))
    assert count == len(expected) > 4000
    oxigraph_read = {q.triple for q in pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.TURTLE)}
    assert oxigraph_read == expected
    rdflib_read = rdflib.Graph().parse(path, format="turtle")
    assert len(rdflib_read) == count
    assert set(rdflib_read) == set(store_as_rdflib)


def test_jsonld_round_trips_to_an_isomorphic_graph(store, store_as_rdflib, tmp_path):
    path = tmp_path / "kg.jsonld"
    export_graph(store, path, "jsonld")
    assert isomorphic(rdflib.Graph().parse(path, format="json-ld"), store_as_rdflib)


@pytest.mark.parametrize("fmt", ["ttl", "nt", "jsonld", "trig"])
def test_exports_are_deterministic(store, tmp_path, fmt):
    first, second = tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"
    export_graph(store, first, fmt)
    export_graph(store, second, fmt)
    assert first.read_bytes() == second.read_bytes()


def test_ntriples_are_sorted_lines(store, tmp_path):
    path = tmp_path / "kg.nt"
    export_graph(store, path, "nt")
    lines = path.read_bytes().splitlines()
    assert lines == sorted(lines) and len(lines) == len(set(lines))


def test_failed_export_keeps_the_previous_file(store, tmp_path):
    path = tmp_path / "kg.ttl"
    path.write_text("previous export")
    with pytest.raises(KgError, match="unknown export format"):
        export_graph(store, path, "rdfxml")
    assert path.read_text() == "previous export"
    assert [p.name for p in tmp_path.iterdir()] == ["kg.ttl"]
