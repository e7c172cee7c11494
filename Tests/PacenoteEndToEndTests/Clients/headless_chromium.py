"""Debian's headless Chromium through Selenium, offline, as the browser tests drive it:
1280 × 900 at scale 1, the browser's console kept for the checks."""
import os

os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager fetch a driver
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402


def start():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    return driver
