#!/usr/bin/env python3
"""Corrections in a real browser (Debian's headless Chromium, Selenium, offline): logs in
with the key, deletes a play from the history page and undoes it from the notice, edits a
play's title, then merges a suggested duplicate from the corrections page and undoes it from
the log. Saves screenshots into ARTIFACTS_DIR and names them in its output.

Usage: curation_browser.py BASE_URL API_KEY ARTIFACTS_DIR
Prints one JSON object (what was checked); exits 1 with the failures on stderr."""
import json
import os
import sys
import time

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, key, artifacts = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
failures, checked, screenshots, check = checks.failures, checks.checked, checks.screenshots, checks.check


driver = headless_chromium.start()


def css(selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def text(selector):
    found = css(selector)
    return found[0].text if found else None


def plays():
    return len(css("ol.plays > li"))


def wait_for(condition, seconds=5):
    return headless_chromium.wait_for(condition, seconds)


def screenshot(name):
    saved = driver.save_screenshot(os.path.join(artifacts, f"{name}.png"))
    check(saved, f"screenshot {name}.png saved")
    if saved:
        screenshots.append(name + ".png")


try:
    driver.get(base + "/login?next=/history")
    css("#key")[0].send_keys(key)
    css("form button[type=submit]")[0].click()
    # The click's navigation is asynchronous: on a busy machine the URL is still the login's.
    wait_for(lambda: driver.current_url.split("?")[0].endswith("/history"))
    url = driver.current_url
    check(url.split("?")[0].endswith("/history"), f"logged in, back on the history ({url})")
    before = plays()
    check(before >= 3, f"the history lists the plays ({before})")
    check(len(css("ol.plays form.inline button")) == before, "a delete button on every play")

    # Delete the newest play: one play fewer, and a notice with its undo.
    first_title = text("ol.plays > li .what a")
    css("ol.plays > li form.inline button")[0].click()
    check(wait_for(lambda: text("div.notice") and plays() == before - 1), f"one play fewer after the delete ({plays()} of {before})")
    notice = text("div.notice") or ""
    check(notice.startswith("Deleted the play of"), f"the notice says what was deleted ({notice!r})")
    screenshot("history-deleted")
    css("div.notice form button")[0].click()
    check(wait_for(lambda: (text("div.notice") or "").startswith("Undone:")), "the undo answered")
    check(plays() == before, f"the undo brings the play back ({plays()} of {before})")
    check((text("div.notice") or "").startswith("Undone:"), "the notice says it was undone")
    check(text("ol.plays > li .what a") == first_title, "the same play is first again")

    # Edit the newest play's title through its form.
    css("ol.plays > li details.edit summary")[0].click()
    title = css("ol.plays > li details.edit input[name=title]")[0]
    title.clear()
    title.send_keys("Corrected <Title>")
    css("ol.plays > li details.edit button[type=submit]")[0].click()
    wait_for(lambda: (text("div.notice") or "").startswith("Edited"))
    check(text("ol.plays > li .what a") == "Corrected <Title>", f"the play shows its new title ({text('ol.plays > li .what a')!r})")
    check((text("div.notice") or "").startswith("Edited the play"), "the notice says it was edited")

    # The corrections page: the duplicate spellings, merged in one click, then undone.
    driver.get(base + "/curation")
    suggestions = css("ul.suggestions li")
    check(any("Florence" in s.text for s in suggestions), "the two spellings are suggested")
    screenshot("curation")
    for s in suggestions:
        if "Florence" in s.text:
            s.find_element(By.CSS_SELECTOR, "button").click()
            break
    wait_for(lambda: (text("div.notice") or "").startswith("Merged"))
    check((text("div.notice") or "").startswith("Merged artist"), f"the merge is done ({text('div.notice')!r})")
    check(not any("Florence" in s.text for s in css("ul.suggestions li")), "no longer suggested once merged")
    log = [li.text for li in css("ol.curation-log li")]
    check(len(log) == 3 and "Merged artist" in log[0] and "undone" in log[2], f"the log lists the three changes, newest first ({log})")
    css("ol.curation-log li form button")[0].click()
    wait_for(lambda: (text("div.notice") or "").startswith("Undone"))
    check(any("Florence" in s.text for s in css("ul.suggestions li")), "suggested again after the undo")
    check("undone" in (css("ol.curation-log li")[0].get_attribute("class") or ""), "the merge is marked undone in the log")
    screenshot("curation-undone")
    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    check(not errors, f"no console errors ({errors})")
except Exception as error:  # noqa: BLE001 — reported with what was checked so far
    failures.append(f"stopped at {driver.current_url}: {error!r}")
finally:
    driver.quit()

checks.finish()
