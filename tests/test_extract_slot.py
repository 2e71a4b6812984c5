"""The build's extraction slot: any extractor's mentions land in the graph
with their evidence (paper, sentence, offsets, confidence, component)."""

from collections.abc import Iterable, Iterator

import pytest

from kg.graph import open_store
from kg.pipeline import build
from kg.query import run_query
from kg.records import Extraction, LinkedPaper, Mention
from tests.conftest import CONFERENCE


class FindLoRA:
    """A stand-in extractor: every "LoRA" in an abstract is a Method."""

    name = "test_lora"

    def extract(self, papers: Iterable[LinkedPaper]) -> Iterator[Extraction]:
        for linked in papers:
            text = linked.paper.abstract
            start = text.find("(LoRA)")
            if start < 0:
                continue
            start += 1
            sentence_start = text.rfind(". ", 0, start) + 2
            sentence_end = text.find(". ", start) + 1
            mention = Mention("LoRA", "Method", start, start + 4, sentence_start, sentence_end, 0.9, "test_lora#rule-1")
            yield Extraction(linked.iri, (mention,))


def test_mentions_are_stored_with_their_evidence(tmp_path):
    store = tmp_path / "store"
    build([CONFERENCE], store=store, extractors=[FindLoRA()])
    query = """
    SELECT ?title ?concept ?label ?start ?end ?sentence ?confidence ?component WHERE {
      ?paper kg:mentions ?concept ; kg:hasMention ?m ; dcterms:title ?title .
      ?concept a kg:Method ; skos:prefLabel ?label .
      ?m kg:mentionOf ?concept ; kg:inPaper ?paper ; kg:startOffset ?start ; kg:endOffset ?end ;
         kg:sentence ?sentence ; kg:confidence ?confidence ; prov:wasAttributedTo/rdfs:label ?component .
    }"""
    (row,) = list(run_query(open_store(store), query).raw)
    assert row["title"].value.startswith("LoRA3D")
    assert row["label"].value == "LoRA" and row["concept"].value.endswith("/concept/method-lora")
    assert row["sentence"].value.startswith("We use the calibrated confidence") and "(LoRA)" in row["sentence"].value
    assert int(row["end"].value) - int(row["start"].value) == 4
    assert row["confidence"].value == "0.9" and row["component"].value == "test_lora#rule-1"


def test_a_mention_that_does_not_match_its_offsets_is_refused(tmp_path):
    class Wrong(FindLoRA):
        def extract(self, papers):
            for extraction in super().extract(papers):
                (m,) = extraction.mentions
                yield Extraction(extraction.paper_iri, (Mention("LoRA", "Method", m.start + 1, m.end + 1, 0, 1, 1.0, "x"),))

    with pytest.raises(ValueError, match="does not match the abstract"):
        build([CONFERENCE], store=tmp_path / "store", extractors=[Wrong()])
    assert not (tmp_path / "store").exists()
