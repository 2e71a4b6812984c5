"""Assembling the extraction pipeline.

en_core_web_sm 3.8.0 gives tokens, sentences, tags, dependencies and lemmas
(its OntoNotes ``ner`` is left out: it costs half the time and knows nothing
of methods or datasets). The project's components follow::

    kg_ner            the trained concept recogniser (weights/concepts: kg's arXiv
                      annotation and SciREX; floret vectors from 112k abstracts)
    kg_acronyms       short forms -> long forms
    kg_concept_rules  (modes other than "model") spaCy SpanRuler: lexicon names,
                      "<Name> dataset", name shapes
    kg_concept_rules_any_case  lexicon terms in any case (a second SpanRuler)
    kg_concepts       typed concept mentions with labels
    kg_proposed       which concepts the paper introduces
    kg_relation_model trained relations (7 types) over candidate pairs of one sentence; weights/relations
    kg_relations      (with ``concepts="rules"`` instead) cue rules for four relations
    kg_paper_relations  the proposed method's tasks, datasets and methods, across sentences
    kg_claims         sentences stating the paper's results

Patterns and lexicons are data files in ``kg/extract/data`` read here, at build.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from spacy.language import Language

import kg.extract.components  # noqa: F401  (registers the kg_* factories)
from kg.errors import ModelError
from kg.extract.claims_model import DEFAULT_WEIGHTS as CLAIMS_WEIGHTS
from kg.extract.components.concepts import RULE_SPANS_KEY
from kg.extract.lexicons import DATA_DIR, load_lexicons, read_jsonl
from kg.extract.model import CONCEPT_MODES, DEFAULT_CONCEPTS, MODEL_VERSION, load_english
from kg.lexicon import LEXICON_PATH

__all__ = ["build_nlp", "pipeline_version", "CONCEPT_MODES", "DEFAULT_CONCEPTS", "NER_COMPONENT", "CONCEPT_WEIGHTS", "CLAIMS_WEIGHTS"]

CONCEPT_WEIGHTS = Path(__file__).with_name("weights") / "concepts"
#: The name the trained recogniser takes inside the pipeline.
NER_COMPONENT = "kg_ner"


def _ruler_patterns(shapes: bool = True) -> tuple[list[dict], list[dict]]:
    """The concept rules' patterns: (token patterns and names matched exactly,
    names matched in any case). Lexicon names are phrase patterns, which
    spaCy's PhraseMatcher finds about 8x faster than the same names as token
    patterns (1.7 s of the ruler's 2.1 s on the corpus, measured); lower-case
    terms ("fine-tuning") match in any case, other names exactly."""
    # The token patterns (name shapes, "<Name> dataset") serve only the modes that keep those rules.
    exact = read_jsonl(DATA_DIR / "concept_patterns.jsonl") if shapes else []
    any_case: list[dict] = []
    for entry in load_lexicons().known:
        for name in (entry.name, *entry.aliases):
            pattern = {"label": entry.type, "pattern": name, "id": f"lexicon:{entry.name}"}
            (any_case if name.islower() else exact).append(pattern)
    return exact, any_case


def _load_recogniser(nlp: Language) -> dict[str, float]:
    """Add the trained recogniser and its vectors to ``nlp``; its per-type
    precision on the dev split (the confidence of its spans)."""
    import json

    import spacy

    try:
        trained = spacy.load(CONCEPT_WEIGHTS)
        meta = json.loads((CONCEPT_WEIGHTS / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(
            f"cannot load the concept recogniser at {CONCEPT_WEIGHTS}: {exc}; reinstall kg or rebuild it with `python -m kg.training.recogniser`"
        ) from exc
    # The recogniser reads static vectors; en_core_web_sm has none, so they join its vocab.
    nlp.vocab.vectors = trained.vocab.vectors
    nlp.add_pipe("ner", name=NER_COMPONENT, source=trained)
    return {kind: round(p, 2) for kind, p in meta.get("confidence", {}).items()}


def build_nlp(concepts: str = DEFAULT_CONCEPTS, use_claims: bool = True) -> Language:
    """The extraction pipeline.

    ``concepts`` says how concept mentions are found (:data:`CONCEPT_MODES`):
    the trained recogniser alone (``"model"``, the default), with the
    lexicon or with all rules filling its gaps, or ``"rules"`` alone.
    ``use_claims=False`` drops the claim classifier.
    """
    if concepts not in CONCEPT_MODES:
        raise ModelError(f"unknown concept mode {concepts!r}; choose one of {', '.join(CONCEPT_MODES)}")
    nlp = load_english()
    confidence = _load_recogniser(nlp) if concepts != "rules" else {}
    nlp.add_pipe("kg_acronyms")
    if concepts != "model":  # the recogniser alone needs no rulers
        exact, any_case = _ruler_patterns(shapes=concepts in {"rules", "rules+model", "model+rules"})
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
    nlp.add_pipe("kg_concepts", config={"mode": concepts, "confidence": confidence})
    nlp.add_pipe("kg_proposed")
    # The trained relations replace the cue rules, which stay the recogniser-free pipeline's:
    # beside the model they added nothing on the arXiv dev split and cost 0.8 ms an abstract.
    nlp.add_pipe("kg_relations" if concepts == "rules" else "kg_relation_model")
    # After the sentence-level relations: it skips what they found.
    nlp.add_pipe("kg_paper_relations")
    if use_claims:
        nlp.add_pipe("kg_claims", config={"weights": str(CLAIMS_WEIGHTS)})
    return nlp


def pipeline_version(concepts: str = DEFAULT_CONCEPTS) -> str:
    """A digest of everything that decides the extraction's output: its code, data
    and weights (the recogniser's only when it runs: retraining it leaves other
    builds' caches valid), the shared lexicon, and the spaCy and model versions."""
    import spacy

    digest = hashlib.sha256(f"spacy {spacy.__version__} model {MODEL_VERSION} concepts {concepts}".encode())
    package = Path(__file__).parent
    files = [
        p
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc" and (concepts != "rules" or CONCEPT_WEIGHTS not in p.parents)
    ]
    for path in sorted(files) + [LEXICON_PATH]:
        digest.update(str(path.relative_to(package.parent)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
