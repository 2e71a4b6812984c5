"""Merging duplicate papers and authors, and minting stable IRIs."""

import json

from kg.corpus import read_file, read_paths
from kg.link import link_papers
from kg.link.identity import paper_iri_for_key, paper_key, person_iri
from tests.conftest import CONFERENCE, CORPUS

LORA3D = "LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models"


def lora3d():
    return next(p for p in read_file(CONFERENCE) if p.title == LORA3D)


def test_shipped_corpus_has_no_duplicates_and_yue_wang_is_one_person():
    linked = link_papers(read_paths([CORPUS]))
    assert len(linked) == 266
    yue = {a.iri for p in linked for a in p.authors if a.name == "Yue Wang"}
    assert yue == {person_iri("Yue Wang").value}
    assert sum(1 for p in linked for a in p.authors if a.iri in yue) == 4  # "four papers", says the listing


def test_same_paper_from_two_files_is_one_node_with_both_sources(tmp_path):
    paper = lora3d()
    # An untitled copy with spacing and quote differences, plus a DOI and a category.
    copy = {"abstract": paper.abstract.replace(" ", "  ").upper(), "doi": "10.1/LoRA3D", "categories": ["3D"]}
    extra = tmp_path / "more.jsonl"
    extra.write_text(json.dumps(copy) + "\n")
    linked = link_papers(read_paths([CONFERENCE, extra]))
    assert len(linked) == 26
    merged = next(p for p in linked if p.paper.title == LORA3D)
    assert [s.format for s in merged.sources] == ["conference", "jsonl"]
    assert merged.paper.doi == "10.1/lora3d" and merged.paper.categories == ("Computer Vision", "3D")
    assert merged.iri == paper_iri_for_key("doi:10.1/lora3d").value  # a DOI, once known, names the paper
    assert len(merged.authors) == 7


def test_different_dois_keep_papers_apart(tmp_path):
    lines = [json.dumps({"abstract": "Same words.", "doi": d}) for d in ("10.1/a", "10.1/b")]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(lines))
    assert len(link_papers(read_paths([path]))) == 2


def test_author_spellings_merge_by_normalised_name(tmp_path):
    lines = [
        json.dumps({"abstract": "First paper.", "authors": ["Jérémy Scheurer", "Sai-Kit Yeung"]}),
        json.dumps({"abstract": "Second paper.", "authors": ["JEREMY SCHEURER", "Sai Kit Yeung"]}),
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(lines))
    first, second = link_papers(read_paths([path]))
    assert [a.iri for a in first.authors] == [a.iri for a in second.authors]
    assert [a.name for a in second.authors] == ["Jérémy Scheurer", "Sai-Kit Yeung"]  # first spelling seen


def test_iris_depend_on_content_only():
    paper = lora3d()
    assert paper_key(paper).startswith("abstract:")
    expected = paper_iri_for_key(paper_key(paper)).value
    assert link_papers([paper])[0].iri == expected
    assert expected.startswith("https://w3id.org/kg/paper/") and len(expected.rsplit("/", 1)[1]) == 16
