"""The concept-linking stage on hand-built extractions: every merge rule, the
cases that must not merge, stable IRIs and the hierarchy (no spaCy needed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kg.lexicon import LexiconEntry
from kg.link import broader_links, concept_key, link_concepts
from kg.records import AcronymDefinition, Extraction, Mention

LEXICON = (
    LexiconEntry("LoRA", "Method", None, ("low-rank adaptation",), 7),
    LexiconEntry("ImageNet", "Dataset", "Q24901201", ("ImageNet-1k",), 8),
)


def mention(
    text: str, concept_type: str = "Method", label: str | None = None, start: int = 0, proposed: bool = False, sentence=(0, 200)
) -> Mention:
    return Mention(text, concept_type, start, start + len(text), *sentence, 0.9, "test", label or text, proposed)


def paper(iri: str, *mentions: Mention, acronyms: tuple[AcronymDefinition, ...] = ()) -> Extraction:
    return Extraction(f"https://w3id.org/kg/paper/{iri}", tuple(mentions), acronyms=acronyms)


def defines(short: str, long: str, long_label: str | None = None, start: int = 0) -> AcronymDefinition:
    return AcronymDefinition(short, long, long_label or long.lower(), start, start + len(long) + len(short) + 3)


def concept_of(index, extraction: Extraction, number: int = 0):
    return index.by_iri[index.mention_concept(extraction.paper_iri, extraction.mentions[number])]


# -- normalisation --------------------------------------------------------


def test_key_sets_aside_case_hyphens_spacing_spelling_and_determiners():
    same = ["out-of-distribution generalization", "Out of Distribution Generalisation", "the out-of-distribution generalization"]
    assert {concept_key(label) for label in same} == {"out-of-distribution-generalization"}
    assert concept_key("pre-training") == concept_key("pretraining") == concept_key("Pre training")
    assert concept_key("supervised learning") == "supervised-learning"  # "-ised" is not British "-ise"


def test_key_keeps_what_distinguishes_concepts():
    assert concept_key("GPT-3.5") != concept_key("GPT-35")
    assert concept_key("C++") != concept_key("C")
    assert concept_key("language model") != concept_key("large language model")


@given(st.text(max_size=40))
def test_key_is_idempotent(label):
    key = concept_key(label)
    assert concept_key(key) == key


# -- merge rules ----------------------------------------------------------


def test_short_form_defined_in_the_paper_is_its_long_form():
    gan = paper(
        "a",
        mention("pre-trained generative adversarial networks", label="pre-trained generative adversarial network"),
        mention("GANs", start=50, label="pre-trained generative adversarial network"),
        acronyms=(defines("GANs", "generative adversarial networks", "generative adversarial network"),),
    )
    index = link_concepts([gan], LEXICON)
    assert concept_of(index, gan, 1).pref_label == "generative adversarial network"
    assert concept_of(index, gan, 0).pref_label == "pre-trained generative adversarial network"
    form = concept_of(index, gan, 1).forms[0]
    assert form.rules == ("acronym in paper",) and "GANs = generative adversarial networks" in form.notes[0]


def test_bare_short_form_takes_the_meaning_two_other_abstracts_give_it():
    defining = [
        paper(
            p,
            mention("large language models", label="large language model"),
            acronyms=(defines("LLMs", "large language models", "large language model"),),
        )
        for p in "ab"
    ]
    bare = paper("c", mention("LLMs", label="LLM"), mention("LLM agents", label="LLM agent", start=20))
    index = link_concepts([*defining, bare], LEXICON)
    assert concept_of(index, bare, 0).iri == concept_of(index, defining[0]).iri
    assert concept_of(index, bare, 1).pref_label == "large language model agent"
    form = next(f for f in concept_of(index, bare, 0).forms if f.text == "LLMs")
    assert form.rules == ("acronym in corpus",) and "LLM = large language model, as 2 or more abstracts" in form.notes[0]


def test_one_definition_is_not_enough_to_expand_elsewhere():
    defining = paper(
        "a",
        mention("domain penalisation", label="domain penalization"),
        acronyms=(defines("DP", "domain penalisation", "domain penalization"),),
    )
    bare = paper("b", mention("DP"))
    index = link_concepts([defining, bare], LEXICON)
    assert concept_of(index, bare).pref_label == "DP"


def test_a_name_a_paper_coins_stays_that_papers():
    """RASP the programming language is not Retrieval-Augmented Semantic Parsing."""
    coining = [
        paper(
            p,
            mention("Retrieval-Augmented Semantic Parsing", label="retrieval-augmented semantic parsing", proposed=True),
            acronyms=(defines("RASP", "Retrieval-Augmented Semantic Parsing"),),
        )
        for p in "ab"
    ]
    language = paper("c", mention("RASP"))
    index = link_concepts([*coining, language], LEXICON)
    assert concept_of(index, language).pref_label == "RASP"
    assert concept_of(index, language).iri != concept_of(index, coining[0]).iri


def test_ambiguous_short_forms_are_left_alone():
    a = [paper(p, acronyms=(defines("DP", "differential privacy"),)) for p in "ab"]
    b = [paper(p, acronyms=(defines("DP", "dynamic programming"),)) for p in "cd"]
    bare = paper("e", mention("DP"))
    assert concept_of(link_concepts([*a, *b, bare], LEXICON), bare).pref_label == "DP"


def test_lexicon_alias_merges_types_and_links_to_wikidata():
    one = paper("a", mention("low-rank adaptation", "Task"))  # mistyped by extraction: the lexicon fixes it
    two = paper("b", mention("ImageNet-1k", "Dataset"), mention("LoRA", start=30))
    index = link_concepts([one, two], LEXICON)
    lora = concept_of(index, one)
    assert lora is concept_of(index, two, 1)
    assert (lora.type, lora.pref_label, lora.lexicon_line) == ("Method", "LoRA", 7)
    assert concept_of(index, two).exact_match == "http://www.wikidata.org/entity/Q24901201"
    assert next(f for f in lora.forms if f.text == "low-rank adaptation").rules == ("alias",)


def test_merges_never_cross_types():
    one = paper("a", mention("anomaly detection", "Task"))
    two = paper("b", mention("anomaly detection", "Method"))
    index = link_concepts([one, two], LEXICON)
    assert concept_of(index, one).iri != concept_of(index, two).iri


def test_plurals_merge_when_the_corpus_has_both_but_names_keep_their_s():
    extractions = [
        paper("a", mention("model architectures"), mention("COGS", "Dataset", start=30)),
        paper("b", mention("model architecture"), mention("COG", "Dataset", start=30)),
    ]
    index = link_concepts(extractions, LEXICON)
    assert concept_of(index, extractions[0]).iri == concept_of(index, extractions[1]).iri
    assert concept_of(index, extractions[0], 1).iri != concept_of(index, extractions[1], 1).iri


def test_prefLabel_is_the_most_frequent_label_and_adding_papers_never_renames():
    first = [paper("a", mention("OOD-Detection", "Task", label="OOD-Detection"))]
    more = first + [paper(p, mention("OOD detection", "Task")) for p in "bc"]
    before, after = link_concepts(first, LEXICON).concepts, link_concepts(more, LEXICON).concepts
    assert [c.iri for c in before] == [c.iri for c in after]
    assert (before[0].pref_label, after[0].pref_label) == ("OOD-Detection", "OOD detection")
    assert after[0].alt_labels == ("OOD-Detection",)


def test_relation_ends_resolve_like_the_mentions_they_name():
    from kg.records import Relation

    extraction = Extraction(
        "https://w3id.org/kg/paper/a",
        (mention("LoRA3D", proposed=True), mention("ImageNet-1k", "Dataset", start=40)),
        relations=(Relation("LoRA3D", "Method", "evaluatedOn", "ImageNet-1k", "Dataset", 0, 80, 0.7, "test"),),
    )
    index = link_concepts([extraction], LEXICON)
    assert index.relation_end_concept(extraction.paper_iri, "Dataset", "ImageNet-1k") == index.mention_concept(
        extraction.paper_iri, extraction.mentions[1]
    )


# -- hierarchy ------------------------------------------------------------


def test_head_noun_gives_the_nearest_broader_concept_and_never_splits_names():
    extractions = [
        paper(
            "a",
            mention("fine-tuning"),
            mention("parameter-efficient fine-tuning", start=20),
            mention("Stable Diffusion", start=60),
            mention("diffusion", start=80),
        )
    ]
    index = link_concepts(extractions, LEXICON)
    links = broader_links(extractions, {e.paper_iri: "x" * 200 for e in extractions}, index)
    pairs = {(index.by_iri[link.narrower].pref_label, index.by_iri[link.broader].pref_label, link.rule) for link in links}
    assert pairs == {("parameter-efficient fine-tuning", "fine-tuning", "head-noun")}


def test_hearst_such_as_links_every_listed_concept_with_its_sentence():
    text = "We study vision-language models such as CLIP, BLIP and LLaVA. Other methods like LoRA help."
    spans = ["vision-language models", "CLIP", "BLIP", "LLaVA", "methods", "LoRA"]
    mentions = []
    for span in spans:
        start = text.index(span)
        sentence = (0, 62) if start < 62 else (63, len(text))
        mentions.append(Mention(span, "Method", start, start + len(span), *sentence, 0.9, "test", span))
    extraction = Extraction("https://w3id.org/kg/paper/a", tuple(mentions))
    index = link_concepts([extraction], LEXICON)
    links = broader_links([extraction], {extraction.paper_iri: text}, index)
    hearst = {
        (index.by_iri[link.narrower].pref_label, index.by_iri[link.broader].pref_label) for link in links if link.rule == "hearst:such-as"
    }
    assert hearst == {(name, "vision-language models") for name in ("CLIP", "BLIP", "LLaVA")}
    like = [link for link in links if link.rule == "hearst:like"]
    assert [(index.by_iri[link.narrower].pref_label, link.start, link.end) for link in like] == [("LoRA", 63, len(text))]


def test_contradicting_hierarchy_is_dropped():
    text = "Models such as transformers; transformers such as models."
    spans = [("Models", 0), ("transformers", 15), ("transformers", 29), ("models", 50)]
    mentions = tuple(Mention(s, "Method", i, i + len(s), 0, len(text), 0.9, "test", s.lower()) for s, i in spans)
    extraction = Extraction("https://w3id.org/kg/paper/a", mentions)
    index = link_concepts([extraction], LEXICON)
    assert broader_links([extraction], {extraction.paper_iri: text}, index) == []
