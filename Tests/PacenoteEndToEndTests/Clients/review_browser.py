#!/usr/bin/env python3
"""The year in review in Debian's headless Chromium (Selenium, offline), against a running
Pacenote that trusts no network: the owner logs in, opens the review at 1280 px and 360 px
(no console error, nothing wider than the phone, the heart-rate part there), publishes it
with the form's defaults (heart rate unticked); then a stranger — a fresh browser without
the owner's cookie, and plain HTTP — opens the public page and its PNG card and finds no
heart-rate figure in either; the owner withdraws it and the page and card are 404.

Usage: review_browser.py BASE_URL ARTIFACTS_DIR SPEC_JSON
SPEC_JSON: {"key", "year"}
Prints one JSON object (what was checked, the screenshots saved); exits 1 with the failures on stderr."""
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, artifacts, spec = sys.argv[1].rstrip("/"), sys.argv[2], json.loads(sys.argv[3])
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
failures, checked, screenshots, check = checks.failures, checks.checked, checks.screenshots, checks.check
# What would give heart rate away: the section, its words and its units.
HEART_WORDS = ["heart_rate", "Heart rate", "heart rate:", "bpm", "workout", "Workout", "training", "Power song", "power song",
               "zone", "Zone"]


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def screenshot(driver, name):
    saved = driver.save_screenshot(os.path.join(artifacts, f"{name}.png"))
    check(saved, f"screenshot {name}.png saved")
    if saved:
        screenshots.append(name + ".png")


def full_height(driver, width):
    height = driver.execute_script("return Math.max(document.body.scrollHeight, 600)")
    driver.set_window_size(width, min(height + 40, 12000))


def wait_for(condition, seconds=10):
    return headless_chromium.wait_for(condition, seconds)


def fetch(path):
    """GET as a stranger: no cookie, no key."""
    try:
        with urllib.request.urlopen(base + path, timeout=20) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def png_text(data):
    out, i = {}, 8
    while i + 8 <= len(data):
        length = int.from_bytes(data[i:i + 4], "big")
        kind = data[i + 4:i + 8]
        if kind == b"tEXt":
            key, _, value = data[i + 8:i + 8 + length].partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        i += 12 + length
    return out


owner = headless_chromium.start()
try:
    # Logged in with the key: the review is private.
    owner.get(base + f"/review/{spec['year']}")
    check("/login" in owner.current_url, "the review asks a visitor to log in")
    owner.find_element(By.ID, "key").send_keys(spec["key"])
    owner.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_for(lambda: "/login" not in owner.current_url)
    check(f"/review/{spec['year']}" in owner.current_url, "after logging in, back at the review")
    for size, width in [("desktop", 1280), ("phone", 360)]:
        owner.set_window_size(width, 900)
        owner.get(base + f"/review/{spec['year']}")
        check(owner.find_elements(By.CSS_SELECTOR, "[data-review-section=totals]"), f"{size}: the totals")
        check(owner.find_elements(By.CSS_SELECTOR, "[data-review-section=heart_rate]"), f"{size}: the heart-rate part, privately")
        check(owner.find_elements(By.CSS_SELECTOR, "[data-review-section=discoveries]"), f"{size}: the discoveries")
        check(owner.find_elements(By.CSS_SELECTOR, ".mini-calendar li.song"), f"{size}: the songs of the day as a calendar")
        wide = owner.execute_script("return document.documentElement.scrollWidth")
        check(wide <= width, f"{size}: nothing wider than the window ({wide} px in {width})")
        check(not console_errors(owner), f"{size}: no console error on the review")
        full_height(owner, width)
        screenshot(owner, f"review-{size}")
    owner.set_window_size(1280, 900)
    owner.get(base + f"/review/{spec['year']}")
    boxes = {b.get_attribute("value"): b.is_selected() for b in owner.find_elements(By.CSS_SELECTOR, "form.publish input[name=show]")}
    check(boxes.get("heart_rate") is False, f"heart rate is unticked by default ({boxes})")
    check(boxes.get("totals") is True and boxes.get("top_tracks") is True, "the rest is ticked")
    owner.find_element(By.CSS_SELECTOR, "[data-publish]").click()
    wait_for(lambda: owner.find_elements(By.CSS_SELECTOR, "[data-share-token] a"))
    links = owner.find_elements(By.CSS_SELECTOR, "[data-share-token] a")
    check(len(links) == 1, "published: the page shows the share's address")
    share = links[0].get_attribute("href") if links else base + "/review/shared/missing"
    path = share[len(base):] if share.startswith(base) else "/" + share.split("/", 3)[-1]

    # A stranger: a browser of their own, and plain HTTP.
    stranger = headless_chromium.start()
    try:
        for size, width in [("desktop", 1280), ("phone", 360)]:
            stranger.set_window_size(width, 900)
            stranger.get(base + path)
            body = stranger.find_element(By.TAG_NAME, "body").text
            check("in music" in stranger.title, f"{size}: the share page opens for a stranger ({stranger.title})")
            check(not stranger.find_elements(By.CSS_SELECTOR, "[data-review-section=heart_rate]"), f"{size}: no heart-rate part")
            for word in HEART_WORDS:
                check(word not in body, f"{size}: the public page does not say {word!r}")
            check(not stranger.find_elements(By.CSS_SELECTOR, "header nav"), f"{size}: no way into the private pages")
            check(not stranger.find_elements(By.CSS_SELECTOR, "a[href*='/tracks/'], a[href*='/workouts/']"),
                  f"{size}: no link to a private page")
            wide = stranger.execute_script("return document.documentElement.scrollWidth")
            check(wide <= width, f"{size}: the share page fits ({wide} px in {width})")
            check(not console_errors(stranger), f"{size}: no console error on the share page")
            full_height(stranger, width)
            screenshot(stranger, f"review-shared-{size}")
        image = stranger.find_elements(By.CSS_SELECTOR, "meta[property='og:image']")
        card_url = image[0].get_attribute("content") if image else ""
        check(card_url.endswith(path + "/card.png"), f"og:image is the card ({card_url})")
        status, headers, page = fetch(path)
        check(status == 200, "the share page over plain HTTP")
        html = page.decode("utf-8")
        for word in ["data-review-section=\"heart_rate\"", "bpm", "workout", "Power song", "training"]:
            check(word not in html, f"the public page's HTML does not hold {word!r}")
        status, headers, card = fetch(path + "/card.png")
        check(status == 200 and headers.get("Content-Type") == "image/png", "the card is a PNG")
        check(card[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(card[16:20], "big") == 1200
              and int.from_bytes(card[20:24], "big") == 630, "the card is 1200 x 630")
        text = png_text(card).get("Description", "")
        check("plays" in text, f"the card's text has the totals ({text!r})")
        for word in ["bpm", "workout", "training", "Power song", "zone"]:
            check(word not in text, f"the card does not say {word!r}")
        with open(os.path.join(artifacts, "review-card.png"), "wb") as f:
            f.write(card)
        screenshots.append("review-card.png")

        # Withdrawn: gone for the stranger at once.
        owner.get(base + f"/review/{spec['year']}")
        owner.find_element(By.CSS_SELECTOR, "[data-withdraw]").click()
        check(wait_for(lambda: not owner.find_elements(By.CSS_SELECTOR, "[data-share-token]")), "withdrawn: the share is no longer listed")
        check(fetch(path)[0] == 404, "withdrawn: the page is 404")
        check(fetch(path + "/card.png")[0] == 404, "withdrawn: the card is 404")
        stranger.get(base + path)
        check("Not found" in stranger.title, f"withdrawn: the stranger's browser gets the not-found page ({stranger.title})")
    finally:
        stranger.quit()
finally:
    owner.quit()

checks.finish()
