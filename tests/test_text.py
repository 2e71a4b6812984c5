import re

from hypothesis import given
from hypothesis import strategies as st

from kg.text import derived_label, match_key, normalise_whitespace, slugify


def test_normalise_whitespace_handles_nbsp_controls_and_composition():
    assert normalise_whitespace("  Yue\u00a0Wang\u200b,\tBoyi  Li \n") == "Yue Wang, Boyi Li"
    assert normalise_whitespace("Cle\u0301ment") == "Cl\u00e9ment"  # combining accent composed (NFC)


@given(st.text())
def test_normalise_whitespace_is_idempotent(text):
    once = normalise_whitespace(text)
    assert normalise_whitespace(once) == once
    assert "  " not in once and once == once.strip()


def test_derived_label_keeps_short_first_sentence_and_marks_cuts():
    assert derived_label("Short claim. Second sentence.") == "Short claim."
    long_sentence = (
        "Large language models such as GPT-4 sometimes appear to be creative, solving novel tasks often with few demonstrations."
    )
    label = derived_label(long_sentence)
    assert label.endswith("…") and len(label) <= 81
    assert long_sentence.startswith(label[:-1])
    assert not label[:-1].endswith(" ")


def test_match_key_ignores_case_accents_and_punctuation():
    assert match_key("Jérémy  Scheurer") == match_key("jeremy scheurer")
    assert match_key("Sai-Kit Yeung") == match_key("Sai Kit Yeung")
    assert match_key("Yue Wang") != match_key("Yue Zhao")


def test_slugify_is_readable_and_keeps_lossy_names_apart():
    assert slugify("Yue Wang") == "yue-wang"
    assert slugify("Neuroscience/Cognitive Science") == "neuroscience-cognitive-science"
    assert slugify("Erdem Bıyık") != slugify("Erdem Byk")  # dotless ı has no ASCII form
    assert slugify("张伟") != slugify("李伟")


@given(st.text())
def test_slugify_is_a_stable_iri_safe_local_name(text):
    slug = slugify(text)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug)
    assert slugify(text) == slug
