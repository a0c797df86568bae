"""What the browser scripts share: Debian's chromium through chromium-driver, the check
that prints `ok <what>` or raises, and a main that turns a failed check into exit 1."""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def browser(width=1280, height=1000, phone=False):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    if phone:
        # A window cannot be narrower than about 500 pixels: emulate the phone's screen.
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1}})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def check(condition, what, detail=""):
    if not condition:
        raise AssertionError(f"{what}: {detail}")
    print("ok", what, flush=True)


def run(main):
    """Runs `main`; a failed check prints FAIL and exits 1."""
    try:
        main()
    except AssertionError as error:
        print("FAIL", error, flush=True)
        sys.exit(1)
