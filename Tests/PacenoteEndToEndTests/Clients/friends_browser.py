#!/usr/bin/env python3
"""A friend's song of the day in a real browser (Debian's headless Chromium, Selenium,
offline), on the dashboard of a Pacenote that follows another.

up: the dashboard's "Friends today" shows FRIEND's song TITLE, linking to LINK (their share
page, which opens), with the copied cover; then, logged in with the key, /friends follows
the same friend again by the address of a share page (SHARE), which is read at once.
down: with the friend's server stopped, the dashboard still shows the song, and /friends
says the feed could not be read.

Usage: friends_browser.py up BASE_URL API_KEY ARTIFACTS_DIR FRIEND TITLE LINK SHARE
       friends_browser.py down BASE_URL API_KEY ARTIFACTS_DIR FRIEND TITLE LINK
Prints one JSON object (what was checked, the screenshots); exits 1 with the failures on stderr."""
import json
import os
import sys
import time

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

phase, base, key, artifacts, friend, title, link = sys.argv[1:8]
share = sys.argv[8] if len(sys.argv) > 8 else None
base = base.rstrip("/")
os.makedirs(artifacts, exist_ok=True)
failures, checked, screenshots = [], [], []


def check(condition, message):
    checked.append(message)
    if not condition:
        failures.append(message)


driver = headless_chromium.start()


def css(selector, within=None):
    return (within or driver).find_elements(By.CSS_SELECTOR, selector)


def wait_for(condition, seconds=10, reload=False):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if condition():
                return True
        except Exception:  # the page was replaced while it was read
            pass
        time.sleep(0.3)
        if reload:
            driver.refresh()
    return condition()


def screenshot(name):
    saved = driver.save_screenshot(os.path.join(artifacts, f"{name}.png"))
    check(saved, f"screenshot {name}.png saved")
    if saved:
        screenshots.append(name + ".png")


def friend_items(selector):
    """The list items of `selector` whose friend name is FRIEND."""
    return [li for li in css(selector) if any(name(n) == friend for n in css(".friend-name", li))]


def name(element):
    """An element's text as written (the page shows names in capitals, through CSS)."""
    return (element.get_attribute("textContent") or "").strip()


def song_link(li):
    found = css("a[data-friend-link]", li)
    return found[0] if found else None


def shows_song(selector):
    items = friend_items(selector)
    return bool(items) and song_link(items[0]) is not None and song_link(items[0]).text == title


try:
    driver.get(base + "/")
    check(wait_for(lambda: shows_song(".friends-today li"), reload=True), f"the dashboard shows {friend}'s song ({title})")
    item = friend_items(".friends-today li")[0]
    anchor = song_link(item)
    check(anchor.get_attribute("href") == link, f"it links to the friend's share page ({anchor.get_attribute('href')})")
    cover = css("img", item)[0]
    loaded = driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", cover)
    check(loaded and "/friends/covers/" in cover.get_attribute("src"), f"the copied cover shows ({cover.get_attribute('src')})")
    check("today" in item.text.lower(), f"it is today's song ({item.text!r})")
    screenshot("dashboard-friend" if phase == "up" else "dashboard-friend-down")

    if phase == "up":
        # The link opens the friend's own share page.
        driver.get(link)
        check(title.split(" — ")[0] in (driver.find_element(By.CSS_SELECTOR, "h1").text), f"the share page opens ({driver.title!r})")

        # Follow the same friend by a share page's address: the feed is found and read at once.
        driver.get(base + "/login?next=/friends")
        css("#key")[0].send_keys(key)
        css("form button[type=submit]")[0].click()
        check(wait_for(lambda: driver.current_url.split("?")[0].endswith("/friends")), f"logged in, on /friends ({driver.current_url})")
        css("#friend-name")[0].send_keys("By the share page")
        css("#friend-url")[0].send_keys(share)
        css("#friend-url")[0].submit()
        check(wait_for(lambda: "Following By the share page" in (css(".notice")[0].text if css(".notice") else "")),
              "the form says the friend is followed")
        driver.get(base + "/friends")  # a GET to reload (reloading the form's answer would post it again)

        def by_share_page():
            for li in css("li.friend"):
                if any(name(n) == "By the share page" for n in css(".friend-name", li)):
                    return song_link(li) is not None and song_link(li).text == title
            return False
        check(wait_for(by_share_page, seconds=15, reload=True), "a friend followed by a share page's address shows the song")
        screenshot("friends")
    else:
        driver.get(base + "/friends")
        items = friend_items("li.friend")
        check(bool(items) and song_link(items[0]) is not None and song_link(items[0]).text == title,
              "/friends still shows the last song seen")
        errors = css("[data-friend-error]", items[0]) if items else []
        check(bool(errors) and "could not be read" in errors[0].text, f"/friends says the feed could not be read ({errors[0].text if errors else None!r})")
        screenshot("friends-down")

    console = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE" and "favicon" not in e.get("message", "")]
    check(not console, f"no console errors ({console})")
except Exception as error:  # noqa: BLE001 — reported with what was checked so far
    failures.append(f"stopped at {driver.current_url}: {error!r}")
finally:
    driver.quit()

print(json.dumps({"checked": len(checked), "screenshots": screenshots}))
if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
