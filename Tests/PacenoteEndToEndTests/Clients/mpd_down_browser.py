#!/usr/bin/env python3
"""The dashboard when MPD goes away, in Debian's headless Chromium (Selenium, offline): opened
while MPD plays (no notice), the test stops MPD and the live page says so — the address, the
reason, "MPD is not reachable", "Not connected" — at 1280 px; then the page made again at 360 px
with the notice inside the window and readable; the test starts MPD and the notice goes.

The test and this script take turns through files in STEPS_DIR: this one writes `opened` and
`seen-down`, the test writes `stopped` and `started`.

Usage: mpd_down_browser.py BASE_URL ARTIFACTS_DIR STEPS_DIR MPD_PORT
Prints one JSON object (what was checked, the screenshots saved); exits 1 with the failures on stderr."""
import os
import sys

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads

base, artifacts, steps, port = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check
steps_ = headless_chromium.Steps(steps)
mark, wait_step = steps_.mark, steps_.wait
element, console_errors = headless_chromium.element, headless_chromium.console_errors


driver = headless_chromium.start()
try:
    driver.get(base + "/")
    check(not element(driver, "[data-mpd-down]").is_displayed(), "no MPD notice while MPD answers")
    check(headless_chromium.wait_for(lambda: element(driver, "[data-live-status]").get_attribute("data-state") == "on", 15),
          "the page follows the event stream")
    mark("opened")
    check(wait_step("stopped"), "the test stopped MPD")

    # Live: the stream's `player` event, without a reload.
    check(headless_chromium.wait_for(lambda: element(driver, "[data-mpd-down]").is_displayed(), 20),
          "the live page shows that MPD is not reachable")
    text = element(driver, "[data-mpd-down]").text
    check(f"MPD at 127.0.0.1:{port} is not reachable: " in text, f"the notice names MPD and the reason: {text!r}")
    check("pacenote doctor" in text, f"the notice says what to check: {text!r}")
    title = element(driver, "[data-np-title]").text
    check(title == "MPD is not reachable", f"the title says MPD is not reachable, not {title!r}")
    state = element(driver, "[data-np-state]").text
    check(state == "Not connected", f"the state says Not connected, not {state!r}")
    check(not console_errors(driver), f"no console error at 1280 px: {console_errors(driver)}")
    checks.screenshot(driver, os.path.join(artifacts, "mpd-down-desktop.png"))

    # A phone: the page as the server makes it while MPD is down.
    driver.set_window_size(360, 780)
    driver.get(base + "/")
    notice = element(driver, "[data-mpd-down]")
    check(notice.is_displayed(), "the page made while MPD is down shows the notice at 360 px")
    rect = notice.rect
    check(rect["x"] >= 0 and rect["x"] + rect["width"] <= 360, f"the notice fits the 360 px window: {rect}")
    sizes = driver.execute_script(
        "return [...document.querySelectorAll('[data-mpd-down] p')].map(p => parseFloat(getComputedStyle(p).fontSize))")
    check(sizes and min(sizes) >= 10, f"the notice's text is at least 10 px: {sizes}")
    check("is not reachable: " in notice.text, f"the notice at 360 px gives the reason: {notice.text!r}")
    check(not console_errors(driver), f"no console error at 360 px: {console_errors(driver)}")
    checks.screenshot(driver, os.path.join(artifacts, "mpd-down-phone.png"))
    check(headless_chromium.wait_for(lambda: element(driver, "[data-live-status]").get_attribute("data-state") == "on", 15),
          "the phone page follows the event stream")
    mark("seen-down")

    # MPD back: the notice goes by itself.
    check(wait_step("started"), "the test started MPD again")
    check(headless_chromium.wait_for(lambda: not element(driver, "[data-mpd-down]").is_displayed(), 30),
          "the notice goes when MPD is back")
    title = element(driver, "[data-np-title]").text
    check(title == "Nothing is playing", f"with MPD back and stopped: {title!r}")
finally:
    driver.quit()
checks.finish()
