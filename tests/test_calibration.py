"""Calibration of the claim classifier (kg.training.calibration) and the map
the runtime applies (kg.extract.claims_model.Calibrator)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kg.errors import KgError, ModelError
from kg.extract.claims_model import Calibrator
from kg.training.arxiv import corpus_path
from kg.training.calibration import (
    Bin,
    claim_reliability,
    expected_calibration_error,
    fit_isotonic,
    fit_platt,
    format_table,
    main,
    reliability,
)


def test_isotonic_pools_the_violator_worked_by_hand():
    # (0.2, 1) then (0.3, 0) violate the order: pooled into one block at
    # mean score 0.25 with mean target 0.5; the ends stay as they are.
    calibrator = fit_isotonic([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    assert calibrator.method == "isotonic"
    assert calibrator.x == pytest.approx((0.1, 0.25, 0.4))
    assert calibrator.y == pytest.approx((0.0, 0.5, 1.0))
    # Linear between knots, flat beyond the ends.
    assert calibrator([0.0, 0.175, 0.25, 0.9]) == pytest.approx([0.0, 0.25, 0.5, 1.0])


def test_isotonic_pools_equal_scores_whatever_their_order():
    first = fit_isotonic([0.5, 0.5, 0.7], [0, 1, 1])
    second = fit_isotonic([0.5, 0.5, 0.7], [1, 0, 1])
    assert first == second
    assert first.x == pytest.approx((0.5, 0.7)) and first.y == pytest.approx((0.5, 1.0))


def test_isotonic_is_monotone_and_fixes_an_overconfident_score():
    rng = np.random.default_rng(0)
    truth = rng.uniform(size=4000)
    outcomes = rng.uniform(size=4000) < truth
    overconfident = truth**0.3  # every score too high
    calibrator = fit_isotonic(overconfident, outcomes)
    assert all(b >= a for a, b in zip(calibrator.y, calibrator.y[1:]))
    before = expected_calibration_error(reliability(overconfident, outcomes))
    after = expected_calibration_error(reliability(calibrator(overconfident), outcomes))
    assert after < before / 3


def test_platt_recovers_the_slope_and_intercept_it_was_drawn_from():
    rng = np.random.default_rng(1)
    scores = rng.uniform(0.01, 0.99, size=20000)
    logit = np.log(scores / (1 - scores))
    outcomes = rng.uniform(size=len(scores)) < 1 / (1 + np.exp(-(2.0 * logit - 1.0)))
    calibrator = fit_platt(scores, outcomes)
    assert calibrator.method == "platt"
    assert calibrator.x[0] == pytest.approx(2.0, abs=0.1) and calibrator.y[0] == pytest.approx(-1.0, abs=0.1)
    assert np.all(np.diff(calibrator(np.linspace(0, 1, 50))) >= 0)


def test_fits_refuse_mismatched_inputs():
    with pytest.raises(KgError, match="as many targets"):
        fit_isotonic([0.1, 0.2], [1])
    with pytest.raises(KgError, match="as many targets"):
        fit_platt([], [])


def test_reliability_table_and_ece_worked_by_hand():
    table = reliability([0.05, 0.15, 0.95, 0.95, 1.0], [False, False, True, False, True], bins=10)
    assert len(table) == 10 and [b.count for b in table] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 3]
    assert table[0] == Bin(0.0, 0.1, 1, 0.05, 0.0)
    last = table[-1]  # 1.0 falls in the last bin
    assert last.mean_confidence == pytest.approx((0.95 + 0.95 + 1.0) / 3) and last.observed_precision == pytest.approx(2 / 3)
    # (1 * 0.05 + 1 * 0.15 + 3 * |0.9667 - 0.6667|) / 5
    assert expected_calibration_error(table) == pytest.approx((0.05 + 0.15 + 0.9) / 5)
    assert expected_calibration_error(reliability([], [])) == 0.0
    text = format_table(table)
    assert "0.9 - 1.0" in text and "0.2 - 0.3" not in text and text.endswith("ECE 0.220 over 5")


def test_reliability_refuses_bad_input():
    with pytest.raises(KgError, match="one outcome per confidence"):
        reliability([0.5], [True, False])
    with pytest.raises(KgError, match="at least one bin"):
        reliability([0.5], [True], bins=0)


def test_calibrator_round_trips_and_checks_its_knots():
    calibrator = fit_isotonic([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    assert Calibrator.from_dict(json.loads(json.dumps(calibrator.to_dict()))) == calibrator
    with pytest.raises(ModelError, match="non-decreasing"):
        Calibrator("isotonic", (0.1, 0.2), (0.6, 0.4))
    with pytest.raises(ModelError, match="unknown calibration method"):
        Calibrator.from_dict({"method": "beta"})
    assert list(Calibrator("identity")([0.3, 0.7])) == [0.3, 0.7]


needs_corpus = pytest.mark.skipif(not corpus_path().is_file(), reason="the arXiv corpus is not in ../shared/corpora")


@needs_corpus
def test_dev_reliability_covers_every_sentence_and_the_emitted_claims(capsys):
    result = claim_reliability("dev")
    every = sum(b.count for b in result.sentences)
    emitted = sum(b.count for b in result.claims)
    assert 0 < emitted < every
    # Every emitted claim is at or above the threshold, so no bin below it holds any.
    assert all(b.count == 0 for b in result.claims if b.high <= result.threshold)
    assert main(["--split", "dev"]) == 0
    out = capsys.readouterr().out
    assert "arXiv dev: every sentence" in out and f"ECE {result.ece_sentences:.3f} over {every}" in out
