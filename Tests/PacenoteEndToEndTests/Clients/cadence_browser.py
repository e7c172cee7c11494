#!/usr/bin/env python3
"""Cadence mode on the dashboard in a real browser (Debian's headless Chromium, Selenium,
offline), issue 56: switched on from the card; a footpod's cadence pushed to POST /api/v1/hr
(as a watch or the stand-in footpod sends it) reaches the card without a reload and the
suggestions follow it; Beatrun's −5 / +5 move the target; "Follow my stride" goes back to the
live cadence. No console error. Screenshots into ARTIFACTS_DIR.

Usage: cadence_browser.py BASE_URL API_KEY ARTIFACTS_DIR
Prints one JSON object (what was checked, the screenshots); exits 1 with the failures on stderr."""
import json
import os
import sys
import time
import urllib.request

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, key, artifacts = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check


def api(method, path, body=None):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": "Token " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read() or b"null")


def stride(spm, seconds=6):
    """A footpod's last `seconds` of cadence, one reading a second, ending now."""
    now = time.time()
    api("POST", "/api/v1/hr", {"source": "footpod", "samples": [{"ts": now - seconds + i + 1, "cadence": spm} for i in range(seconds)]})


driver = headless_chromium.start()


def css(selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def text(selector):
    found = css(selector)
    return found[0].text if found else ""


def press(action):
    css(f"[data-cadence-action={action}]")[0].click()


try:
    driver.get(base + "/login?next=/")
    css("#key")[0].send_keys(key)
    css("form button[type=submit]")[0].click()
    headless_chromium.wait_for(lambda: css("#cadence-h"))
    check(css("[data-cadence-action=on]"), "the owner is offered cadence mode")
    press("on")
    headless_chromium.wait_for(lambda: css("[data-cadence-mode=cadence]"))
    check(css("[data-cadence-mode=cadence]"), "cadence mode is on")
    check(text("[data-cadence-following]") == "170", f"no cadence yet: the configured 170 ({text('[data-cadence-following]')!r})")

    # The runner's stride, pushed: the card and the suggestions follow without a reload.
    driver.execute_script("window.__same_page = true")
    stride(160)
    headless_chromium.wait_for(lambda: text("[data-cadence-following]") == "160", seconds=5)
    check(text("[data-cadence-following]") == "160", f"the live cadence reached the card ({text('[data-cadence-following]')!r})")
    check(driver.execute_script("return window.__same_page === true"), "without a reload")
    check("160" in text("[data-cadence-live]"), f"the stride is shown ({text('[data-cadence-live]')!r})")
    headless_chromium.wait_for(lambda: text("[data-next] li:first-child").startswith("Step 160"), seconds=5)
    check(text("[data-next] li:first-child").startswith("Step 160"), f"the suggestion follows 160 ({text('[data-next] li:first-child')!r})")
    check(text("[data-next-for]") == "For your running cadence", f"the caption says so ({text('[data-next-for]')!r})")

    stride(176, seconds=10)
    headless_chromium.wait_for(lambda: text("[data-cadence-following]") == "176", seconds=5)
    check(text("[data-cadence-following]") == "176", f"160 -> 176 reached the card ({text('[data-cadence-following]')!r})")
    headless_chromium.wait_for(lambda: text("[data-next] li:first-child").startswith("Step 176"), seconds=5)
    check(text("[data-next] li:first-child").startswith("Step 176"), f"the suggestion follows 176 ({text('[data-next] li:first-child')!r})")
    checks.screenshot(driver, os.path.join(artifacts, "cadence-live.png"))

    # Beatrun's controls: +5, then −5 twice, then back to the stride.
    press("plus")
    headless_chromium.wait_for(lambda: text("[data-cadence-following]") == "181")
    check(text("[data-cadence-following]") == "181", f"+5 from 176 ({text('[data-cadence-following]')!r})")
    check(css("[data-cadence-source=target]"), "the target is set by hand")
    press("minus")
    headless_chromium.wait_for(lambda: text("[data-cadence-following]") == "176")
    press("minus")
    headless_chromium.wait_for(lambda: text("[data-cadence-following]") == "171")
    check(text("[data-cadence-following]") == "171", f"−5 twice ({text('[data-cadence-following]')!r})")
    check(api("GET", "/api/v1/cadence")["target"] == 171, "the API agrees")
    checks.screenshot(driver, os.path.join(artifacts, "cadence-target.png"))
    press("follow")
    headless_chromium.wait_for(lambda: css("[data-cadence-source=live]"))
    check(css("[data-cadence-source=live]") and text("[data-cadence-following]") == "176",
          f"following the stride again ({text('[data-cadence-following]')!r})")
    press("off")
    headless_chromium.wait_for(lambda: css("[data-cadence-mode=zone]"))
    check(css("[data-cadence-mode=zone]"), "back to zones")
    errors = headless_chromium.console_errors(driver)
    check(not errors, f"no console errors ({errors})")
finally:
    driver.quit()
checks.finish()
