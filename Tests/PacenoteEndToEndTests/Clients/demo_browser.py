#!/usr/bin/env python3
"""The demo's dashboard in Debian's headless Chromium (Selenium, offline), left open as a
newcomer leaves it (issue 52: "The demo, left for ten minutes, shows suggestions in headless
Chromium at every check (each minute)"). One window keeps the dashboard open the whole
time, following the demo live (live.js); a second loads it afresh at each check. At every
check, once a minute from the first, both must list at least one "Up next" suggestion, with
the empty-state line hidden.

Usage: demo_browser.py BASE_URL ARTIFACTS_DIR MINUTES
Prints one JSON object (what was checked, the screenshots saved, the suggestions seen at each
check); exits 1 with the failures on stderr."""
import json
import os
import sys
import time

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, artifacts, minutes = sys.argv[1].rstrip("/"), sys.argv[2], int(sys.argv[3])
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
seen = []


def suggestions(driver):
    """The titles "Up next" lists, if the empty-state line is hidden (or absent)."""
    items = [li.find_element(By.TAG_NAME, "a").text for li in driver.find_elements(By.CSS_SELECTOR, "[data-next] li")]
    empty = [e for e in driver.find_elements(By.CSS_SELECTOR, "[data-next-empty]") if e.is_displayed()]
    return items if items and not empty else []


def check_window(driver, handle, minute, what, seconds):
    driver.switch_to.window(handle)
    found = []

    def listed():
        found[:] = suggestions(driver)
        return bool(found)

    headless_chromium.wait_for(listed, seconds)
    caption = ""
    try:
        caption = driver.find_element(By.CSS_SELECTOR, "[data-next-for]").text
    except Exception:  # noqa: BLE001
        pass
    checks.check(bool(found), f"minute {minute}: {what} shows suggestions under Up next (caption: {caption!r})")
    return {"window": what, "suggestions": list(found), "caption": caption}


driver = headless_chromium.start()
try:
    driver.get(base + "/")
    live = driver.current_window_handle
    driver.switch_to.new_window("window")
    fresh = driver.current_window_handle
    started = time.time()
    for minute in range(minutes + 1):
        time.sleep(max(0.0, started + 60 * minute - time.time()))
        at = round(time.time() - started)
        # The first check gives the recommender time to read the history (built in the
        # background on first use); later ones only the page's own refresh.
        wait = 60 if minute == 0 else 10
        row = {"minute": minute, "at_s": at, "windows": []}
        row["windows"].append(check_window(driver, live, minute, "the dashboard left open", wait))
        driver.switch_to.window(fresh)
        driver.get(base + "/")
        row["windows"].append(check_window(driver, fresh, minute, "the dashboard loaded afresh", wait))
        seen.append(row)
    driver.switch_to.window(live)
    checks.screenshot(driver, os.path.join(artifacts, "demo-dashboard.png"))
    console = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    checks.check(not console, f"no console error in the open dashboard: {console}")
finally:
    driver.quit()

print(json.dumps({"checked": len(checks.checked), "screenshots": checks.screenshots, "seen": seen}))
if checks.failures:
    print("\n".join(checks.failures), file=sys.stderr)
    sys.exit(1)
