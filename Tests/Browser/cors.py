"""switchboard-client in a real browser (Debian's chromium through chromium-driver) on a
page of another origin than the server's: what a React Native for Web or Next.js app
does with `serve --cors-origin`. Run by CrossOriginBrowserTests.

usage: cors.py SERVER_URL PAGE_PORT DIST_DIR MANIFEST_PATH

The page is served on 127.0.0.1:PAGE_PORT (the origin the server allows) and on
localhost:PAGE_PORT (another origin, which it does not). It loads the client as tsc
built it (CommonJS, from DIST_DIR) with a small `require`, starts it with a 2-second
held poll and records its events. MANIFEST_PATH is the file the server watches: the
script rewrites it to check that the held poll, preflighted, is woken by the change.
Each check prints `ok <what>`; the first failure raises and the exit status is 1.
"""
import functools
import http.server
import json
import os
import sys
import threading
import time

from selenium.webdriver.support.ui import WebDriverWait

from chromium import browser, check, run

SERVER, PAGE_PORT, DIST, MANIFEST = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

PAGE = """<!doctype html>
<meta charset="utf-8">
<title>switchboard-client across origins</title>
<script>
// tsc's CommonJS output, loaded as a bundler would link it.
const modules = {};
function load(name, from) {
  // A relative name, resolved against the folder of the module that requires it.
  const parts = from ? from.split("/").slice(0, -1) : [];
  for (const part of name.replace(/\\.js$/, "").split("/")) {
    if (part === "..") parts.pop(); else if (part !== ".") parts.push(part);
  }
  const key = parts.join("/");
  if (modules[key]) return modules[key].exports;
  const request = new XMLHttpRequest();
  request.open("GET", "/dist/" + key + ".js", false);
  request.send();
  const module = { exports: {} };
  modules[key] = module;
  new Function("exports", "require", "module", request.responseText)(module.exports, (required) => load(required, key), module);
  return module.exports;
}
window.events = [];
const { createClient } = load("./index");
const memory = { value: null, read() { return this.value; }, write(v) { this.value = v; } };
window.client = createClient({ server: "%s", storage: memory, policy: { wait: 2, initialBackoff: 200, maximumBackoff: 1000 } });
client.subscribe((event) => window.events.push(event));
client.start();
</script>
"""


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path in ("/", "/index.html"):
            body = (PAGE % SERVER).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path.startswith("/dist/"):
            self.path = self.path[len("/dist"):]
            return super().do_GET()
        self.send_error(404)

    def log_message(self, *args):
        pass


def events(driver):
    return driver.execute_script("return window.events")


def wait_for(driver, predicate, what, seconds=20):
    try:
        return WebDriverWait(driver, seconds).until(lambda d: predicate(events(d)))
    except Exception:
        raise AssertionError(f"timed out waiting for {what}; events: {json.dumps(events(driver))[:2000]}")


def main():
    page = http.server.ThreadingHTTPServer(("127.0.0.1", PAGE_PORT), functools.partial(Handler, directory=DIST))
    threading.Thread(target=page.serve_forever, daemon=True).start()
    driver = browser()
    try:
        # The allowed origin: the client gets the manifest from the server, ETag and all.
        driver.get(f"http://127.0.0.1:{PAGE_PORT}/")
        first = wait_for(driver, lambda e: [x for x in e if x["type"] == "adopted" and x["source"] == "server"],
                         "the manifest from the server")[0]
        check(first["etag"].startswith('"sha256-'), "the client read the ETag across origins", first)
        # The held poll (If-None-Match and Prefer, preflighted) is woken by a new manifest.
        time.sleep(0.5)
        data = json.load(open(MANIFEST))
        data["version"] = first["version"] + 1
        tmp = MANIFEST + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, MANIFEST)
        changed = wait_for(driver, lambda e: [x for x in e if x["type"] == "adopted" and x["version"] == first["version"] + 1],
                           "the new manifest")[0]
        check(changed["etag"] != first["etag"], "a held poll across origins was woken by the new manifest", changed)
        failures = [x for x in events(driver) if x["type"] == "failed"]
        check(not failures, "no request failed on the allowed origin", failures)
        resolved = driver.execute_script("const r = client.resolve('/artwork/andy-warhol-soup'); return r && r.status")
        check(resolved == "matched", "the client resolves with the manifest it fetched", resolved)

        # Another origin (localhost is not 127.0.0.1): the browser refuses the answer.
        driver.get(f"http://localhost:{PAGE_PORT}/")
        refused = wait_for(driver, lambda e: [x for x in e if x["type"] == "failed"], "a refusal on another origin")[0]
        got = [x for x in events(driver) if x["type"] == "adopted" and x["source"] == "server"]
        check(refused["kind"] == "unreachable" and not got, "a page of another origin cannot read the API", refused)
    finally:
        driver.quit()
        page.shutdown()


if __name__ == "__main__":
    run(main)
