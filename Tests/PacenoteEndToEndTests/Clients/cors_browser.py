#!/usr/bin/env python3
"""Pages on other sites in Debian's headless Chromium (Selenium, offline), against a running
Pacenote: the page is served by a second small HTTP server on another loopback port, so it is
another origin, and its scripts call Pacenote with fetch() as a personal website or a browser
extension's page would.

- From the allowed origin (http://127.0.0.1:PAGE_PORT, in server.cors_origins): a listen sent
  to /1/submit-listens with a client key (an Authorization header and a JSON body: the browser
  sends a preflight first) is taken, /api/v1/listens read with the key shows it, a like is
  sent, and a request without the key is refused in JSON the page can read (the browser's
  trusted network does not count for another site's page); deleting a listen never gets past
  the preflight. The now-playing card: /now.json read without a key, /now shown in an iframe.
- From an origin not in the list (http://localhost:PAGE_PORT, the same server under another
  name): the browser refuses the same fetch().
- A site form (the track page's like form) posted from the allowed origin by the owner's
  logged-in browser (same site, so its SameSite=Strict cookie goes along) does nothing, as
  fetch() and as a real form submission.

Usage: cors_browser.py BASE_URL ARTIFACTS_DIR STEPS_DIR
Turns with the test (files in STEPS_DIR): writes `port` (the page server's port), waits for
`ready` ({"client_key", "admin_key"}: the daemon restarted with the origin allowed).
Prints one JSON object (what was checked); exits 1 with the failures on stderr."""
import http.server
import json
import os
import sys
import threading

import headless_chromium  # noqa: E402 — sets SE_OFFLINE before Selenium loads
from selenium.webdriver.common.by import By  # noqa: E402

base, artifacts, steps_dir = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
checks = headless_chromium.Checks()
check = checks.check
steps = headless_chromium.Steps(steps_dir)

# The other site: one page, served from a folder of its own on another loopback port.
site = os.path.join(steps_dir, "site")
os.makedirs(site, exist_ok=True)
with open(os.path.join(site, "page.html"), "w") as f:
    f.write("<!doctype html><meta charset=utf-8><title>Now playing, on my site</title><h1>My site</h1>\n")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=site, **kwargs)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()
with open(os.path.join(steps_dir, "port.tmp"), "w") as f:
    f.write(str(port))
os.rename(os.path.join(steps_dir, "port.tmp"), os.path.join(steps_dir, "port"))
if not steps.wait("ready", 120):
    print("the test never said the daemon was ready", file=sys.stderr)
    sys.exit(1)
with open(os.path.join(steps_dir, "ready")) as f:
    spec = json.load(f)
client_key, admin_key = spec["client_key"], spec["admin_key"]

# fetch() from the page; what the page's script could see of the answer, or the browser's refusal.
FETCH = """
const [url, init, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
fetch(url, init).then(async r => {
  const text = await r.text();
  let body = null;
  try { body = JSON.parse(text); } catch (e) {}
  done({status: r.status, body: body, text: text.slice(0, 2000), type: r.type});
}).catch(e => done({error: String(e)}));
"""


def fetch(driver, path, method="GET", headers=None, body=None, credentials="omit"):
    init = {"method": method, "headers": headers or {}, "credentials": credentials, "mode": "cors"}
    if body is not None:
        init["body"] = body
    return driver.execute_async_script(FETCH, base + path, init)


listen = json.dumps({"listen_type": "single", "payload": [
    {"listened_at": 1764590400, "track_metadata": {"artist_name": "The Other Site", "track_name": "Sent From Another Origin"}}]})
stranger_listen = json.dumps({"listen_type": "single", "payload": [
    {"listened_at": 1764594000, "track_metadata": {"artist_name": "The Other Site", "track_name": "Sent From A Stranger"}}]})
lb = {"Authorization": "Token " + client_key, "Content-Type": "application/json"}

driver = headless_chromium.start()
driver.set_script_timeout(20)
try:
    # The allowed origin.
    driver.get(f"http://127.0.0.1:{port}/page.html")
    check(driver.execute_script("return location.origin") == f"http://127.0.0.1:{port}", "the page is on the other origin")
    sent = fetch(driver, "/1/submit-listens", "POST", lb, listen)
    check(sent.get("status") == 200 and (sent.get("body") or {}).get("status") == "ok",
          f"a listen sent with a client key from the allowed origin is taken: {sent}")
    read = fetch(driver, "/api/v1/listens?limit=10", headers={"Authorization": "Bearer " + client_key})
    check(read.get("status") == 200 and "Sent From Another Origin" in read.get("text", ""),
          f"/api/v1/listens read with the client key shows it: {read}")
    track_id = None
    for item in (read.get("body") or {}).get("listens", []):
        if (item.get("track") or {}).get("title") == "Sent From Another Origin":
            track_id = item["track"]["id"]
    check(track_id is not None, f"the listen names its track: {read}")
    liked = fetch(driver, f"/api/v1/tracks/{track_id}/feeling", "PUT", {"Authorization": "Token " + client_key,
                  "Content-Type": "application/json"}, json.dumps({"feeling": "like"}))
    check(liked.get("status") == 200, f"a like sent with the client key from the allowed origin is taken: {liked}")
    lb_read = fetch(driver, "/1/user/pacenote/listens", headers={"Authorization": "Token " + client_key})
    check(lb_read.get("status") == 200 and "Sent From Another Origin" in lb_read.get("text", ""),
          f"ListenBrainz's listens read with the client key: {lb_read}")
    no_key = fetch(driver, "/api/v1/listens")
    check(no_key.get("status") == 403 and ((no_key.get("body") or {}).get("error") or {}).get("code") == "forbidden",
          f"without the key the page reads a JSON refusal, the browser's trusted network does not count: {no_key}")
    wrong = fetch(driver, "/1/submit-listens", "POST", {"Authorization": "Token pn_wrong", "Content-Type": "application/json"}, listen)
    check(wrong.get("status") == 401 and (wrong.get("body") or {}).get("code") == 401,
          f"a wrong token's ListenBrainz error is readable by the page: {wrong}")
    deleted = fetch(driver, "/api/v1/listens/1", "DELETE", {"Authorization": "Token " + client_key})
    check("error" in deleted, f"a delete never gets past the preflight from another site: {deleted}")

    # The now-playing card ([share] now): an app says what plays, the page reads /now.json
    # without any key (public by the owner's choice, readable by the listed origin) and embeds
    # /now in an iframe (the one page any site may frame).
    playing = json.dumps({"listen_type": "playing_now", "payload": [
        {"track_metadata": {"artist_name": "The Other Site", "track_name": "Playing On My Site"}}]})
    now_sent = fetch(driver, "/1/submit-listens", "POST", lb, playing)
    check(now_sent.get("status") == 200, f"the app's playing-now is taken: {now_sent}")
    card = fetch(driver, "/now.json")
    check(card.get("status") == 200 and card.get("body") == {"playing": True, "song": "Playing On My Site", "artist": "The Other Site"},
          f"the page reads /now.json, the ticked fields only: {card}")
    driver.execute_script("""
        const f = document.createElement('iframe');
        f.id = 'now'; f.src = arguments[0]; f.width = 360; f.height = 80;
        document.body.appendChild(f);
    """, base + "/now")
    frame = headless_chromium.element(driver, "iframe#now")
    driver.switch_to.frame(frame)
    check(headless_chromium.wait_for(lambda: "Playing On My Site" in driver.page_source, 10),
          f"the card's page shows in an iframe on the other site: {driver.page_source[:500]}")
    driver.switch_to.default_content()

    # An origin not in the list: the same server under another name.
    driver.get(f"http://localhost:{port}/page.html")
    check(driver.execute_script("return location.origin") == f"http://localhost:{port}", "the page is on the refused origin")
    refused = fetch(driver, "/1/submit-listens", "POST", lb, stranger_listen)
    check("error" in refused and "TypeError" in refused["error"], f"the browser refuses the fetch from a refused origin: {refused}")
    refused_read = fetch(driver, "/api/v1/listens", headers={"Authorization": "Bearer " + client_key})
    check("error" in refused_read, f"and the history cannot be read from there: {refused_read}")
    refused_card = fetch(driver, "/now.json")
    check("error" in refused_card, f"nor the now-playing card's JSON: {refused_card}")

    # A site form from the allowed origin, in the owner's logged-in browser.
    driver.get(base + "/login")
    headless_chromium.element(driver, "input[name=key]").send_keys(admin_key)
    headless_chromium.element(driver, "form").submit()
    check(headless_chromium.wait_for(lambda: any(c["name"] == "pacenote_session" for c in driver.get_cookies())),
          "the owner is logged in")
    driver.get(base + f"/tracks/{track_id}")
    check('name="feeling"' in driver.page_source, "the track page shows its like form to the owner")
    driver.get(f"http://127.0.0.1:{port}/page.html")
    form_fetch = fetch(driver, f"/tracks/{track_id}", "POST", {"Content-Type": "application/x-www-form-urlencoded"},
                       "back=%2F&feeling=dislike", credentials="include")
    check("error" in form_fetch, f"a site form posted by fetch() from another origin gives the page nothing: {form_fetch}")
    driver.execute_script("""
        const f = document.createElement('form');
        f.method = 'post';
        f.action = arguments[0];
        for (const [k, v] of [['back', '/'], ['feeling', 'dislike']]) {
          const i = document.createElement('input'); i.name = k; i.value = v; f.appendChild(i);
        }
        document.body.appendChild(f);
        f.submit();
    """, base + f"/tracks/{track_id}")
    check(headless_chromium.wait_for(lambda: driver.current_url.startswith(base), 10), "the form submission reached Pacenote")
    check("/login" in driver.current_url, f"a form submitted from another origin is sent to log in: {driver.current_url}")
finally:
    driver.quit()
    server.shutdown()
checks.finish()
