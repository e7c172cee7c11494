#!/usr/bin/env python3
"""Plans in a real browser (Debian's headless Chromium, Selenium, offline), with the page's
JavaScript off and on, at 1280 and 360 px (issue 55):

- /plans: a plan written in the notation is saved and drawn (one block per segment); an
  impossible one ("zone 7") comes back with the reason under its field and the text kept.
- The dashboard: the plan is started from its card; the planned workout's card shows the
  segment, its target, the time left, what comes next and that no heart rate is coming; the
  Next segment button moves it on. With JavaScript, the time left counts down by itself and a
  press made elsewhere (the API, as a watch would) reaches the card without a reload.
- End workout leads to the workout's page, with the plan's table.
Nothing runs off the page; no console error. Screenshots into ARTIFACTS_DIR.

Usage: plans_browser.py BASE_URL API_KEY ARTIFACTS_DIR
Prints one JSON object (what was checked, the screenshots); exits 1 with the failures on stderr."""
import json
import os
import sys
import time
import urllib.request

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

base, key, artifacts = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check


def api(method, path, body=None):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": "Token " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read() or b"null")


def fits(driver, label):
    inner = driver.execute_script("return document.documentElement.clientWidth")
    over = driver.execute_script("return document.documentElement.scrollWidth") - inner
    check(over <= 1, f"{label}: nothing runs off the page ({over} px over)")
    smallest = driver.execute_script("""
      const sizes = [...document.querySelectorAll('svg.planchart text')].filter((t) => t.textContent.trim())
        .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
      return sizes.length ? Math.min(...sizes) : null;""")
    check(smallest is None or smallest >= 9.9, f"{label}: the plan chart's labels are 10 px or more ({smallest})")


def shoot(driver, width, name):
    height = driver.execute_script("return Math.max(document.body.scrollHeight, 600)")
    driver.set_window_size(width, min(height + 40, 6000))
    checks.screenshot(driver, os.path.join(artifacts, name))
    driver.set_window_size(width, 900)


for javascript in (False, True):
    mode = "js" if javascript else "nojs"
    driver = headless_chromium.start(javascript=javascript)

    def css(selector):
        return driver.find_elements(By.CSS_SELECTOR, selector)

    def text(selector):
        found = css(selector)
        return found[0].text if found else ""

    try:
        driver.get(base + "/login?next=/plans")
        css("#key")[0].send_keys(key)
        css("form button[type=submit]")[0].click()
        headless_chromium.wait_for(lambda: driver.current_url.split("?")[0].endswith("/plans"))
        for label, width in [("desktop", 1280), ("phone", 360)]:
            where = f"{mode} {label}"
            driver.set_window_size(width, 900)
            driver.get(base + "/plans")
            check(css("h1") and css("h1")[0].text == "Plans", f"{where}: the plans page")
            # An impossible plan: the reason under the field, the text kept.
            css("#plan-name")[0].send_keys(f"Broken {mode} {label}")
            css("#plan-text")[0].send_keys("5 min Z7")
            css(".plan-editor button[type=submit]")[0].click()
            headless_chromium.wait_for(lambda: css("#plan-text-error"))
            error = text("#plan-text-error")
            check("zone 7 does not exist" in error, f"{where}: the reason is shown ({error!r})")
            check(css("#plan-text") and css("#plan-text")[0].get_attribute("value") == "5 min Z7", f"{where}: the text is kept")
            check(css("#plan-text") and css("#plan-text")[0].get_attribute("aria-invalid") == "true", f"{where}: the field is marked")
            fits(driver, f"{where} error")
            # A good one: saved and drawn, one block per segment.
            css("#plan-name")[0].clear()
            css("#plan-name")[0].send_keys(f"Intervals {mode} {label}")
            css("#plan-text")[0].clear()
            css("#plan-text")[0].send_keys("1 min Z2, 3 x [30 s Z5, 30 s Z1], open Z1")
            css(".plan-editor button[type=submit]")[0].click()
            headless_chromium.wait_for(lambda: "Saved Intervals" in text("[role=status]"))
            check(f"Saved Intervals {mode} {label}" in text("[role=status]"), f"{where}: saved ({text('[role=status]')!r})")
            cards = [c for c in css("section.plan") if f"Intervals {mode} {label}" in c.text]
            check(len(cards) == 1, f"{where}: the plan has its card")
            if cards:
                blocks = cards[0].find_elements(By.CSS_SELECTOR, "svg.planchart polygon.plan-seg")
                check(len(blocks) == 8, f"{where}: 8 segments drawn ({len(blocks)})")
                check(cards[0].find_elements(By.CSS_SELECTOR, "svg.planchart polygon.plan-seg.open"), f"{where}: the open one hatched")
                check(cards[0].find_elements(By.CSS_SELECTOR, "svg.planchart polygon.z5"), f"{where}: the Z5 blocks in Z5's colour")
            fits(driver, where)
            shoot(driver, width, f"plans-{mode}-{label}.png")

        # Started from the dashboard's card; the planned workout's card there.
        driver.set_window_size(1280, 900)
        driver.get(base + "/")
        name = f"Intervals {mode} phone"
        Select(css("#plan-start")[0]).select_by_visible_text(name)
        css(".plan-start button[type=submit]")[0].click()
        headless_chromium.wait_for(lambda: css("[data-plan-live]"))
        check(css("[data-plan-live]"), f"{mode}: the planned workout's card is on the dashboard")
        check(text("#plan-live-h") == f"Plan: {name}", f"{mode}: it names the plan ({text('#plan-live-h')!r})")
        check(text("[data-plan-segment]") == "Segment 1 of 8", f"{mode}: segment 1 ({text('[data-plan-segment]')!r})")
        check(text("[data-plan-target]").startswith("Z2"), f"{mode}: its target ({text('[data-plan-target]')!r})")
        check(text("[data-plan-next]") == "30 s Z5", f"{mode}: what comes next ({text('[data-plan-next]')!r})")
        check(css("[data-plan-sensors]") and css("[data-plan-sensors]")[0].is_displayed(), f"{mode}: no heart rate, said")
        left = text("[data-plan-left]")
        check(left in ("1:00", "0:59", "0:58"), f"{mode}: a minute left ({left!r})")
        if javascript:
            check(headless_chromium.wait_for(lambda: text("[data-plan-left]") not in ("", left), 4),
                  f"js: the time left counts down ({left!r} → {text('[data-plan-left]')!r})")
        for label, width in [("desktop", 1280), ("phone", 360)]:
            driver.set_window_size(width, 900)
            fits(driver, f"{mode} {label} dashboard")
            shoot(driver, width, f"plan-live-{mode}-{label}.png")
        # The Next segment button.
        css(".plan-live button[value=next]")[0].click()
        headless_chromium.wait_for(lambda: text("[data-plan-segment]") == "Segment 2 of 8")
        check(text("[data-plan-segment]") == "Segment 2 of 8", f"{mode}: next moves on ({text('[data-plan-segment]')!r})")
        check(text("[data-plan-target]").startswith("Z5"), f"{mode}: to Z5 ({text('[data-plan-target]')!r})")
        workout = css("[data-plan-live]")[0].get_attribute("data-plan-live")
        if javascript:
            # Pressed elsewhere (the API, as a watch or `pacenote workout next` does): the card follows.
            api("POST", f"/api/v1/workouts/{workout}/plan", {"action": "pause"})
            check(headless_chromium.wait_for(lambda: css("[data-plan-paused]"), 8), "js: a press made elsewhere reaches the card")
            css(".plan-live button[value=resume]")[0].click()
            headless_chromium.wait_for(lambda: not css("[data-plan-paused]"))
        check(not css("[data-plan-paused]"), f"{mode}: running")
        # End: the workout's page, with the plan's table.
        css(".plan-live button[value=end]")[0].click()
        headless_chromium.wait_for(lambda: "/workouts/" in driver.current_url)
        check(driver.current_url.endswith(f"/workouts/{workout}"), f"{mode}: ended, on the workout's page ({driver.current_url})")
        rows = css("table.plan-report tbody tr")
        check(len(rows) >= 2, f"{mode}: the plan's table ({len(rows)} rows)")
        check(f"Plan: {name}" in text("#plan-h"), f"{mode}: the plan named on the workout's page")
        fits(driver, f"{mode} workout")
        # The refused plan's page is a 400 on purpose: the browser logs it as a failed load.
        errors = [e for e in headless_chromium.console_errors(driver) if "/plans#editor" not in e.get("message", "")]
        check(not errors, f"{mode}: no console error ({errors})")
    finally:
        driver.quit()
checks.finish()
