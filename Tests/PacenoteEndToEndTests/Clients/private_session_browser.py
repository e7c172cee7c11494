#!/usr/bin/env python3
"""The dashboard's private-session switch in a real browser (Debian's headless Chromium,
Selenium, offline): logs in with the key, picks "1 hour" on the dashboard's Private session
card and turns it on; the card says until when, and the API agrees; a listen sent meanwhile is
hidden and the Rules page's "Show again" shows it; then "Turn off" on the dashboard.

Usage: private_session_browser.py BASE_URL API_KEY
Prints one JSON object (what was checked); exits 1 with the failures on stderr."""
import json
import sys
import time
import urllib.request

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

base, key = sys.argv[1].rstrip("/"), sys.argv[2]
checks = headless_chromium.Checks()
check = checks.check
driver = headless_chromium.start()


def css(selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def api(path, method="GET", body=None):
    request = urllib.request.Request(base + path, method=method, data=body and json.dumps(body).encode(),
                                     headers={"Authorization": "Token " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.load(r)


try:
    driver.get(base + "/login?next=/")
    css("#key")[0].send_keys(key)
    css("form button[type=submit]")[0].click()
    headless_chromium.wait_for(lambda: css("#private-session"))
    card = css("#private-session")
    check(len(card) == 1 and card[0].get_attribute("data-private-session") == "off", "the dashboard's card says off")
    Select(css("#private-minutes")[0]).select_by_visible_text("1 hour")
    css("#private-session form button[type=submit]")[0].click()
    check(headless_chromium.wait_for(lambda: css("#private-session")[0].get_attribute("data-private-session") == "on", 10),
          "after Turn on the card says on")
    text = css("#private-session")[0].text
    check("On until" in text and "Turn off" in text, f"it says until when, with Turn off: {text!r}")
    state = api("/api/v1/private-session")
    check(state["on"] is True and 3500 <= (state["seconds_left"] or 0) <= 3600, f"the API agrees, an hour: {state}")

    # Begun now, in the session (a listen that ended before it began would not be covered).
    at = int(time.time()) + 1
    api("/1/submit-listens", "POST", {"listen_type": "single", "payload": [
        {"listened_at": at, "track_metadata": {"artist_name": "Browser", "track_name": "Played In Private"}}]})
    hidden = api("/api/v1/listens?hidden=true")["listens"]
    check([h["track"]["title"] for h in hidden] == ["Played In Private"], f"a listen meanwhile is hidden: {hidden}")
    driver.get(base + "/rules")
    buttons = [b for b in css("button[value=unhide]") if b.text == "Show again"]
    check(len(buttons) == 1, "the Rules page offers to show it again")
    if buttons:
        buttons[0].click()
        check(headless_chromium.wait_for(lambda: "Shown again" in driver.page_source, 10), "Show again answers")
    listens = api("/api/v1/listens")["listens"]
    check([entry["track"]["title"] for entry in listens] == ["Played In Private"], f"it counts now: {listens}")

    driver.get(base + "/")
    off = [b for b in css("#private-session button[type=submit]") if b.text == "Turn off"]
    check(len(off) == 1, "the card offers Turn off")
    if off:
        off[0].click()
        check(headless_chromium.wait_for(lambda: css("#private-session")[0].get_attribute("data-private-session") == "off", 10),
              "after Turn off the card says off")
    check(api("/api/v1/private-session")["on"] is False, "and the API agrees")
finally:
    driver.quit()
checks.finish()
