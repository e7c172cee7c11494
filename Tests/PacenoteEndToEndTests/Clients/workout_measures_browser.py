#!/usr/bin/env python3
"""A run's page in a real browser (Debian's headless Chromium, Selenium, offline) at 1280 and
360 px: the figures, the pace and elevation chart under the heart-rate chart with its song
markers, and the splits table with the songs of each split, all on screen; the page no wider
than the window (a chart or the table scrolls in its own box); the chart's labels 10 px or
more; no console error. Saves ARTIFACTS_DIR/workout-run-desktop.png and -phone.png.

Usage: workout_measures_browser.py BASE_URL WORKOUT_ID ARTIFACTS_DIR [live]
  live: the short run of LiveWorkoutMeasuresTests (one split with both songs, no elevation;
  workout-live-desktop.png and -phone.png).
Prints one JSON object (what was checked, the screenshots); exits 1 with the failures on stderr."""
import os
import sys

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads

base, workout, artifacts = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
live = sys.argv[4:5] == ["live"]
rows_wanted, (both_at, both) = (1, (0, ["Warm Up", "Push"])) if live else (3, (1, ["Warm <Up>", "Push"]))
name = "workout-live" if live else "workout-run"
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check

MEASURE = """
const visible = (el) => { if (!el) return false; const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
const hr = document.querySelector('svg.hrchart'), motion = document.querySelector('svg.motionchart');
const labels = motion ? [...motion.querySelectorAll('text')].filter((t) => t.textContent.trim())
  .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a) : [];
const facts = [...document.querySelectorAll('dl[data-measures] div')].map((d) => d.textContent);
const rows = [...document.querySelectorAll('table[data-splits="splits"] tbody tr')].map((tr) =>
  [...tr.querySelector('td.split-songs').querySelectorAll('a')].map((a) => a.textContent));
return {
  facts, rows,
  figuresVisible: visible(document.querySelector('dl[data-measures]')),
  motionVisible: visible(motion),
  motionBelowHR: !!(hr && motion && motion.getBoundingClientRect().top > hr.getBoundingClientRect().bottom),
  paceLines: motion ? motion.querySelectorAll('polyline.pace').length : 0,
  elevation: motion ? motion.querySelectorAll('path.elevation').length : 0,
  songMarks: motion ? motion.querySelectorAll('line.song').length : 0,
  smallest: labels.length ? Math.min(...labels) : null,
  splitsVisible: visible(document.querySelector('table[data-splits="splits"]')),
  overflow: document.documentElement.scrollWidth - window.innerWidth,
};
"""

driver = headless_chromium.start()
try:
    for label, width in [("desktop", 1280), ("phone", 360)]:
        driver.set_window_size(width, 900)
        driver.get(f"{base}/workouts/{workout}")
        m = driver.execute_script(MEASURE)
        check(m["figuresVisible"] and any(f.startswith("Distance") for f in m["facts"]), f"{label}: the figures show the distance ({m['facts']})")
        check(any(f.startswith("Average pace") for f in m["facts"]), f"{label}: the figures show the pace")
        check(m["motionVisible"] and m["motionBelowHR"], f"{label}: the pace chart is under the heart-rate chart")
        check(m["paceLines"] >= 1 and m["elevation"] == (0 if live else 1),
              f"{label}: the pace line and the elevation area (if any) are drawn ({m['paceLines']}, {m['elevation']})")
        check(m["songMarks"] == 2, f"{label}: both songs are marked on the pace chart ({m['songMarks']})")
        check(m["smallest"] is not None and m["smallest"] >= 9.9, f"{label}: the pace chart's labels are 10 px or more ({m['smallest']})")
        check(m["splitsVisible"] and len(m["rows"]) == rows_wanted, f"{label}: the splits table has {rows_wanted} rows ({m['rows']})")
        check(m["rows"][both_at:both_at + 1] == [both], f"{label}: split {both_at + 1} lists both songs ({m['rows']})")
        check(m["overflow"] <= 0, f"{label}: the page is no wider than the window ({m['overflow']} px over)")
        errors = headless_chromium.console_errors(driver)
        check(not errors, f"{label}: no console error ({errors})")
        height = driver.execute_script("return Math.max(document.body.scrollHeight, 600)")
        driver.set_window_size(width, min(height + 40, 8000))
        checks.screenshot(driver, os.path.join(artifacts, f"{name}-{label}.png"))
finally:
    driver.quit()
checks.finish()
