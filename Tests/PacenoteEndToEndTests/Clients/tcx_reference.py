#!/usr/bin/env python3
"""Reads a TCX file with python-tcxparser (PyPI), an independent reader, and prints what it
finds as one JSON object: distance (the last trackpoint's DistanceMeters), duration (the laps'
TotalTimeSeconds summed), the heart rate's mean (cut to an integer, as tcxparser does),
maximum and minimum, the calories, the sport and the number of trackpoints.

Usage: tcx_reference.py FILE.tcx"""
import json
import sys

import tcxparser

tcx = tcxparser.TCXParser(sys.argv[1])
print(json.dumps({
    "distance": float(tcx.distance),
    "duration": float(tcx.duration),
    "hr_avg": tcx.hr_avg,
    "hr_max": tcx.hr_max,
    "hr_min": tcx.hr_min,
    "calories": int(tcx.calories),
    "activity_type": tcx.activity_type,
    "points": len(tcx.time_values()),
}))
