#!/usr/bin/env python3
"""The player's queue, library and playlists in a real browser (Debian's headless Chromium,
Selenium, offline), issue 57: "Play next" on an album page puts the album's tracks right after
the song that plays (`mpc playlist` says so); /player shows the queue with the song that plays
marked and removes a song; /library browses artist -> album and searches (a found track
added to the queue); /playlists makes a smart playlist
that reaches MPD (`mpc lsplaylists`). No console error. Screenshots into ARTIFACTS_DIR.

Usage: queue_browser.py BASE_URL API_KEY MPD_PORT ALBUM_ID ARTIFACTS_DIR
Prints one JSON object (what was checked, the screenshots); exits 1 with the failures on stderr."""
import os
import subprocess
import sys
import time

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, key, port, album, artifacts = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check


def mpc(*args):
    return subprocess.run(["mpc", "--host", "127.0.0.1", "--port", port, *args], capture_output=True, text=True, check=True).stdout


def titles(*args):
    return [line for line in mpc("-f", "%title%", "playlist", *args).splitlines() if line]


def until(condition, seconds=5):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


driver = headless_chromium.start()


def css(selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


try:
    driver.get(base + "/login?next=/albums/" + album)
    css("#key")[0].send_keys(key)
    css("form button[type=submit]")[0].click()
    headless_chromium.wait_for(lambda: css("h1[data-album-id]"))
    check(titles() == ["Delta", "Bravo"], f"the queue before: Delta playing, Bravo next ({titles()})")
    # The album's own buttons (the first form: the track rows have compact ones).
    buttons = css("form.queue-buttons[data-queue-kind=album] button[value=next]")
    check(len(buttons) == 1, "the album page has Play next for the album")
    buttons[0].click()
    headless_chromium.wait_for(lambda: css("h1[data-album-id]"))
    expected = ["Delta", "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Bravo"]
    check(until(lambda: titles() == expected), f"the album went right after the song that plays ({titles()})")
    check(mpc("-f", "%title%", "current").strip() == "Delta", "the song that plays kept playing")

    # The player page: the queue, the song that plays marked, a song removed.
    driver.get(base + "/player")
    headless_chromium.wait_for(lambda: css("table.queue"))
    rows = css("table.queue tbody tr")
    check(len(rows) == 7, f"the player shows the queue's 7 songs ({len(rows)})")
    check(css("table.queue tr.current") and "Delta" in css("table.queue tr.current")[0].text, "the song that plays is marked")
    check("Z" in rows[1].text, f"each song's zone fit is shown ({rows[1].text!r})")
    checks.screenshot(driver, os.path.join(artifacts, "player-queue.png"))
    rows[-1].find_element(By.CSS_SELECTOR, "button[value=remove]").click()
    check(until(lambda: len(titles()) == 6 and titles()[-1] == "Echo"), f"Remove took the last song out ({titles()})")

    # The library: artists -> albums -> the album's tracks with their buttons.
    driver.get(base + "/library")
    links = css("ul.library-artists a")
    check(links and links[0].text == "Tempo", "the library lists the artist")
    links[0].click()
    headless_chromium.wait_for(lambda: css("ul.albums a"))
    css("ul.albums a")[0].click()
    headless_chromium.wait_for(lambda: css("table.library-tracks"))
    check(len(css("table.library-tracks tbody tr")) == 5, "the album's five tracks")
    check(len(css("table.library-tracks form.queue-buttons")) == 5, "each with its queue buttons")
    checks.screenshot(driver, os.path.join(artifacts, "library-album.png"))

    # The library's search (the site's full-text search: case folded, a word's start): artists,
    # albums and tracks; a found track's Add puts it at the end of the queue.
    driver.get(base + "/library")
    css("#library-q")[0].send_keys("TEMP")
    css("form[role=search] button[type=submit]")[0].click()
    headless_chromium.wait_for(lambda: "TEMP" in driver.title)
    check([a.text for a in css("ul.library-artists a")] == ["Tempo"], "the search finds the artist")
    check(len(css("table.library-found tbody tr")) == 5, "and the artist's five tracks")
    box = css("#library-q")[0]
    box.clear()
    box.send_keys("charl")
    css("form[role=search] button[type=submit]")[0].click()
    headless_chromium.wait_for(lambda: "charl" in driver.title)
    rows = css("table.library-found tbody tr")
    check(len(rows) == 1 and "Charlie" in rows[0].text and "Smart" in rows[0].text, f"one track found, with its album ({[r.text for r in rows]})")
    check(not css("ul.library-artists a") and "No artist matches." in driver.page_source, "no artist is called so")
    checks.screenshot(driver, os.path.join(artifacts, "library-search.png"))
    rows[0].find_element(By.CSS_SELECTOR, "button[value=end]").click()
    check(until(lambda: titles()[-1:] == ["Charlie"]), f"Add put the found track at the end of the queue ({titles()})")

    # A smart playlist made on /playlists reaches MPD.
    driver.get(base + "/playlists")
    css("[data-smart-form=smart]")[0].find_element(By.XPATH, "..").find_element(By.TAG_NAME, "summary").click()
    form = css("[data-smart-form=smart]")[0]
    form.find_element(By.NAME, "name").send_keys("Browser 125")
    form.find_element(By.NAME, "bpm_min").send_keys("124")
    form.find_element(By.NAME, "bpm_max").send_keys("126")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    headless_chromium.wait_for(lambda: css("[data-smart-kind=smart] li"))
    check("Browser 125" in css("[data-smart-kind=smart]")[0].text, "the page lists the new smart playlist")
    check(until(lambda: "Browser 125" in mpc("lsplaylists").splitlines()), "MPD has it (mpc lsplaylists)")
    check(until(lambda: sorted(titles("Browser 125")) == ["Bravo", "Echo"]), f"with its songs ({titles('Browser 125')})")
    checks.screenshot(driver, os.path.join(artifacts, "playlists.png"))
    errors = headless_chromium.console_errors(driver)
    check(not errors, f"no console errors ({errors})")
finally:
    driver.quit()
checks.finish()
