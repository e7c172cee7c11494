"""Debian's headless Chromium through Selenium, offline, as the browser tests drive it:
1280 × 900 at scale 1, the browser's console kept for the checks."""
import os

os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager fetch a driver
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402


def start(javascript=True):
    """`javascript=False`: the page's own scripts never run (Chromium's content setting), as
    for a visitor who turned them off; the checks' `execute_script` still does."""
    options = webdriver.ChromeOptions()
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    return driver


class Checks:
    """What a browser script checked and what failed, reported the same way by every script:
    one JSON line on standard output, the failures on standard error, exit status 1 if any."""

    def __init__(self):
        self.checked, self.failures, self.screenshots = [], [], []

    def check(self, condition, message):
        self.checked.append(message)
        if not condition:
            self.failures.append(message)

    def screenshot(self, driver, path):
        saved = driver.save_screenshot(path)
        name = os.path.basename(path)
        self.check(saved, f"screenshot {name} saved")
        if saved:
            self.screenshots.append(name)

    def finish(self):
        import json
        import sys
        print(json.dumps({"checked": len(self.checked), "screenshots": self.screenshots}))
        if self.failures:
            print("\n".join(self.failures), file=sys.stderr)
            sys.exit(1)


def wait_for(condition, seconds=5):
    """True once `condition()` is; an exception (the page replaced while it was read) is a no."""
    import time
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if condition():
                return True
        except Exception:  # noqa: BLE001
            pass
        time.sleep(0.05)
    return condition()


def element(driver, selector):
    from selenium.webdriver.common.by import By
    return driver.find_element(By.CSS_SELECTOR, selector)


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


class Steps:
    """A browser script and its test take turns through empty files in one folder: each side
    marks what it did and waits for the other's mark."""

    def __init__(self, folder):
        self.folder = folder

    def mark(self, name):
        with open(os.path.join(self.folder, name), "w"):
            pass

    def wait(self, name, seconds=60):
        import time
        deadline = time.time() + seconds
        while time.time() < deadline:
            if os.path.exists(os.path.join(self.folder, name)):
                return True
            time.sleep(0.1)
        return False
