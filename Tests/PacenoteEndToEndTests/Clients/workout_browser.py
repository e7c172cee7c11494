#!/usr/bin/env python3
"""A workout in progress in a real browser (Debian's headless Chromium, Selenium, offline):
opens its page, then sends heart rate at 4 Hz through POST /api/v1/hr — Z5, then above the
chart's bpm range — and checks that the page follows without a reload: the curve gains the
readings and stretches to the newest, the bands and ticks take in the new range, the average,
maximum and duration change, and the time-in-zone bars show what /api/v1/workouts/ID says.
Saves ARTIFACTS_DIR/workout-live.png and names it in its output.

Usage: workout_browser.py BASE_URL API_KEY WORKOUT_ID ARTIFACTS_DIR
Prints one JSON object (what was checked); exits 1 with the failures on stderr."""
import json
import os
import re
import sys
import time
import urllib.request

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, key, workout, artifacts = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
failures, checked, screenshots, check = checks.failures, checks.checked, checks.screenshots, checks.check


def wait_for(condition, seconds=5):
    return headless_chromium.wait_for(condition, seconds)


def push(bpm):
    request = urllib.request.Request(base + "/api/v1/hr?source=strap", data=json.dumps({"bpm": bpm}).encode(),
                                     headers={"Authorization": f"Token {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as answer:
        assert answer.status == 200


def api_figures():
    with urllib.request.urlopen(f"{base}/api/v1/workouts/{workout}", timeout=5) as answer:
        return json.loads(answer.read())


def span(seconds):
    """SiteFormat.span, as the page writes a duration."""
    if seconds < 59.5:
        return f"{int(max(0, seconds) + 0.5)} s"
    minutes = int(seconds / 60 + 0.5)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h" + (f" {minutes % 60} min" if minutes % 60 else "")


driver = headless_chromium.start()


def css(selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def text(selector):
    found = css(selector)
    return found[0].text if found else None


def chart():
    """What the page draws now: the curve's points, bars, values, ticks and figures."""
    return driver.execute_script("""
        const svg = document.querySelector('svg.hrchart');
        const line = svg.querySelector('polyline.hr');
        const points = line ? line.getAttribute('points').trim().split(/\\s+/).map(p => p.split(',').map(Number)) : [];
        const rows = document.querySelector('svg.rows');
        return {
          points: points,
          bands: svg.querySelectorAll('rect.band').length,
          ticks: Array.from(svg.querySelectorAll('text.tick')).map(t => t.textContent),
          times: Array.from(svg.querySelectorAll('text.time')).map(t => t.textContent),
          plotTop: Number(svg.dataset.plot.split(' ')[1]),
          zones: Array.from(svg.querySelectorAll('rect.band > title')).map(t => t.textContent),
          widths: Array.from(rows.querySelectorAll('rect')).map(r => Number(r.getAttribute('width'))),
          values: Array.from(rows.querySelectorAll('text.value')).map(t => t.textContent),
          avg: document.querySelector('[data-w-avg]').textContent,
          max: document.querySelector('[data-w-max]').textContent,
          duration: document.querySelector('[data-w-duration]').textContent,
        };""")


try:
    driver.get(f"{base}/workouts/{workout}")
    check(wait_for(lambda: text("[data-live-status]") == "live", 10), "the workout page connected to the event stream")
    before = chart()
    check(len(before["points"]) >= 8, f"the curve of the readings so far is drawn ({len(before['points'])} points)")
    check(before["max"] == "124" and before["values"][1] != "0 s", f"figures so far: max {before['max']}, Z1 {before['values'][1]}")
    check("Zone 5: 180–190 bpm" in before["zones"], f"the bpm range ends at 190 ({before['zones']})")
    driver.execute_script("document.body.dataset.reloadMarker = 'same-page';")

    # A strap at 4 Hz: twelve readings in Z5 (185 bpm of 200), then two above the chart's range.
    for bpm in [185] * 12 + [200, 200]:
        push(bpm)
        time.sleep(0.25)

    def caught_up():
        api = api_figures()
        now = chart()
        return now["values"] == [span(s) for s in api["time_in_zone_s"]] and now["max"] == str(api["hr_max"]) \
            and now["avg"] == str(int(api["hr_avg"] + 0.5))
    check(wait_for(caught_up, 5), f"the page shows the figures the API gives ({chart()} vs {api_figures()})")
    after = chart()
    check(len(after["points"]) == len(before["points"]) + 14, f"the curve gained the 14 readings ({len(before['points'])} -> {len(after['points'])})")
    check(after["points"][-1][0] > 715, f"the curve reaches the right edge, the newest reading ({after['points'][-1]})")
    check(after["points"][-1][0] > before["points"][-1][0] - 1 and after["points"][0][0] <= before["points"][0][0] + 0.2,
          "the time axis stretched to the newest reading")
    check(after["max"] == "200", f"the maximum is the new reading ({after['max']})")
    check(after["avg"] != before["avg"], f"the average moved ({before['avg']} -> {after['avg']})")
    check(after["duration"] != before["duration"] or after["duration"].endswith("s"), f"the duration follows ({after['duration']})")
    check(after["values"][5] != "0 s" and after["widths"][5] > 0, f"the Z5 bar grew ({after['values'][5]}, {after['widths'][5]})")
    check("Zone 5: 180–200 bpm" in after["zones"] and after["bands"] == before["bands"],
          f"the bands took in 200 bpm ({after['zones']})")
    check(after["ticks"][0] == before["ticks"][0] and after["ticks"][-1] == "190", f"the ticks follow the range ({after['ticks']})")
    top = min(y for _, y in after["points"])
    check(top == after["plotTop"], f"200 bpm is the top of the plot, nothing drawn above it (highest point at y={top})")
    check(after["times"] and all(re.fullmatch(r"\d\d:\d\d", t) for t in after["times"]) and len(after["times"]) <= 6,
          f"clock times under the curve, drawn again as it grows ({after['times']})")
    check(driver.execute_script("return document.body.dataset.reloadMarker") == "same-page", "without reloading the page")
    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    check(not errors, f"no console errors ({errors})")
    saved = driver.save_screenshot(os.path.join(artifacts, "workout-live.png"))
    check(saved, "screenshot workout-live.png saved")
    if saved:
        screenshots.append("workout-live.png")
except Exception as error:  # noqa: BLE001 — reported with what was checked so far
    failures.append(f"stopped at {driver.current_url}: {error!r}")
finally:
    driver.quit()

checks.finish()
