"""Assembling the extraction pipeline.

en_core_web_sm 3.8.0 gives tokens, sentences, tags, dependencies and lemmas
(its OntoNotes ``ner`` is left out: it costs half the time and knows nothing
of methods or datasets). The project's components follow::

    kg_ner            SciERC-trained entity recogniser (shipped weights; opt-in)
    kg_acronyms       short forms -> long forms
    kg_concept_rules  spaCy SpanRuler: lexicon names, "<Name> dataset", name shapes
    kg_concept_rules_any_case  lexicon terms in any case (a second SpanRuler)
    kg_concepts       typed concept mentions with labels
    kg_proposed       which concepts the paper introduces
    kg_relations      evaluatedOn / usedFor / uses / outperforms, with the sentence
    kg_claims         sentences stating the paper's results

Patterns and lexicons are data files in ``kg/extract/data`` read here, at build.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from spacy.language import Language

import kg.extract.components  # noqa: F401  (registers the kg_* factories)
from kg.extract.claims_model import DEFAULT_WEIGHTS as CLAIMS_WEIGHTS
from kg.extract.components.concepts import RULE_SPANS_KEY
from kg.extract.lexicons import DATA_DIR, load_lexicons, read_jsonl
from kg.extract.model import MODEL_VERSION, load_english
from kg.lexicon import LEXICON_PATH

__all__ = ["build_nlp", "pipeline_version", "NER_COMPONENT", "NER_WEIGHTS", "CLAIMS_WEIGHTS"]

NER_WEIGHTS = Path(__file__).with_name("weights") / "scierc_ner"
#: The name the SciERC-trained recogniser takes inside the pipeline.
NER_COMPONENT = "kg_ner"


def _ruler_patterns() -> tuple[list[dict], list[dict]]:
    """The concept rules' patterns: (token patterns and names matched exactly,
    names matched in any case). Lexicon names are phrase patterns, which
    spaCy's PhraseMatcher finds about 8x faster than the same names as token
    patterns (1.7 s of the ruler's 2.1 s on the corpus, measured); lower-case
    terms ("fine-tuning") match in any case, other names exactly."""
    exact = read_jsonl(DATA_DIR / "concept_patterns.jsonl")
    any_case = []
    for entry in load_lexicons().known:
        for name in (entry.name, *entry.aliases):
            pattern = {"label": entry.type, "pattern": name, "id": f"lexicon:{entry.name}"}
            (any_case if name.islower() else exact).append(pattern)
    return exact, any_case


def build_nlp(use_ner: bool = False, use_claims: bool = True) -> Language:
    """The extraction pipeline.

    ``use_ner`` adds the SciERC-trained ``kg_ner``; it is off by default
    because on the corpus dev set the rules alone score higher (README,
    "Quality, measured"). ``use_claims=False`` drops the claim classifier.
    """
    nlp = load_english()
    if use_ner:
        import spacy

        trained = spacy.load(NER_WEIGHTS)
        nlp.add_pipe("ner", name=NER_COMPONENT, source=trained)
    nlp.add_pipe("kg_acronyms")
    exact, any_case = _ruler_patterns()
    exact_ruler = nlp.add_pipe("span_ruler", name="kg_concept_rules", config={"spans_key": RULE_SPANS_KEY, "validate": True})
    # A second ruler, because one PhraseMatcher matches on one attribute; it adds to the first's spans.
    any_case_ruler = nlp.add_pipe(
        "span_ruler",
        name="kg_concept_rules_any_case",
        config={"spans_key": RULE_SPANS_KEY, "phrase_matcher_attr": "LOWER", "overwrite": False, "validate": True},
    )
    # Phrase patterns need only the tokenizer; left enabled, the tagger and parser would run on each name.
    with nlp.select_pipes(enable=[]):
        exact_ruler.add_patterns(exact)
        any_case_ruler.add_patterns(any_case)
    nlp.add_pipe("kg_concepts", config={"use_ner": use_ner})
    nlp.add_pipe("kg_proposed")
    nlp.add_pipe("kg_relations")
    if use_claims:
        nlp.add_pipe("kg_claims", config={"weights": str(CLAIMS_WEIGHTS)})
    return nlp


def pipeline_version(use_ner: bool = False) -> str:
    """A digest of everything that decides the extraction's output: its code, data
    and weights (the recogniser's only when it runs: retraining it leaves other
    builds' caches valid), the shared lexicon, and the spaCy and model versions."""
    import spacy

    digest = hashlib.sha256(f"spacy {spacy.__version__} model {MODEL_VERSION}".encode())
    package = Path(__file__).parent
    files = [
        p for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc" and (use_ner or NER_WEIGHTS not in p.parents)
    ]
    for path in sorted(files) + [LEXICON_PATH]:
        digest.update(str(path.relative_to(package.parent)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
