#!/usr/bin/env python3
"""A player's controls on the dashboard in a real browser (Debian's headless Chromium, Selenium,
offline), issue 57: pause, next and a volume change pressed on the now-playing card each reach
MPD (`mpc status` says so), and a second dashboard, open beside the first, follows every
change without a reload within a second, also a change made with mpc. No console error.
Screenshots into ARTIFACTS_DIR.

Usage: player_browser.py BASE_URL API_KEY MPD_PORT ARTIFACTS_DIR
Prints one JSON object (what was checked, the screenshots); exits 1 with the failures on stderr."""
import os
import subprocess
import sys
import time

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, key, port, artifacts = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check


def mpc(*args):
    return subprocess.run(["mpc", "--host", "127.0.0.1", "--port", port, *args], capture_output=True, text=True, check=True).stdout


def until(condition, seconds=5):
    """Whether `condition` held within `seconds` (checked every 20 ms)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


pressing = headless_chromium.start()
watching = headless_chromium.start()


def css(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def text(driver, selector):
    found = css(driver, selector)
    return found[0].text if found else ""


def log_in(driver):
    driver.get(base + "/login?next=/")
    css(driver, "#key")[0].send_keys(key)
    css(driver, "form button[type=submit]")[0].click()
    headless_chromium.wait_for(lambda: css(driver, "[data-controls]"))


def press(control):
    css(pressing, f"[data-control={control}]")[0].click()


try:
    log_in(pressing)
    log_in(watching)
    for driver in (pressing, watching):
        live = lambda d=driver: css(d, "[data-live-status]") and css(d, "[data-live-status]")[0].get_attribute("data-state") == "on"
        check(headless_chromium.wait_for(live, 15), "the page's event stream is connected")
    watching.execute_script("window.__same_page = true")
    check(css(pressing, "[data-control=toggle]"), "the owner sees the buttons")
    check(text(watching, "[data-control-state]") == "Playing", f"playing at first ({text(watching, '[data-control-state]')!r})")

    # Pause: MPD pauses; the other dashboard says so without a reload.
    press("toggle")
    check(until(lambda: "[paused]" in mpc("status")), "pause reached MPD (mpc status)")
    started = time.time()
    check(until(lambda: text(watching, "[data-control-state]") == "Paused", 1.5),
          f"the second dashboard shows the pause ({text(watching, '[data-control-state]')!r}, {time.time() - started:.2f} s)")
    headless_chromium.wait_for(lambda: css(pressing, "[data-controls][data-state=pause]"))
    check(css(pressing, "[data-control=toggle][aria-label=Play]"), "the button now plays")
    checks.screenshot(pressing, os.path.join(artifacts, "player-paused.png"))

    # Play again, then the next song.
    press("toggle")
    check(until(lambda: "[playing]" in mpc("status")), "play reached MPD")
    first = mpc("-f", "%file%", "current").strip()
    press("next")
    check(until(lambda: mpc("-f", "%file%", "current").strip() not in ("", first)),
          f"next reached MPD ({first!r} -> {mpc('-f', '%file%', 'current').strip()!r})")

    # The volume: + once (5 more), from the card.
    before = text(pressing, "[data-volume]")
    press("volume_up")
    check(until(lambda: "volume: 55%" in mpc("status")), f"volume + reached MPD ({mpc('status').splitlines()[-1]!r}, was {before!r})")
    check(until(lambda: text(watching, "[data-volume]") == "55 %", 1.5), f"the second dashboard shows 55 % ({text(watching, '[data-volume]')!r})")

    # A change made with mpc reaches both pages.
    mpc("volume", "30")
    mpc("random", "on")
    check(until(lambda: text(watching, "[data-volume]") == "30 %", 1.5), f"mpc's volume reached the page ({text(watching, '[data-volume]')!r})")
    check(until(lambda: css(watching, "[data-mode=random][aria-pressed=true]"), 1.5), "mpc's random reached the page")
    check(watching.execute_script("return window.__same_page === true"), "without a reload")
    checks.screenshot(watching, os.path.join(artifacts, "player-followed.png"))
    for driver in (pressing, watching):
        errors = headless_chromium.console_errors(driver)
        check(not errors, f"no console errors ({errors})")
finally:
    pressing.quit()
    watching.quit()
checks.finish()
