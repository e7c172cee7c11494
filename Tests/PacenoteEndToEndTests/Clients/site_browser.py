#!/usr/bin/env python3
"""Opens every page of a running Pacenote in Debian's headless Chromium (Selenium, offline),
checks what it shows, that the browser logged no console error, that hostile tag text stays
text, that nothing overflows a 360 px phone, and that the dashboard follows MPD live when
`mpc next` runs. Saves a desktop and a phone screenshot of each page and names them in its
output ("screenshots"); the caller clears ARTIFACTS_DIR first and checks the files.

With --reconnect it checks instead that the dashboard reconnects by itself: it opens the
dashboard, creates ARTIFACTS_DIR/ready, waits for ARTIFACTS_DIR/restarted (the test restarts
the server meanwhile), then expects live updates again after `mpc next`.

Usage: site_browser.py [--reconnect] BASE_URL MPD_PORT ARTIFACTS_DIR SPEC_JSON
SPEC_JSON: {"day", "track_id", "workout_id", "album_id", "hostile_title", "hostile_artist",
            "playing", "next_title"}
Prints one JSON object (what was checked); exits 1 with the failures on stderr."""
import json
import os
import subprocess
import sys
import time

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.common.exceptions import NoAlertPresentException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

args = sys.argv[1:]
reconnect = args[0] == "--reconnect"
if reconnect:
    args = args[1:]
base, mpd_port, artifacts, spec = args[0].rstrip("/"), args[1], args[2], json.loads(args[3])
os.makedirs(artifacts, exist_ok=True)
failures = []
checked = []


def check(condition, message):
    checked.append(message)
    if not condition:
        failures.append(message)


driver = headless_chromium.start()


def text(selector):
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0].text if found else None


def console_errors():
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


screenshots = []


def screenshot(name):
    """Saves ARTIFACTS_DIR/NAME.png; a failed save (Selenium returns False) is a failure."""
    saved = driver.save_screenshot(os.path.join(artifacts, f"{name}.png"))
    check(saved, f"screenshot {name}.png saved")
    if saved:
        screenshots.append(name + ".png")


def no_alert():
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def wait_for(condition, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline and not condition():
        time.sleep(0.1)
    return condition()


def hold(expectations):
    """Whether a page's expectations all hold now; an exception (the page still filling in) is a no."""
    try:
        return all(ok for ok, _ in expectations())
    except Exception:  # noqa: BLE001 — checked, and reported, below
        return False


def body_background():
    return driver.execute_script("return getComputedStyle(document.body).backgroundColor")


def live_status():
    return text("[data-live-status]")


if reconnect:
    try:
        driver.get(base + "/")
        check(wait_for(lambda: live_status() == "live", 10), "dashboard connected")
        before = text("[data-np-title]")
        open(os.path.join(artifacts, "ready"), "w").close()
        check(wait_for(lambda: os.path.exists(os.path.join(artifacts, "restarted")), 40), "the server was restarted")
        check(wait_for(lambda: live_status() == "live", 40), "the dashboard reconnected by itself")
        subprocess.run(["mpc", "-h", "127.0.0.1", "-p", mpd_port, "next"], check=True, stdout=subprocess.DEVNULL)
        check(wait_for(lambda: text("[data-np-title]") not in (before, None), 10),
              f"live updates again after the restart ({before!r} -> {text('[data-np-title]')!r})")
    finally:
        driver.quit()
    print(json.dumps({"checked": len(checked), "failures": failures}))
    if failures:
        print("\n".join(failures), file=sys.stderr)
    sys.exit(1 if failures else 0)

hostile, artist = spec["hostile_title"], spec["hostile_artist"]
pages = [
    ("dashboard", "/", lambda: [
        (text("[data-np-title]") == spec["playing"], f"dashboard shows {spec['playing']!r} playing"),
        (hostile in driver.find_element(By.CSS_SELECTOR, "[data-today]").text, "today's plays list the hostile title as text"),
        (text("#hr-h") == "Heart rate" and text("[data-hr-bpm]") not in (None, "–"), "dashboard shows the heart rate"),
        (text(".sotd-link strong") is not None, "dashboard shows the song of the day"),
        ((text("[data-next]") or "").startswith(f"{spec['suggested']} — Band"), "up next suggests the one song neither played, playing nor queued"),
        ("play" in driver.execute_script("const r = document.querySelectorAll('svg.chart.bars rect'); return r.length == 7 ? r[6].textContent : ''"),
         "this week has 7 bars, today's with its plays"),
    ]),
    ("history", "/history", lambda: [
        (hostile in text("main"), "history lists the hostile title"),
        (len(driver.find_elements(By.CSS_SELECTOR, ".day h2")) >= 1, "history has day headers"),
    ]),
    ("history-search", "/history?q=second", lambda: [
        ("Second Song" in text("main") and hostile not in text("main"), "history search finds only matches"),
    ]),
    ("stats", "/stats?range=week", lambda: [
        (text("h1") == "Stats", "stats page"),
        (len(driver.find_elements(By.CSS_SELECTOR, "svg.heatmap rect.heat")) >= 365, "calendar heatmap has a cell per day"),
        (len(driver.find_elements(By.CSS_SELECTOR, "svg.clock path")) == 24, "listening clock has 24 hours"),
        (hostile in text("main"), "top tracks show the hostile title as text"),
    ]),
    ("sotd-archive", "/sotd", lambda: [
        (len(driver.find_elements(By.CSS_SELECTOR, "ol.calendar li.day a img")) >= 1, "the archive shows this month's song"),
    ]),
    ("sotd-share", f"/sotd/{spec['day']}", lambda: [
        (text("h1.sotd-title") == hostile, "share page title is the hostile title, as text"),
        (text(".sotd-artist") == artist, "share page artist as text"),
        (text("blockquote.note") == "<script>alert(3)</script> for friends", "the pin's note as text"),
        (driver.find_element(By.CSS_SELECTOR, 'meta[property="og:title"]').get_attribute("content") == f"{hostile} — {artist}",
         "og:title carries the exact text"),
        (driver.find_element(By.CSS_SELECTOR, 'meta[property="og:image"]').get_attribute("content").endswith(f"/sotd/{spec['day']}/cover.png?v={spec['cover_version']}"),
         "og:image points at the day's cover (the PNG address previews get)"),
        (driver.execute_script("const i = document.querySelector('img.cover.large'); return i.complete && i.naturalWidth") == 240,
         "share page cover is the album's picture from MPD's albumart (240 px wide)"),
    ]),
    ("sotd-preview-image", f"/sotd/{spec['day']}/cover.png?v={spec['cover_version']}", lambda: [
        (driver.execute_script("return document.images.length === 1 && document.images[0].naturalWidth") == 240,
         "the preview's image is the album's picture from MPD too"),
    ]),
    ("workouts", "/workouts", lambda: [
        (len(driver.find_elements(By.CSS_SELECTOR, "ol.workouts a")) >= 1, "workouts are listed"),
        ("Power songs" in text("main"), "power songs section"),
        (len(driver.find_elements(By.CSS_SELECTOR, "[data-training-load] svg.daylines polyline.line.fitness")) == 1,
         "the training-load chart draws fitness"),
        (len(driver.find_elements(By.CSS_SELECTOR, "[data-training-load] svg.daylines rect.load")) >= 1,
         "the training-load chart has the workout's load as a bar"),
        ("Resting heart-rate variability" in text("main"), "resting HRV section"),
    ]),
    ("workout", f"/workouts/{spec['workout_id']}", lambda: [
        (len(driver.find_elements(By.CSS_SELECTOR, "svg.hrchart polyline.hr")) == 1, "heart-rate curve drawn"),
        (len(driver.find_elements(By.CSS_SELECTOR, "svg.hrchart rect.band")) >= 2, "zone bands drawn"),
        (len(driver.find_elements(By.CSS_SELECTOR, "svg.hrchart line.song")) >= 1, "a marker where a song began"),
        (len(driver.find_elements(By.CSS_SELECTOR, "svg.rows rect")) == 6, "time-in-zone bars"),
        (hostile in text("table.songs"), "the workout's songs in order"),
    ]),
    ("track", f"/tracks/{spec['track_id']}", lambda: [
        (text("h1") == hostile, "track page title"),
        ("Plays over time" in text("main"), "plays over time"),
    ]),
    # The old address by name: the browser follows the redirect to the artist's own page.
    ("artist", "/artist?name=Band", lambda: [
        (text("h1") == "Band", "artist page"),
        ("/artists/" in driver.current_url, "the name's address redirects to the artist's id"),
        ("Second Song" in text("main"), "artist's tracks"),
        ("Other" in text("main"), "artist's albums"),
    ]),
    ("album", f"/albums/{spec['album_id']}", lambda: [
        (text("h1") == "Album One", "album page"),
        (text("main .np p") == artist, "album artist as text"),
        (hostile in text("main"), "the album's tracks, hostile title as text"),
        (driver.execute_script("const i = document.querySelector('img.cover'); return i.complete && i.naturalWidth") == 240,
         "album page cover is the album's picture from MPD"),
    ]),
]

try:
    for width, height, label in [(1280, 900, "desktop"), (360, 780, "phone")]:
        driver.set_window_size(width, height)
        for name, path, expectations in pages:
            driver.get(base + path)
            # A moment for the page's own scripts: no alert, no injected element and no console
            # error are absences, with nothing to wait on.
            time.sleep(0.3)
            check(no_alert(), f"{name} ({label}): no script ran from tag text")
            check(driver.execute_script("return document.querySelectorAll('img[src=\"x\"], script:not([src])').length") == 0,
                  f"{name} ({label}): no injected element")
            if label == "desktop":
                # What the page's scripts fill in after it loads (up next while the recommender
                # builds) is waited for.
                wait_for(lambda: hold(expectations), 5)
                for ok, message in expectations():
                    check(ok, f"{name}: {message}")
            else:
                overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
                check(overflow <= 1, f"{name} (phone): nothing wider than the screen (overflow {overflow} px)")
            errors = console_errors()
            check(not errors, f"{name} ({label}): no console errors {errors}")
            screenshot(f"{name}-{label}")

    # Live: the dashboard follows MPD without a reload.
    driver.set_window_size(1280, 900)
    driver.get(base + "/")
    deadline = time.time() + 10
    while time.time() < deadline and driver.find_element(By.CSS_SELECTOR, "[data-live-status]").text != "live":
        time.sleep(0.1)
    check(driver.find_element(By.CSS_SELECTOR, "[data-live-status]").text == "live", "dashboard connected to the event stream")
    driver.execute_script("document.body.dataset.reloadMarker = 'same-page';"
                          "const li = document.querySelector('[data-next] li'); if (li) li.dataset.old = '1';")
    before = len(driver.find_elements(By.CSS_SELECTOR, "[data-today] li"))
    subprocess.run(["mpc", "-h", "127.0.0.1", "-p", mpd_port, "next"], check=True, stdout=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline and text("[data-np-title]") != spec["next_title"]:
        time.sleep(0.1)
    check(text("[data-np-title]") == spec["next_title"], f"now playing became {spec['next_title']!r} live (was {spec['playing']!r})")
    while time.time() < deadline and len(driver.find_elements(By.CSS_SELECTOR, "[data-today] li")) == before:
        time.sleep(0.1)
    first = driver.find_elements(By.CSS_SELECTOR, "[data-today] li")
    check(len(first) == before + 1 and spec["playing"] in first[0].text and "skipped" in first[0].text,
          "the skipped song was added to today's plays live")
    check(wait_for(lambda: driver.execute_script("const li = document.querySelector('[data-next] li'); return !!li && !li.dataset.old"), 10),
          "the suggestion was asked again when the song changed")
    check((text("[data-next]") or "").startswith(f"{spec['suggested']} — Band"), "and still names a song neither played, playing nor queued")
    check(driver.execute_script("return document.body.dataset.reloadMarker") == "same-page", "without reloading the page")
    check(not console_errors(), "no console errors while live")
    screenshot("dashboard-live-desktop")

    # Dark mode: the same pages with the system's dark colour scheme.
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    for name, path in [("dashboard", "/"), ("workout", f"/workouts/{spec['workout_id']}"), ("stats", "/stats?range=week")]:
        driver.get(base + path)
        wait_for(lambda: body_background() == "rgb(21, 20, 19)", 5)
        background = body_background()
        check(background == "rgb(21, 20, 19)", f"{name}: dark background in dark mode ({background})")
        screenshot(f"{name}-dark-desktop")
finally:
    driver.quit()

print(json.dumps({"checked": len(checked), "failures": failures, "screenshots": screenshots}))
if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
