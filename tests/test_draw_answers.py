"""Drawn answers (`kg ask --viz`, `kg query --viz --draw`, ``Answer.draw``): the
page holds the rows' nodes and links, with their sentences; on the tiny graph of
test_ask, whose answers are worked out by hand, and on the shipped corpus."""

import json

import pytest
from pyoxigraph import Literal, NamedNode, Store

from kg.errors import QueryError
from kg.query import list_queries, run_query
from kg.query.ask import ask
from kg.query.library import DrawPattern, parse_draw
from kg.views.answer import TEXT, answer_view, asked_view, render_answer
from tests.test_ask import _tiny_store
from tests.test_views import _parse

KG = "https://w3id.org/kg/"
ALPHA, BETA, DATAONE, SORTING = (KG + "concept/" + key for key in ("alpha", "beta", "dataone", "sorting"))
P1, P2 = KG + "paper/p1", KG + "paper/p2"


@pytest.fixture(scope="module")
def tiny():
    return _tiny_store()


def page_data(path) -> dict:
    """The page's data block: what the browser draws."""
    parser = _parse(path.read_text(encoding="utf-8"))
    return json.loads(next(text for tag, text in parser.blocks if tag == "script"))


def links(view) -> dict[tuple[str, str, str], object]:
    return {(e.source, " + ".join(e.relations), e.target): e for e in view.edges}


def test_every_shipped_question_says_how_to_draw_it_with_columns_it_selects():
    for query in list_queries():
        assert query.draw, f"{query.name} has no # draw: header"
        columns = run_query(Store(), query.sparql, {p: "x" for p in query.params}).variables
        named = {c for pattern in query.draw for c in pattern.columns()}
        assert named <= set(columns), (query.name, named - set(columns))
        assert "draw:" not in query.notes  # the header line is not a note


def test_patterns_parse_and_bad_ones_are_one_line_errors():
    assert parse_draw('?a kg:uses ?b ; ?b "wrote with" ?c;?c ?rel ?d ; ?d <http://x.org/p> ?e') == (
        DrawPattern("a", "kg:uses", "b"),
        DrawPattern("b", "wrote with", "c"),
        DrawPattern("c", "?rel", "d"),
        DrawPattern("d", "<http://x.org/p>", "e"),
    )
    for bad in ("?a kg:uses", "a kg:uses ?b", "?a kg:uses ?b ?c", " ; ", '?a "x ?b'):
        with pytest.raises(QueryError, match="--draw"):
            parse_draw(bad)


def test_methods_on_dataset_draws_each_rows_nodes_links_and_sentence(tiny):
    # Rows (test_ask): Alpha in P1 "Alpha is evaluated on DataOne.", Beta in P2 "Beta is tested on DataOne for sorting."
    view = asked_view(ask(tiny, "methods-on-dataset", {"dataset": "DataOne"}))
    assert {(n.id, n.type, n.label) for n in view.nodes} == {
        (ALPHA, "Method", "Alpha"),
        (BETA, "Method", "Beta"),
        (DATAONE, "Dataset", "DataOne"),
        (P1, "Paper", "Alpha Sorting"),
        (P2, "Paper", "Beta Study"),
    }
    found = links(view)
    assert set(found) == {
        (ALPHA, "kg:evaluatedOn", DATAONE),
        (BETA, "kg:evaluatedOn", DATAONE),
        (P1, "kg:mentions", ALPHA),
        (P2, "kg:mentions", BETA),
    }
    assert all(e.directed for e in view.edges)
    assert [(e.paper, e.paper_label, e.sentence) for e in found[(ALPHA, "kg:evaluatedOn", DATAONE)].evidence] == [
        (P1, "Alpha Sorting", "Alpha is evaluated on DataOne.")
    ]
    assert [e.sentence for e in found[(P2, "kg:mentions", BETA)].evidence] == ["Beta is tested on DataOne for sorting."]
    # Node size: the answer's hub is the largest; a node's hover lists its links' sentences.
    by_id = {n.id: n for n in view.nodes}
    assert by_id[DATAONE].score > by_id[ALPHA].score and len(by_id[DATAONE].evidence) == 2
    assert by_id[DATAONE].role == "focus" and by_id[ALPHA].role == ""  # the node asked about


def test_a_link_at_a_paper_carries_only_that_papers_sentence(tiny):
    # shared-concepts P1 / P2: each paper's link to DataOne carries its own sentence, not the other's.
    view = asked_view(ask(tiny, "shared-concepts", {"paper": "Alpha Sorting", "other": "Beta Study"}))
    found = links(view)
    assert [e.sentence for e in found[(P1, "kg:mentions", DATAONE)].evidence] == ["Alpha is evaluated on DataOne."]
    assert [e.sentence for e in found[(P2, "kg:mentions", DATAONE)].evidence] == ["Beta is tested on DataOne for sorting."]


def test_other_cells_are_lines_of_the_rows_link_and_a_column_can_name_the_link(tiny):
    # datasets-for-task: "relation" (1 paper, through Alpha) and "co-mention" (2 papers): one link, two rows.
    view = asked_view(ask(tiny, "datasets-for-task", {"task": "sorting"}))
    (link,) = view.edges
    assert (link.source, link.relations, link.target) == (DATAONE, ("used for",), SORTING)
    assert {"via: relation", "via: co-mention", "papers: 1", "papers: 2", "through: Alpha"} <= set(link.facts)
    assert not any(f.startswith(("datasetLabel", "taskLabel", "evidence")) for f in link.facts)  # labels are drawn already
    # The predicate ?column: each row's value names its link.
    rows = [(SORTING, "narrower", ALPHA)]
    view = answer_view(
        tiny,
        ["concept", "direction", "other"],
        [[NamedNode(a), Literal(b), NamedNode(c)] for a, b, c in rows],
        parse_draw("?concept ?direction ?other"),
        "t",
    )
    assert [(e.source, e.relations, e.target) for e in view.edges] == [(SORTING, ("narrower",), ALPHA)]


def test_a_literal_is_a_node_of_its_own_text_in_a_pattern_and_a_tooltip_line_in_a_star(tiny):
    rows = [[NamedNode(P1), Literal("Best Paper")], [NamedNode(P2), Literal("Best Paper")]]
    view = answer_view(tiny, ["paper", "award"], rows, parse_draw("?paper kg:award ?award"), "t")
    assert {n.id: n.type for n in view.nodes} == {P1: "Paper", P2: "Paper", TEXT + "Best Paper": "Other"}
    assert len(view.edges) == 2
    stars = answer_view(tiny, ["paper", "award", "concept"], [[NamedNode(P1), Literal("Best Paper"), NamedNode(ALPHA)]], None, "t")
    assert [(e.source, e.relations, e.target, e.facts) for e in stars.edges] == [(P1, ("concept",), ALPHA, ("award: Best Paper",))]


def test_a_star_without_patterns_links_the_first_column_to_each_otherNamedNode(tiny):
    result = run_query(
        tiny,
        "SELECT ?paper ?concept ?other WHERE { ?paper kg:proposes ?concept . OPTIONAL { ?paper kg:mentions ?other FILTER (?other != ?concept) } }",
    )
    rows = [tuple(s[v] for v in result.variables) for s in result.solutions]
    view = answer_view(tiny, result.variables, rows, None, "t")
    found = {(e.source, e.relations[0], e.target) for e in view.edges}
    assert (P1, "concept", ALPHA) in found and (P2, "concept", BETA) in found
    assert (P1, "other", DATAONE) in found and (P2, "other", SORTING) in found
    assert not any(e.target == e.source for e in view.edges)


def test_an_empty_answer_is_a_page_that_says_so(tiny):
    view = asked_view(ask(tiny, "methods-on-dataset", {"dataset": "Beta"}))
    assert view.nodes == () and view.edges == () and "no rows" in view.notice


def test_answer_draw_writes_the_page_from_python(tiny, tmp_path):
    page = ask(tiny, "methods-on-dataset", {"dataset": "D1"}).draw(tmp_path / "answer.html")
    data = page_data(page)
    assert {n["id"] for n in data["nodes"]} == {ALPHA, BETA, DATAONE, P1, P2} and len(data["edges"]) == 4
    assert "Which methods were evaluated on this dataset" in page.read_text(encoding="utf-8")
    assert "(dataset: D1)" in page.read_text(encoding="utf-8")
    again = ask(tiny, "methods-on-dataset", {"dataset": "D1"}).draw(tmp_path / "again.html")
    assert again.read_bytes() == page.read_bytes()  # the same answer, the same page


def test_answer_text_reaches_the_page_only_as_escaped_data(tiny, tmp_path):
    hostile = "<img src=x onerror=alert(1)>"
    view = answer_view(tiny, ["paper", "award"], [[NamedNode(P1), Literal(hostile)]], parse_draw("?paper kg:award ?award"), hostile)
    html = render_answer(tiny, view)
    assert hostile not in html and "\\u003cimg src=x" in html
    assert not [t for t, _ in _parse(html).tags if t == "img"]


# --- the shipped corpus, through the commands -----------------------------------------------------------


def test_kg_ask_viz_draws_the_waymo_answer(run, extracted_store, tmp_path):
    code, out, err = run("ask", "methods-on-dataset", "--dataset", "Waymo", "--store", extracted_store, "--format", "json", "--evidence")
    assert code == 0, err
    records = json.loads(out)
    page = tmp_path / "waymo.html"
    code, out, err = run("ask", "methods-on-dataset", "--dataset", "Waymo", "--viz", "--out", page, "--store", extracted_store)
    assert code == 0, err
    data = page_data(page)
    nodes = {r[c] for r in records for c in ("dataset", "method", "paper")}
    edges = {(r["method"], r["dataset"]) for r in records} | {(r["paper"], r["method"]) for r in records}
    assert {n["id"] for n in data["nodes"]} == nodes
    assert {(e["from"], e["to"]) for e in data["edges"]} == edges
    assert out.startswith(f"Wrote {page}: {len(nodes)} nodes, {len(edges)} links")
    sentences = {s for e in data["edges"] for _, s in e["kgEvidence"]}
    assert {r["evidenceSentence"] for r in records} <= sentences
    assert {n["kgLabel"] for n in data["nodes"] if n["id"] in {r["dataset"] for r in records}} == {"Waymo Open Dataset"}


def test_kg_ask_viz_default_page_and_empty_answer(run, extracted_store, workdir):
    code, out, err = run("ask", "methods-on-dataset", "--dataset", "Waymo", "--viz", "--store", extracted_store)
    assert code == 0, err
    assert (extracted_store.parent / "store-exports" / "kg-ask-methods-on-dataset-waymo.html").is_file()
    assert run("ask", "methods-on-dataset", "--dataset", "Waymoo", "--viz", "--store", extracted_store)[0] == 2
    page = workdir / "empty.html"
    code, out, err = run("query", "SELECT ?p WHERE { ?p a kg:Paper } LIMIT 0", "--viz", "--out", page, "--store", extracted_store)
    assert code == 1 and "no rows" in err and err.count("\n") == 1
    assert page.is_file() and "The answer has no rows" in page.read_text(encoding="utf-8")
    assert run("ask", "methods-on-dataset", "--dataset", "Waymo", "--out", page, "--store", extracted_store)[0] == 2  # --out needs --viz


def test_kg_query_viz_with_and_without_draw(run, extracted_store, tmp_path):
    sparql = "SELECT ?paper ?concept WHERE { ?paper kg:proposes ?concept ; rdfs:label ?l FILTER (STRSTARTS(?l, 'LoRA3D')) }"
    for extra, relation in ((["--draw", "?paper kg:proposes ?concept"], "kg:proposes"), ([], "concept")):
        page = tmp_path / f"q{len(extra)}.html"
        code, out, err = run("query", sparql, "--viz", "--out", page, *extra, "--store", extracted_store)
        assert code == 0, err
        answer = json.loads(run("query", sparql, "--format", "json", "--store", extracted_store)[1])  # SPARQL JSON results
        rows = [{c: cell["value"] for c, cell in binding.items()} for binding in answer["results"]["bindings"]]
        assert rows
        data = page_data(page)
        assert {n["id"] for n in data["nodes"]} == {r[c] for r in rows for c in ("paper", "concept")}
        assert {(e["from"], e["kgRelation"], e["to"]) for e in data["edges"]} == {(r["paper"], relation, r["concept"]) for r in rows}
    code, _, err = run("query", sparql, "--viz", "--draw", "?paper kg:x ?nothing", "--store", extracted_store)
    assert code == 2 and "?nothing" in err and "does not select" in err
    code, _, err = run("query", "CONSTRUCT { ?p a kg:Paper } WHERE { ?p a kg:Paper }", "--viz", "--store", extracted_store)
    assert code == 2 and "kg viz --query" in err
    assert run("query", sparql, "--draw", "?paper kg:x ?concept", "--store", extracted_store)[0] == 2  # --draw needs --viz
