"""Drives the route explorer in a real browser (Debian's chromium through
chromium-driver) against a running server; run by ExplorerPageTests.

usage: explorer.py BASE_URL MANIFEST_PATH XSS_MANIFEST SCREENSHOT_DIR

Each check prints `ok <what>`; the first failure raises, printing what the page showed,
and the exit status is 1. MANIFEST_PATH is the file the server watches: the script
rewrites it to check that the page follows a reload.
"""
import json
import os
import sys
import time
import urllib.parse

from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from chromium import browser, check, run

BASE, MANIFEST, XSS, SHOTS = sys.argv[1:5]
WAIT = 15


def wait(driver, condition, what):
    try:
        return WebDriverWait(driver, WAIT).until(lambda d: condition(d))
    except Exception:
        body = driver.find_element(By.TAG_NAME, "body").text
        raise AssertionError(f"timed out waiting for {what}; the page shows:\n{body[:3000]}")


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def open_page(driver, fragment=""):
    driver.get(BASE + "/" + fragment)
    wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1", "the page to start")


def resolve(driver, url, explain=True, app_version=""):
    field = driver.find_element(By.ID, "url")
    field.clear()
    field.send_keys(url)
    version = driver.find_element(By.ID, "appVersion")
    version.clear()
    version.send_keys(app_version)
    box = driver.find_element(By.ID, "explain")
    if box.is_selected() != explain:
        box.click()
    field.send_keys(Keys.ENTER)
    wait(driver, lambda d: d.execute_script("return state.lastResult && state.lastResult.url") == url, f"the result of {url}")


def summary(driver):
    return {dt.text: dd.text for dt, dd in zip(driver.find_elements(By.CSS_SELECTOR, "#result-summary dt"),
                                               driver.find_elements(By.CSS_SELECTOR, "#result-summary dd"))}


def no_script_ran(driver, where):
    try:
        alert = driver.switch_to.alert
        raise AssertionError(f"an alert opened {where}: {alert.text}")
    except NoAlertPresentException:
        pass
    check(driver.execute_script("return window.__xss === undefined"), f"no payload ran {where}")


def phone_width():
    """A phone's width: the same page, readable."""
    phone = browser(390, 844, phone=True)
    try:
        open_page(phone, "#url=" + urllib.parse.quote("/artist/banksy", safe="") + "&explain=1")
        wait(phone, lambda d: summary(d).get("status") == "matched", "the phone page to resolve")
        width = phone.execute_script("return document.documentElement.scrollWidth")
        check(width <= 390, "no sideways scrolling at phone width", str(width))
        phone.execute_script("window.scrollTo(0, 0)")
        phone.save_screenshot(f"{SHOTS}/explorer-phone.png")
    finally:
        phone.quit()



def large_table(desktop):
    """A table of 5,000 routes: the first 500 rows shown, the winner found anywhere."""
    routes = [{"name": f"r{i}", "pattern": f"/section{i % 97}/item{i}/:id", "destination": f"Screen{i}"} for i in range(5000)]
    with open(MANIFEST + ".tmp", "w") as f:
        json.dump({"version": 4, "routes": routes}, f)
    os.replace(MANIFEST + ".tmp", MANIFEST)
    wait(desktop, lambda d: text(d, "table-count").startswith("5000 of 5000 expansions"), "the 5,000-route table")
    rows = lambda: desktop.find_elements(By.CSS_SELECTOR, "#routes tbody tr")
    check(len(rows()) == 500 and desktop.find_element(By.ID, "table-more").is_displayed(),
          "a long table shows its first 500 rows and a way to more", text(desktop, "table-count"))
    started = time.time()
    resolve(desktop, f"/section{4320 % 97}/item4320/x")
    winner = desktop.find_elements(By.CSS_SELECTOR, "#routes tr.winner")
    check([w.get_attribute("data-route") for w in winner] == ["r4320"], "the winner past the first 500 rows is shown and marked",
          f"{[w.text for w in winner]} after {time.time() - started:.2f} s")
    inside = desktop.execute_script("""
        const row = document.querySelector('#routes tr.winner'), box = row.closest('.scroll');
        return row.offsetTop >= box.scrollTop && row.offsetTop + row.offsetHeight <= box.scrollTop + box.clientHeight;""")
    check(inside, "the winner is scrolled into view in the table")
    desktop.find_element(By.ID, "table-more").click()
    check(len(rows()) == 1001, "show more adds 500 rows (and keeps the winner's)", str(len(rows())))
    flt = desktop.find_element(By.ID, "filter")
    flt.send_keys("item4320")
    wait(desktop, lambda d: text(d, "table-count").startswith("1 of 5000"), "the filter over all 5,000")
    check([r.get_attribute("data-route") for r in rows()] == ["r4320"], "the filter searches past the rows shown")


def readyz_requests(driver):
    return driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/readyz')).length")


def rewrite_manifest(change):
    with open(MANIFEST) as f:
        manifest = json.load(f)
    change(manifest)
    with open(MANIFEST + ".tmp", "w") as f:
        json.dump(manifest, f)
    os.replace(MANIFEST + ".tmp", MANIFEST)


def refusal_at_once(desktop):
    """Following the stream, the page polls nothing and shows a refused manifest at once."""
    check(desktop.execute_script("return document.body.dataset.updates") == "stream", "the page follows the event stream",
          text(desktop, "m-updates"))
    before = readyz_requests(desktop)
    time.sleep(2.5)
    check(readyz_requests(desktop) == before, "following the stream, the page does not poll /readyz",
          f"{readyz_requests(desktop) - before} requests in 2.5 s")
    with open(MANIFEST) as f:
        good = f.read()
    started = time.time()
    rewrite_manifest(lambda m: m.update(version=99, routes=[]))
    wait(desktop, lambda d: "last reload failed" in text(d, "m-error"), "the refusal to show")
    check(time.time() - started < 1.5 and "routes" in text(desktop, "m-error"), "a refused manifest shows at once",
          f"{time.time() - started:.2f} s: {text(desktop, 'm-error')}")
    check(text(desktop, "m-version") == "2", "the last good version stays shown", text(desktop, "m-version"))
    with open(MANIFEST + ".tmp", "w") as f:
        f.write(good)
    os.replace(MANIFEST + ".tmp", MANIFEST)


def fallback_polling():
    """Where the event stream fails (here a proxy that blocks it), the page polls."""
    blocked = browser(1280, 1000)
    try:
        blocked.execute_cdp_cmd("Network.enable", {})
        blocked.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/v1/events*"]})
        open_page(blocked)
        wait(blocked, lambda d: d.execute_script("return document.body.dataset.updates") == "poll", "the fallback to polling")
        check("polling every 2 s" in text(blocked, "m-updates"), "the page says it polls", text(blocked, "m-updates"))
        version = int(text(blocked, "m-version"))
        rewrite_manifest(lambda m: m.update(version=version + 1))
        wait(blocked, lambda d: text(d, "m-version") == str(version + 1), "the polled page to see the reload")
        check(readyz_requests(blocked) >= 2, "the reload was seen by polling /readyz", str(readyz_requests(blocked)))
    finally:
        blocked.quit()


def main():
    desktop = browser(1280, 1000)
    try:
        # A malformed escape in the address, in a key and in a value: the page still starts.
        for fragment in ["#%E0%A4%A", "#url=%E0%A4%A&explain=1"]:
            open_page(desktop, fragment)
            check(desktop.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1",
                  f"the page starts at /{fragment}", fragment)

        # A link to an explanation resolves as soon as it opens.
        link = "#url=" + urllib.parse.quote("https://www.artsy.net/artist/banksy/bogus-tab", safe="") + "&explain=1"
        open_page(desktop, link)
        wait(desktop, lambda d: summary(d).get("status") == "fallback", "the linked URL to resolve")
        steps = text(desktop, "steps")
        check("normalized: host artsy.net, path /artist/banksy/bogus-tab" in steps, "the normalized host and path", steps)
        check("tried artist /artist/:id(/:tab): refused (param tab: not one of works|shows|about|articles)" in steps,
              "a refused candidate with its reason", steps)
        near = text(desktop, "near")
        check("artist-auction-results /artist/:id/auction-results: segment 3: \"bogus-tab\" is not \"auction-results\"" in near,
              "near misses with their reason", near)

        # A match: destination, params, the winner highlighted in the table.
        resolve(desktop, "https://www.artsy.net/artist/banksy?ref=home#top")
        shown = summary(desktop)
        check(shown.get("status") == "matched" and shown.get("destination") == "Artist", "destination", str(shown))
        params = text(desktop, "params")
        check("id banksy" in params and "ref home" in params, "params", params)
        # The one expansion of /artist/:id(/:tab) that took the URL, not its sibling.
        for url, expansion in [("https://www.artsy.net/artist/banksy/works", "/artist/:id/:tab"),
                               ("https://www.artsy.net/artist/banksy?ref=home#top", "/artist/:id")]:
            resolve(desktop, url)
            winner = [(w.get_attribute("data-route"), w.get_attribute("data-path"))
                      for w in desktop.find_elements(By.CSS_SELECTOR, "#routes tr.winner")]
            check(winner == [("artist", expansion)], f"the row of {expansion} alone is highlighted for {url}", str(winner))

        # A version gate, as the explanation says it.
        resolve(desktop, "/user/conversations/12", app_version="7.1.0")
        steps = text(desktop, "steps")
        check("refused (since 7.2.0 > appVersion 7.1.0)" in steps, "a version gate's reason", steps)
        check(summary(desktop).get("destination") == "WebView", "the gated route falls through to the next")
        touched = [r.get_attribute("data-route") for r in desktop.find_elements(By.CSS_SELECTOR, "#routes tr.touched")]
        check("conversation" in touched, "the refused route is marked in the table", str(touched))
        desktop.execute_script("window.scrollTo(0, 0)")
        desktop.save_screenshot(f"{SHOTS}/explorer-resolve.png")

        # The state lives in the address; a URL with its own query and fragment survives.
        tricky = "https://x/?a=1&b=2#f"
        resolve(desktop, tricky)
        fragment = desktop.execute_script("return location.hash")
        check(fragment.startswith("#url=" + urllib.parse.quote(tricky, safe="")), "the URL is percent-encoded in the address", fragment)
        second = browser(1280, 1000)
        try:
            open_page(second, fragment)
            wait(second, lambda d: d.find_element(By.ID, "url").get_attribute("value") == tricky, "the URL to come back")
            check(summary(second).get("status") == "external", "the reopened link resolves at once")
        finally:
            second.quit()

        # The table filters by text; a route opens to its manifest JSON; keyboard works.
        flt = desktop.find_element(By.ID, "filter")
        flt.send_keys("auction")
        rows = [r for r in desktop.find_elements(By.CSS_SELECTOR, "#routes tbody tr") if r.is_displayed()]
        check(rows and all("auction" in r.text.lower() for r in rows), "the filter keeps matching rows", str(len(rows)))
        rows[0].send_keys(Keys.ENTER)
        wait(desktop, lambda d: d.find_element(By.ID, "route-detail").is_displayed(), "the route's JSON")
        shown = json.loads(text(desktop, "route-json"))
        check(shown.get("name") == rows[0].get_attribute("data-route"), "the route opens to its manifest JSON", str(shown))
        flt.send_keys(Keys.CONTROL, "a")
        flt.send_keys(Keys.DELETE)
        wait(desktop, lambda d: text(d, "table-count").startswith("66 of 66"), "the filter to be cleared")
        desktop.execute_script("document.getElementById('table').scrollIntoView()")
        desktop.save_screenshot(f"{SHOTS}/explorer-table.png")

        # Many links at once: a cases file, failures marked.
        batch = desktop.find_element(By.ID, "batch-input")
        batch.send_keys("/artist/banksy -> Artist\n/orders/nope -> OrderDetails\n/user/conversations/3 [appVersion=7.3.0] -> Conversation\n")
        desktop.find_element(By.ID, "batch-button").click()
        wait(desktop, lambda d: "passed" in text(d, "batch-summary"), "the batch")
        check(text(desktop, "batch-summary") == "2 passed, 1 failed", "the batch totals", text(desktop, "batch-summary"))
        failed = desktop.find_elements(By.CSS_SELECTOR, "#batch-results tr.fail")
        check(len(failed) == 1 and "/orders/nope" in failed[0].text, "the failing case is marked")
        desktop.execute_script("document.getElementById('batch').scrollIntoView()")
        desktop.save_screenshot(f"{SHOTS}/explorer-batch.png")

        phone_width()

        # A reload: the page shows the new version and what it changed for the URL shown.
        resolve(desktop, "/artist/banksy")
        with open(MANIFEST) as f:
            manifest = json.load(f)
        manifest["version"] = 2
        for route in manifest["routes"]:
            if route["name"] == "artist":
                route["destination"] = "ArtistV2"
        with open(MANIFEST + ".tmp", "w") as f:
            json.dump(manifest, f)
        os.replace(MANIFEST + ".tmp", MANIFEST)
        wait(desktop, lambda d: text(d, "m-version") == "2", "the new version")
        wait(desktop, lambda d: "ArtistV2" in text(d, "m-changed"), "the changed result")
        check("version 1 → 2" in text(desktop, "m-changed"), "what changed is said", text(desktop, "m-changed"))
        check(summary(desktop).get("destination") == "ArtistV2", "the URL is resolved again")
        refusal_at_once(desktop)

        # Hostile manifest data is shown as text; nothing in it runs.
        os.replace(XSS, MANIFEST)
        wait(desktop, lambda d: text(d, "m-version") == "3", "the hostile manifest")
        resolve(desktop, "/x/%3Cimg%20src=x%20onerror=window.__xss=1%3E")
        no_script_ran(desktop, "resolving into a hostile route")
        shown = summary(desktop)
        check("<script>" in shown.get("destination", ""), "markup in a destination is shown as text", str(shown))
        check("<img" in text(desktop, "params"), "markup in a param is shown as text")
        rows = desktop.find_elements(By.CSS_SELECTOR, "#routes tbody tr")
        rows[0].click()
        wait(desktop, lambda d: d.find_element(By.ID, "route-detail").is_displayed(), "the hostile route's JSON")
        batch = desktop.find_element(By.ID, "batch-input")
        batch.clear()
        batch.send_keys("javascript:window.__xss=1\n/x/\"><img src=x onerror=window.__xss=1>\n")
        desktop.find_element(By.ID, "batch-button").click()
        wait(desktop, lambda d: "resolved" in text(d, "batch-summary"), "the hostile batch")
        open_page(desktop, "#url=" + urllib.parse.quote("javascript:window.__xss=1", safe="") + "&explain=1")
        wait(desktop, lambda d: summary(d).get("status") == "rejected", "a javascript: URL to be rejected")
        no_script_ran(desktop, "anywhere on the page")
        images = desktop.execute_script("return document.images.length")
        check(images == 0, "no element came from manifest data", str(images))
        errors = [e for e in desktop.get_log("browser") if e["level"] == "SEVERE" and "Content Security Policy" in e["message"]]
        check(not errors, "nothing the page itself does breaks its policy", str(errors))

        large_table(desktop)
        fallback_polling()
    finally:
        desktop.quit()


if __name__ == "__main__":
    run(main)
