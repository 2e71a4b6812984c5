"""The checks every query passes before Oxigraph parses it (kg/query/guard.py)."""

import pytest

from kg.errors import QueryError
from kg.query.guard import MAX_DEPTH, MAX_OPERATORS, MAX_QUERY_CHARS, check_query
from kg.query.library import list_queries

REFUSED = [
    "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }",
    "select * where { service<http://127.0.0.1:1/>{?s ?p ?o} }",
    "SELECT * WHERE { SERVICE SILENT ?endpoint { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p ?o .SERVICE <http://x/> {} }",
    "SELECT * WHERE { # comment\n Service <http://x/> {} }",
    'SELECT * WHERE { ?s ?p "x" . SERVICE <http://x/> {} }',
]
ALLOWED = [
    'SELECT ?service WHERE { ?service ?p "SERVICE" }',
    "SELECT * WHERE { ?s <http://example.org/SERVICE> ?o }",
    "SELECT * WHERE { ?s ex:SERVICE ?o } # SERVICE in a comment",
    "SELECT * WHERE { ?s ?p '''a SERVICE { in a long string''' }",
    "SELECT * WHERE { ?s ?p ?o FILTER (?o < 3 && ?o > 1) }",
]


@pytest.mark.parametrize("query", REFUSED)
def test_service_is_refused(query):
    with pytest.raises(QueryError, match="SERVICE"):
        check_query(query)


@pytest.mark.parametrize("query", ALLOWED)
def test_the_word_elsewhere_passes(query):
    check_query(query)


def test_an_updates_load_is_refused():
    with pytest.raises(QueryError, match="LOAD"):
        check_query("LOAD <http://127.0.0.1:1/data.ttl> INTO GRAPH <http://x/g>")
    check_query('SELECT * WHERE { ?s ?p "LOAD" ; ex:LOAD ?load }')


def test_nesting_is_bounded():
    deep = "SELECT * WHERE { FILTER(" + "(" * 5000 + "1" + ")" * 5000 + ") }"
    with pytest.raises(QueryError, match="nested too deeply"):
        check_query(deep)
    check_query("SELECT * WHERE { FILTER(" + "(" * (MAX_DEPTH - 3) + "1" + ")" * (MAX_DEPTH - 3) + ") }")


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * WHERE { ?s ?p ?o FILTER(" + " || ".join(["?o"] * 9400) + ") }",  # aborted the Oxigraph server
        "SELECT * WHERE { ?s ?p ?o FILTER(" + "!" * 9400 + "?o) }",
        "SELECT * WHERE { " + " UNION ".join(["{ ?s ?p ?o }"] * 6600) + " }",
        "SELECT * WHERE { ?s ?p ?o " + "OPTIONAL { ?s ?p ?o } " * 470 + "}",  # overflowed an 8 MB stack
        "SELECT * WHERE { ?s ?p ?o FILTER(?o = " + "1-" * 6600 + "1) }",
    ],
)
def test_chains_without_brackets_are_bounded(query):
    with pytest.raises(QueryError, match="too complex"):
        check_query(query)


def test_typed_literals_and_paths_are_not_chains():
    check_query("SELECT * WHERE { " + " ".join(f'?s ex:p/ex:q "{i}"^^xsd:integer .' for i in range(MAX_OPERATORS // 2)) + " }")


def test_brackets_in_strings_and_iris_do_not_count():
    check_query('SELECT * WHERE { ?s ?p "' + "(" * 5000 + '" }')


def test_length_is_bounded():
    with pytest.raises(QueryError, match="too long"):
        check_query("SELECT * WHERE { ?s ?p ?o }" + " " * MAX_QUERY_CHARS)


def test_every_library_query_passes():
    for query in list_queries():
        check_query(query.sparql)
