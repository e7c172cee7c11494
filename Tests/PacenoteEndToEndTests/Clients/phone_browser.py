#!/usr/bin/env python3
"""Issue 52's phone rows in Debian's headless Chromium (Selenium, offline), against a running
Pacenote that trusts no network. The owner logs in with the key and opens the dashboard, stats,
history, a workout, the submissions, the rules; a stranger (a browser without the owner's
cookie) opens the public song of the day and a published review. At 1280 and at 360 px each
page is checked for:
  - no horizontal overflow of the page (a chart may scroll inside its own box);
  - every visible text at least 10 px as rendered: an SVG label's font size times the scale
    its viewBox gives it (getScreenCTM), an HTML text's computed size;
  - every chart label inside its chart (not clipped at an edge);
  - at 360 px, a navigation that scrolls shows it (a fade at its right edge);
and the public pages link nowhere private. Then the logged-in details: ♡ and ✕ neutral until
pressed, the delete confirmation neutral, "Apply to the past" and "Delete" distinct and apart,
the workout chart's time axis, the workout's name. Saves a screenshot of each page at each
width in ARTIFACTS_DIR and names them in its output.

Usage: phone_browser.py BASE_URL ARTIFACTS_DIR SPEC_JSON
SPEC_JSON: {"key", "day", "workout_id", "share_path", "workout_title"}
Prints one JSON object (what was checked, the screenshots); exits 1 with the failures on stderr."""
import json
import os
import re
import sys
from urllib.parse import urlparse

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, artifacts, spec = sys.argv[1].rstrip("/"), sys.argv[2], json.loads(sys.argv[3])
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check
origin = urlparse(base)

# Text that is drawn: SVG labels at font size × the viewBox's scale, HTML text at its computed
# size; hidden and zero-sized boxes (the visually-hidden labels are 1 px) left out.
MEASURE = """
const small = [], clipped = [], labels = [];
for (const t of document.querySelectorAll('svg text')) {
  const r = t.getBoundingClientRect();
  if (!t.textContent.trim() || r.width === 0 || r.height === 0) continue;
  const size = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
  labels.push(size);
  if (size < 10) small.push(t.textContent + ' in svg.' + t.ownerSVGElement.getAttribute('class') + ': ' + size.toFixed(1) + ' px');
  const box = t.ownerSVGElement.getBoundingClientRect();
  if (r.top < box.top - 1 || r.bottom > box.bottom + 1 || r.left < box.left - 1 || r.right > box.right + 1)
    clipped.push(t.textContent + ' in svg.' + t.ownerSVGElement.getAttribute('class'));
}
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
let html = 0;
while (walker.nextNode()) {
  const node = walker.currentNode, el = node.parentElement;
  if (!node.textContent.trim() || !el || el.closest('svg, script, style, title')) continue;
  const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
  if (r.width <= 1 || r.height <= 1 || cs.visibility === 'hidden') continue;
  html++;
  const size = parseFloat(cs.fontSize);
  if (size < 10) small.push(node.textContent.trim().slice(0, 30) + ' in ' + el.tagName + ': ' + size + ' px');
}
const smallest = labels.length ? Math.min(...labels) : null;
const charts = [...document.querySelectorAll('svg.chart')].map((s) => {
  const box = s.parentElement.getBoundingClientRect();
  return {cls: s.getAttribute('class'), boxRight: box.right, width: s.getBoundingClientRect().width};
});
return {small, clipped, labels: labels.length, smallest, html, charts,
        overflow: document.documentElement.scrollWidth - window.innerWidth, inner: window.innerWidth};
"""

NAV = """
const nav = document.querySelector('header nav');
if (!nav) return null;
const cs = getComputedStyle(nav);
const mask = cs.maskImage || cs.webkitMaskImage || '';
nav.scrollLeft = nav.scrollWidth;
const last = nav.querySelector('a:last-of-type').getBoundingClientRect(), box = nav.getBoundingClientRect();
return {scrolls: nav.scrollWidth > nav.clientWidth + 1, mask: mask, lastRight: last.right, navRight: box.right,
        faded: parseFloat(cs.paddingRight)};
"""

PRIVATE_OK = ("/sotd/", "/review/shared/", "/static/", "/sotd.atom", "/favicon")


def save(driver, name):
    height = driver.execute_script("return Math.max(document.body.scrollHeight, 600)")
    width = driver.execute_script("return window.innerWidth")
    driver.set_window_size(width, min(height + 40, 8000))
    checks.screenshot(driver, os.path.join(artifacts, f"{name}.png"))
    driver.set_window_size(width, 900)


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def page(driver, name, path, label, public=False):
    driver.get(base + path)
    m = driver.execute_script(MEASURE)
    errors = console_errors(driver)
    measured[f"{name}-{label}"] = {"chart_labels": m["labels"], "smallest_label_px": m["smallest"] and round(m["smallest"], 2),
                                   "overflow_px": m["overflow"]}
    check(not errors, f"{name} ({label}): no console errors ({errors})")
    check(m["overflow"] <= 1, f"{name} ({label}): nothing wider than the window (overflow {m['overflow']} px)")
    check(not m["small"], f"{name} ({label}): every text at least 10 px as drawn ({m['small'][:8]})")
    check(not m["clipped"], f"{name} ({label}): every chart label inside its chart ({m['clipped'][:8]})")
    check(m["html"] > 3, f"{name} ({label}): text measured ({m['html']} HTML texts, {m['labels']} chart labels)")
    for c in m["charts"]:
        check(c["boxRight"] <= m["inner"] + 1, f"{name} ({label}): {c['cls']}'s box fits the window (it scrolls inside)")
    # Before the navigation is scrolled below: the picture shows it as a visitor first sees it.
    save(driver, f"{name}-{label}")
    if not public:
        check(driver.find_elements(By.CSS_SELECTOR, "header nav a"), f"{name} ({label}): the site's navigation")
        if label == "phone":
            n = driver.execute_script(NAV)
            check(n is not None and n["scrolls"] and "gradient" in n["mask"],
                  f"{name} (phone): the navigation scrolls and fades at its edge to say so ({n})")
            check(n is not None and n["lastRight"] <= n["navRight"] - n["faded"] + 1,
                  f"{name} (phone): its last section scrolls clear of the fade ({n})")
    else:
        check(not driver.find_elements(By.CSS_SELECTOR, "header nav"), f"{name} ({label}): no navigation into the private pages")
        for el in driver.find_elements(By.CSS_SELECTOR, "a[href], form[action]"):
            target = el.get_attribute("href") or el.get_attribute("action")
            u = urlparse(target)
            if u.netloc and u.netloc != origin.netloc:
                continue
            check(u.path.startswith(PRIVATE_OK), f"{name} ({label}): links nowhere private (found {u.path!r})")
    return m


# What was measured, page by page, for a reader (ARTIFACTS_DIR/measurements.json).
measured = {}
owner = headless_chromium.start()
try:
    owner.get(base + "/login?next=/")
    owner.find_element(By.ID, "key").send_keys(spec["key"])
    owner.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    check(headless_chromium.wait_for(lambda: "/login" not in owner.current_url, 10), "the owner logged in")
    # A track and an artist of the run: plays over time; the artist's plays by heart-rate zone.
    owner.get(base + f"/workouts/{spec['workout_id']}")
    def address(selector):
        u = urlparse(owner.find_element(By.CSS_SELECTOR, selector).get_attribute("href"))
        return u.path + ("?" + u.query if u.query else "")
    track, artist = address("table.songs a[href*='/tracks/']"), address("table.songs a[href*='/artist']")
    private = [("dashboard", "/"), ("stats", "/stats?range=year"), ("history", "/history"),
               ("workout", f"/workouts/{spec['workout_id']}"), ("workouts", "/workouts"), ("submissions", "/submissions"),
               ("rules", "/rules"), ("track", track), ("artist", artist), ("review", "/review"), ("sotd", "/sotd"),
               ("friends", "/friends"), ("curation", "/curation")]
    for label, width in [("desktop", 1280), ("phone", 360)]:
        owner.set_window_size(width, 900)
        for name, path in private:
            m = page(owner, name, path, label)
            if name in ("dashboard", "stats", "workout"):
                check(m["labels"] >= 7, f"{name} ({label}): its charts have labels ({m['labels']})")
            if name == "track":
                check(owner.find_elements(By.CSS_SELECTOR, "svg.bars text"), f"track ({label}): plays over time, labelled")
            if name == "artist":
                check(owner.find_elements(By.CSS_SELECTOR, "svg.rows text.value"), f"artist ({label}): plays by zone, labelled")

    owner.set_window_size(1280, 900)
    # The workout: named after the time of day, the top bpm label inside, clock times under the curve.
    owner.get(base + f"/workouts/{spec['workout_id']}")
    title = owner.find_element(By.TAG_NAME, "h1").text
    check(title.startswith(spec["workout_title"]), f"the workout is titled {spec['workout_title']!r} ({title!r})")
    times = [t.text for t in owner.find_elements(By.CSS_SELECTOR, "svg.hrchart text.time")]
    check(len(times) >= 2 and all(re.fullmatch(r"\d\d:\d\d", t) for t in times), f"the time axis has clock times ({times})")
    owner.get(base + "/workouts")
    listed = owner.find_element(By.CSS_SELECTOR, "ol.workouts").text
    check(spec["workout_title"] in listed and "Auto" not in listed, f"the list names it too, never 'Auto' ({listed!r})")

    # History: ♡ and ✕ neutral until pressed; a delete's confirmation is not an error's pink.
    owner.get(base + "/history")
    backgrounds = owner.execute_script(
        "return [...document.querySelectorAll('form.feeling button[aria-pressed=false]')].map((b) => getComputedStyle(b).backgroundColor)")
    accent = owner.execute_script("const b = document.createElement('button'); document.body.append(b);"
                                  "const c = getComputedStyle(b).backgroundColor; b.remove(); return c")
    check(backgrounds and all(b != accent for b in backgrounds), f"♡ and ✕ are not solid red ({set(backgrounds)} vs {accent})")
    owner.find_element(By.CSS_SELECTOR, ".controls form.inline button").click()
    check(headless_chromium.wait_for(lambda: owner.find_elements(By.CSS_SELECTOR, ".notice"), 10), "a delete is confirmed")
    notice = owner.execute_script("return getComputedStyle(document.querySelector('.notice')).backgroundColor")
    check(notice not in (accent, "rgb(246, 217, 210)"), f"the confirmation is neutral ({notice})")
    save(owner, "history-deleted-desktop")

    # Rules: only Delete looks destructive, and the buttons stand apart.
    owner.get(base + "/rules")
    apply = owner.find_element(By.CSS_SELECTOR, "button[value=apply]")
    delete = owner.find_element(By.CSS_SELECTOR, "button[value=delete]")
    look = lambda b: owner.execute_script("return getComputedStyle(arguments[0]).backgroundColor", b)  # noqa: E731
    check(look(apply) != look(delete), f"Apply and Delete look different ({look(apply)}, {look(delete)})")
    check(look(delete) == accent and look(apply) != accent, "only Delete is red")
    gap = delete.rect["x"] - (apply.rect["x"] + apply.rect["width"])
    check(gap >= 4 or delete.rect["y"] > apply.rect["y"] + 4, f"a gap between Apply and Delete ({gap} px)")

    # Submissions: the frame, the commands as code, no backticks.
    owner.get(base + "/submissions")
    main = owner.find_element(By.TAG_NAME, "main").text
    check("`" not in main, "no Markdown backticks on /submissions")
    check(len(owner.find_elements(By.CSS_SELECTOR, "main code")) >= 2, "the commands in <code>")
finally:
    owner.quit()

stranger = headless_chromium.start()
try:
    for label, width in [("desktop", 1280), ("phone", 360)]:
        stranger.set_window_size(width, 900)
        page(stranger, "sotd-public", f"/sotd/{spec['day']}", label, public=True)
        page(stranger, "review-public", spec["share_path"], label, public=True)
    text = stranger.find_element(By.TAG_NAME, "main").text
    check(not re.search(r"\b1\s+(days|plays|songs|artists|albums)\b", text), f"plurals right on the shared review ({text[:300]!r})")
finally:
    stranger.quit()

with open(os.path.join(artifacts, "measurements.json"), "w") as f:
    json.dump(measured, f, indent=1, sort_keys=True)
checks.finish()
