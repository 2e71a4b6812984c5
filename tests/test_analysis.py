"""Projections and algorithms (kg top / communities / path / similar and the
Python API): on tiny graphs whose answers are worked out by hand, and on the
shipped corpus for answers visible in its abstracts."""

from __future__ import annotations

import json
import math

import networkx as nx
import pytest

import kg
from kg.analysis import (
    UnknownNameError,
    coauthorship,
    communities,
    concept_cooccurrence,
    load_graph,
    paths,
    resolve,
    similar,
    top,
    typed_relations,
)
from kg.graph import open_store
from kg.pipeline import build
from kg.records import Extraction, Mention, Relation

# Four papers; authors and concepts chosen so every answer below can be checked by hand.
PAPERS = [
    {"id": "alpha", "title": "Alpha", "authors": ["Ann", "Bob"], "abstract": "We apply LoRA to ImageNet. LoRA is evaluated on ImageNet."},
    {"id": "beta", "title": "Beta", "authors": ["Bob", "Cid"], "abstract": "We apply LoRA to CIFAR-10."},
    {"id": "gamma", "title": "Gamma", "authors": ["Dan"], "abstract": "We report BLEU on CIFAR-10."},
    {"id": "delta", "title": "Delta", "authors": ["Eve"], "abstract": "We study Zebra."},
]
TYPES = {"LoRA": "Method", "ImageNet": "Dataset", "CIFAR-10": "Dataset", "BLEU": "Metric", "Zebra": "Method"}


class HandExtractor:
    """Mentions every name of TYPES found in an abstract; LoRA evaluatedOn ImageNet in Alpha."""

    name = "hand"

    def extract(self, papers):
        for linked in papers:
            text = linked.paper.abstract
            mentions = tuple(
                Mention(name, kind, text.index(name), text.index(name) + len(name), 0, len(text), 0.9, "hand", name)
                for name, kind in TYPES.items()
                if name in text
            )
            relations = ()
            if "evaluated on" in text:
                sentence = text.index("LoRA is")
                relations = (Relation("LoRA", "Method", "evaluatedOn", "ImageNet", "Dataset", sentence, len(text), 0.8, "hand"),)
            yield Extraction(linked.iri, mentions, relations=relations)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    (folder / "papers.jsonl").write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n")
    build([folder / "papers.jsonl"], store=folder / "store", extractors=[HandExtractor()])
    return folder / "store"


@pytest.fixture(scope="module")
def graph(tiny):
    return load_graph(open_store(tiny))


def node(graph, name):
    return resolve(graph, name)


def labels(graph, nodes):
    return [graph.nodes[n]["label"] for n in nodes]


def test_projections_by_hand(graph):
    assert sorted(d["type"] for _, d in graph.nodes(data=True)).count("Paper") == 4
    authors = coauthorship(graph)
    assert {tuple(sorted(labels(authors, e))) + (d["weight"],) for *e, d in authors.edges(data=True)} == {
        ("Ann", "Bob", 1),
        ("Bob", "Cid", 1),
    }
    concepts = concept_cooccurrence(graph)
    assert {tuple(sorted(labels(concepts, e))) for *e, _ in concepts.edges(data=True)} == {
        ("ImageNet", "LoRA"),
        ("CIFAR-10", "LoRA"),
        ("BLEU", "CIFAR-10"),
    }
    relations = typed_relations(graph)
    [(head, tail, data)] = relations.edges(data=True)
    assert labels(relations, [head, tail]) == ["LoRA", "ImageNet"]
    [evidence] = data["relations"]["evaluatedOn"]
    assert (evidence.paper_label, evidence.sentence) == ("Alpha", "LoRA is evaluated on ImageNet.")


def test_paths_prefer_fewer_hops_then_more_specific_nodes(graph):
    """Ann -> Cid: through Bob (2 links) or through LoRA (3 links), both 4 hops."""
    found = paths(graph, node(graph, "Ann"), node(graph, "Cid"), k=2)
    assert [[h.target_label for h in p.hops] for p in found] == [["Alpha", "Bob", "Beta", "Cid"], ["Alpha", "LoRA", "Beta", "Cid"]]
    assert [h.forward for h in found[0].hops] == [True, False, True, False]  # Ann author of Alpha; Bob author of Alpha ...


def test_paths_through_only_some_types(graph):
    ann, cid = node(graph, "Ann"), node(graph, "Cid")
    assert paths(graph, ann, cid, through={"Paper"}) == []  # papers never link to papers
    [only] = paths(graph, ann, cid, k=3, through={"Paper", "Method"})
    assert [h.relation for h in only.hops] == ["author of", "mentions", "mentions", "author of"]
    assert paths(graph, ann, node(graph, "Zebra")) == []  # Delta is on its own


def test_path_hop_carries_the_sentence(graph):
    [direct] = paths(graph, node(graph, "LoRA"), node(graph, "ImageNet"), k=1)
    [hop] = direct.hops
    assert hop.relation == "evaluatedOn" and hop.forward
    assert [e.sentence for e in hop.evidence] == ["LoRA is evaluated on ImageNet."]


def test_similar_weights_shared_concepts_by_rarity(graph):
    [beta] = similar(graph, node(graph, "Alpha"))
    assert beta.label == "Beta" and [c.label for c in beta.shared] == ["LoRA"]
    assert beta.score == pytest.approx(math.log(4 / 2))  # LoRA: 2 of 4 papers


def test_top_by_degree_per_type(graph):
    ranked = top(graph, "degree", ("Method", "Dataset"), limit=2)
    assert [(r.type, r.label, r.papers) for r in ranked] == [
        ("Method", "LoRA", 2),
        ("Method", "Zebra", 1),  # LoRA: 2 papers and ImageNet
        ("Dataset", "CIFAR-10", 2),
        ("Dataset", "ImageNet", 1),  # equal degree (2): by label
    ]
    assert ranked[0].score == pytest.approx(3 / (graph.number_of_nodes() - 1))


def test_communities_split_two_cliques_joined_by_one_paper():
    graph = nx.Graph()
    groups = [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    for name in sum(groups, []):
        graph.add_node(name, kind="concept", type="Method", label=name, names=[name])
    for number in range(6):
        paper = f"p{number}"
        graph.add_node(paper, kind="paper", type="Paper", label=paper, names=[paper])
        for concept in groups[number % 2]:
            graph.add_edge(paper, concept)
    graph.add_node("bridge", kind="paper", type="Paper", label="bridge", names=["bridge"])
    graph.add_edges_from([("bridge", "a1"), ("bridge", "b1")])
    found = communities(graph)
    assert sorted(sorted(m.label for m in c.members) for c in found) == groups
    assert found == communities(graph)  # seeded: the same every time
    # Each community's own three papers first (all three members), then the bridge (one).
    assert [[p.members for p in c.papers] for c in found] == [[3, 3, 3, 1], [3, 3, 3, 1]]


def test_unknown_names_suggest_close_matches(graph):
    with pytest.raises(UnknownNameError, match="did you mean 'LoRA'"):
        resolve(graph, "Lora2")
    assert resolve(graph, "imagenet") == node(graph, "ImageNet")


def test_cli_answers_and_exit_codes(tiny, run):
    code, out, _ = run("path", "Ann", "Cid", "--store", tiny, "--format", "json", "-k", "1", "--evidence")
    rows = json.loads(out)
    assert code == 0 and [r["to"] for r in rows] == ["Alpha", "Bob", "Beta", "Cid"]
    assert rows[0]["evidence paper"] == "Alpha"
    code, _, err = run("path", "Ann", "Zebra", "--store", tiny)
    assert code == 1 and "no path" in err
    code, out, err = run("similar", "Lora2", "--store", tiny)
    assert code == 2 and "no Paper is called 'Lora2'" in err
    code, out, _ = run("top", "--type", "Dataset", "--by", "degree", "--store", tiny, "--format", "csv")
    assert code == 0 and out.splitlines()[1].startswith("Dataset,1,CIFAR-10,")


# -- the shipped corpus ------------------------------------------------------

LORA3D = "LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models"


@pytest.fixture(scope="module")
def corpus(rules_store):
    return kg.open(rules_store)


def test_yue_wang_reaches_3d_reconstruction_through_lora3d(corpus):
    first = corpus.path("Yue Wang", "3D reconstruction")[0]
    assert [(h.relation, h.target_label) for h in first.hops] == [("author of", LORA3D), ("mentions", "3D reconstruction")]
    assert "3D reconstruction" in first.hops[1].evidence[0].sentence


def test_ood_generalization_is_the_most_central_task(corpus):
    [best] = corpus.top("pagerank", types=("Task",), limit=1)
    assert (best.label, best.papers >= 80) == ("out-of-distribution generalization", True)


def test_lora3d_is_most_like_omnire_through_waymo(corpus):
    found = corpus.similar("OmniRe: Omni Urban Scene Reconstruction", limit=3)
    lora3d = next(s for s in found if s.label == LORA3D)
    assert "Waymo Open Dataset" in [c.label for c in lora3d.shared]


def test_communities_are_stable_and_cover_the_big_topics(corpus, run, rules_store):
    found = corpus.communities()
    assert found == corpus.communities()
    leaders = {c.members[0].label for c in found[:6]}
    assert {"out-of-distribution detection", "out-of-distribution generalization", "large language model"} <= leaders
    code, out, _ = run("communities", "--store", rules_store, "--format", "json", "--limit", "2")
    assert code == 0 and [c["size"] for c in json.loads(out)] == [c.size for c in found[:2]]


def test_answers_do_not_depend_on_the_process(rules_store):
    """Python salts string hashes per process; seeded answers must not notice."""
    import os
    import subprocess
    import sys

    def answers(hash_seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        commands = [["communities", "--format", "json"], ["path", "LoRA", "distribution shift", "-k", "5", "--format", "json"]]
        return "".join(
            subprocess.run(
                [sys.executable, "-m", "kg", *c, "--store", str(rules_store)], env=env, capture_output=True, text=True, check=True
            ).stdout
            for c in commands
        )

    assert answers("1") == answers("2")


def test_python_api_asks_named_questions(corpus):
    answer = corpus.ask("methods-on-dataset", dataset="Waymo", evidence=False)
    assert {row[answer.columns.index("methodLabel")] for row in answer.rows} == {"LoRA3D", "OmniRe"}  # as `kg ask` finds
    assert not any(column.startswith("evidence") for column in answer.columns)


@pytest.mark.parametrize(
    ("name", "order"),
    [
        ("mentions", ("paper", "start", "concept")),
        ("relations", ("head", "relation", "tail", "paper", "sentence")),
        ("broader", ("narrower", "broader", "rule", "paper")),
    ],
)
def test_rows_sorted_in_python_come_in_sparqls_order(extracted_store, name, order):
    """load_graph sorts big results itself (Oxigraph's ORDER BY is slow there); the order must be ORDER BY's."""
    from kg.analysis.projections import QUERIES, _rows
    from kg.query.run import run_query

    store = open_store(extracted_store)
    query = (QUERIES / f"{name}.rq").read_text(encoding="utf-8") + "ORDER BY " + " ".join(f"?{v}" for v in order)
    result = run_query(store, query)
    ordered = [{v: (s[v].value if s[v] is not None else None) for v in result.variables} for s in result.raw]
    assert len(ordered) > 10 and _rows(store, name, order) == ordered
