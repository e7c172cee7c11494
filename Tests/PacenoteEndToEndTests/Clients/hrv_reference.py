"""RMSSD and SDNN by hrv-analysis (PyPI `hrv-analysis`, module `hrvanalysis`), the reference for
Pacenote's HeartRateVariability (HRVReferenceTests).

Reads a JSON array of RR series (ms) on standard input; writes a JSON array with, for each,
rmssd, sdnn and how many intervals each step removed, through the package's README pipeline:
remove_outliers(300, 2000) -> interpolate_nan_values -> remove_ectopic_beats("malik")
-> interpolate_nan_values -> get_time_domain_features.
"""
import json
import math
import sys
import types

try:
    import nolds  # noqa: F401
except TypeError:
    # nolds 0.6.3 (which hrv-analysis 1.0.6 requires) loads its example data sets at import
    # with importlib.resources.files(module), which only Python >= 3.12 accepts. Only the
    # non-linear features use nolds; the time-domain ones compared here do not.
    sys.modules["nolds"] = types.ModuleType("nolds")

from hrvanalysis import (get_time_domain_features, interpolate_nan_values, remove_ectopic_beats,
                         remove_outliers)

out = []
for rr in json.load(sys.stdin):
    # Counted before each interpolation: interpolate_nan_values fills leading gaps in place.
    without_outliers = remove_outliers(rr_intervals=rr, low_rri=300, high_rri=2000, verbose=False)
    outliers = sum(1 for v in without_outliers if isinstance(v, float) and math.isnan(v))
    interpolated = interpolate_nan_values(rr_intervals=without_outliers, interpolation_method="linear")
    nn = remove_ectopic_beats(rr_intervals=interpolated, method="malik", verbose=False)
    ectopic = sum(1 for v in nn if isinstance(v, float) and math.isnan(v))
    nn_interpolated = interpolate_nan_values(rr_intervals=nn)
    features = get_time_domain_features(nn_interpolated)
    out.append({"rmssd": float(features["rmssd"]), "sdnn": float(features["sdnn"]), "outliers": outliers, "ectopic": ectopic})
json.dump(out, sys.stdout)
