#!/usr/bin/env python3
"""A broken rule on the Rules page, in a real browser (Debian's headless Chromium, Selenium,
offline), at 1280 and at 360 pixels wide: logs in with the key, picks "rewrite", "title",
"regex", types a pattern with an unclosed group and adds it. The page that comes back is the
Rules page with the form as it was sent and the parser's reason right under the pattern's
field, readable (at least 10 px) and inside the window; the corrections page's merge by name
with a name nothing has, likewise. Saves screenshots into ARTIFACTS_DIR.

Usage: rules_form_browser.py BASE_URL API_KEY ARTIFACTS_DIR
Prints one JSON object (what was checked); exits 1 with the failures on stderr."""
import os
import sys

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

base, key, artifacts = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
os.makedirs(artifacts, exist_ok=True)
checks = headless_chromium.Checks()
check = checks.check
pattern = r" - Remastered (\d{4}$"
driver = headless_chromium.start()


def css(selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


try:
    driver.get(base + "/login?next=/rules")
    css("#key")[0].send_keys(key)
    css("form button[type=submit]")[0].click()
    headless_chromium.wait_for(lambda: driver.current_url.split("?")[0].endswith("/rules"))
    for name, width in [("desktop", 1280), ("phone", 360)]:
        driver.set_window_size(width, 900)
        driver.get(base + "/rules")
        Select(css("#rule_action")[0]).select_by_value("rewrite")
        Select(css("#field")[0]).select_by_value("title")
        Select(css("#match")[0]).select_by_value("regex")
        css("#value")[0].send_keys(pattern)
        css("#add-rule + form button[type=submit]")[0].click()
        headless_chromium.wait_for(lambda: css("#value-error"))
        errors = css("#value-error")
        check(len(errors) == 1, f"{name}: the reason is shown beside the pattern")
        if not errors:
            continue
        error, field = errors[0], css("#value")[0]
        check(css("h1")[0].text == "Rules", f"{name}: still the Rules page, not an error page")
        check(field.get_attribute("value") == pattern, f"{name}: the pattern is kept as typed ({field.get_attribute('value')!r})")
        check(field.get_attribute("aria-invalid") == "true", f"{name}: the field is marked invalid")
        check(Select(css("#rule_action")[0]).first_selected_option.get_attribute("value") == "rewrite"
              and Select(css("#match")[0]).first_selected_option.get_attribute("value") == "regex", f"{name}: the choices stay chosen")
        text = error.text
        check("regular expression" in text and "offset 14" in text, f"{name}: the parser's reason with its place ({text!r})")
        size = float(driver.execute_script("return parseFloat(getComputedStyle(arguments[0]).fontSize)", error))
        check(size >= 10, f"{name}: the reason is readable ({size} px)")
        e, f = error.rect, field.rect
        check(e["y"] >= f["y"] and e["y"] - (f["y"] + f["height"]) < 40, f"{name}: the reason is right under the field ({e}, {f})")
        inner = driver.execute_script("return document.documentElement.clientWidth")
        check(e["x"] >= 0 and e["x"] + e["width"] <= inner + 1, f"{name}: the reason fits the window ({e}, {inner} px)")
        check(driver.execute_script("return document.documentElement.scrollWidth") <= inner + 1, f"{name}: nothing runs off the page")
        checks.screenshot(driver, os.path.join(artifacts, f"rules-error-{name}.png"))

        # The corrections page's merge by name, with a name nothing has: the same.
        driver.get(base + "/curation")
        css("#merge-from")[0].send_keys("Nobody")
        css("#merge-into")[0].send_keys("The Kinks")
        css("#merge-names form button[type=submit]")[0].click()
        headless_chromium.wait_for(lambda: css("#merge-from-error"))
        errors = css("#merge-from-error")
        check(len(errors) == 1 and "No artist named “Nobody”" in errors[0].text, f"{name}: the merge's reason beside its field")
        if errors:
            e, f = errors[0].rect, css("#merge-from")[0].rect
            check(css("#merge-from")[0].get_attribute("value") == "Nobody" and css("#merge-into")[0].get_attribute("value") == "The Kinks",
                  f"{name}: both names kept")
            check(e["y"] >= f["y"] and e["y"] - (f["y"] + f["height"]) < 40, f"{name}: the merge's reason right under its field")
            check(e["x"] + e["width"] <= driver.execute_script("return document.documentElement.clientWidth") + 1,
                  f"{name}: the merge's reason fits the window")
        checks.screenshot(driver, os.path.join(artifacts, f"merge-error-{name}.png"))
finally:
    driver.quit()
checks.finish()
