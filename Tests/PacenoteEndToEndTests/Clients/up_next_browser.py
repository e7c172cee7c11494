#!/usr/bin/env python3
"""The dashboard's "Up next" with nothing to suggest, in Debian's headless Chromium (Selenium,
offline): the reason and its fix (commands set as code) at 1280 px as the server made them;
then the reason blanked here, and the test changes the zone: the live script asks again and
writes the reason back itself; the page at 360 px with the reason inside the window; the
test crops MPD's queue and suggestions come without a reload.

The test and this script take turns through files in STEPS_DIR: this one writes `blanked`
(the test changes the zone) and `seen`, the test `cropped`.

Usage: up_next_browser.py BASE_URL ARTIFACTS_DIR STEPS_DIR CODE
Prints one JSON object (what was checked, the screenshots saved); exits 1 with the failures on stderr."""
import os
import sys

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, artifacts, steps, code = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check
steps_ = headless_chromium.Steps(steps)
mark, wait_step = steps_.mark, steps_.wait
element, console_errors = headless_chromium.element, headless_chromium.console_errors


def reason_shown(driver):
    why = element(driver, "[data-next-why]")
    fix = element(driver, "[data-next-fix]")
    codes = [c.text for c in fix.find_elements(By.CSS_SELECTOR, "code")]
    return (element(driver, "[data-next-empty]").is_displayed() and why.get_attribute("data-next-why") == code
            and "queue" in why.text and "mpc crop" in codes)


driver = headless_chromium.start()
try:
    driver.get(base + "/")
    check(reason_shown(driver), f"the page says why Up next is empty ({code}) and how to fix it: "
          f"{element(driver, '[data-next-empty]').text!r}")
    check(not driver.find_elements(By.CSS_SELECTOR, "[data-next] li"), "no suggestion is listed")
    check(headless_chromium.wait_for(lambda: element(driver, "[data-live-status]").get_attribute("data-state") == "on", 15),
          "the page follows the event stream")
    driver.execute_script("document.querySelector('[data-next-why]').textContent = '';"
                          "document.querySelector('[data-next-why]').dataset.nextWhy = '';"
                          "document.querySelector('[data-next-fix]').textContent = '';")
    mark("blanked")
    check(headless_chromium.wait_for(lambda: reason_shown(driver), 30),
          f"the live script writes the reason and its fix back: {element(driver, '[data-next-empty]').text!r}")
    check(not console_errors(driver), f"no console error at 1280 px: {console_errors(driver)}")
    checks.screenshot(driver, os.path.join(artifacts, "up-next-empty-desktop.png"))

    driver.set_window_size(360, 780)
    driver.get(base + "/")
    check(reason_shown(driver), "the reason at 360 px")
    empty = element(driver, "[data-next-empty]")
    driver.execute_script("arguments[0].scrollIntoView()", empty)
    rect = empty.rect
    check(rect["x"] >= 0 and rect["x"] + rect["width"] <= 360, f"the reason fits the 360 px window: {rect}")
    sizes = driver.execute_script(
        "return [...document.querySelectorAll('[data-next-empty] p')].map(p => parseFloat(getComputedStyle(p).fontSize))")
    check(sizes and min(sizes) >= 10, f"the reason's text is at least 10 px: {sizes}")
    check(not console_errors(driver), f"no console error at 360 px: {console_errors(driver)}")
    checks.screenshot(driver, os.path.join(artifacts, "up-next-empty-phone.png"))

    # The fix made outside the page (`mpc crop`): the empty list is asked again by itself.
    mark("seen")
    check(wait_step("cropped"), "the test cropped MPD's queue")
    check(headless_chromium.wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "[data-next] li")) > 0
                                     and not element(driver, "[data-next-empty]").is_displayed(), 30),
          f"suggestions come without a reload once the queue is cropped: {element(driver, '[data-next]').text!r}")
finally:
    driver.quit()
checks.finish()
