"""A real Maloja server (PyPI's malojaserver 3.2.9) for the forwarding tests: a private data
directory, loopback only, offline, started in the background and stopped again.

    python3 maloja_server.py start     --dir DIR --port PORT   # prints {"pid":…, "apikey":"…", "port":…}
    python3 maloja_server.py stop      --dir DIR
    python3 maloja_server.py scrobbles --dir DIR --port PORT   # prints [{"time","artists","title","album"}…]
    python3 maloja_server.py check     --dir DIR --port PORT   # both scrobbling APIs answer the key

Runs with any python3 >= 3.8 and the standard library only (the tests call it with the python3
on PATH). Maloja itself runs from its own venv, .build-maloja-venv/ at the repository's root,
which scripts/test makes (ensure_maloja in scripts/lib/common.sh); $PACENOTE_MALOJA_PYTHON
names another interpreter that has malojaserver installed.

DIR holds: apikey (the key clients send: a ListenBrainz token, and the Audioscrobbler 2.0
password), password (the web admin's), maloja.log (Maloja's console output, appended across
starts), maloja.json (pid and port of the running server) and data/ (Maloja's own folder:
settings.ini, apikeys.yml, malojadb.sqlite, logs/ with one log per module). Starting again on the
same DIR keeps the scrobbles; starting one that is already running on that port only prints it.

The server is set up so it never waits for input and never goes to the network: no first-run
questions, no metadata or image providers, no proxy scrobbling, no statistics.

By hand (KEY is DIR/apikey):
    curl -H "Authorization: Token KEY" http://127.0.0.1:PORT/apis/listenbrainz/1/validate-token
    curl -H "Authorization: Token KEY" -H "Content-Type: application/json" \\
         -d '{"listen_type":"single","payload":[{"listened_at":1700000000,
              "track_metadata":{"artist_name":"Dool","track_name":"Vantablack"}}]}' \\
         http://127.0.0.1:PORT/apis/listenbrainz/1/submit-listens
    curl -d method=auth.getMobileSession -d username=any -d password=KEY -d format=json \\
         http://127.0.0.1:PORT/apis/audioscrobbler/2.0/          # the trailing slash matters
    curl -d method=track.scrobble -d sk=SESSIONKEY -d artist=Dool -d track=Vantablack \\
         -d timestamp=1700000000 -d format=json http://127.0.0.1:PORT/apis/audioscrobbler/2.0/

What Maloja 3.2.9 does (read in its source, tried with curl):
- A play is one row per timestamp (seconds). The same play again (same time, same artists and
  title) is not stored twice: ListenBrainz answers 200 {"status": "ok"}, Audioscrobbler 2.0
  answers 500 {"error": 8, "message": "Operation failed"}. Another track at a taken second: 409
  (ListenBrainz) or 500/8, and Maloja's track cache is left wrong until it restarts: avoid it.
- A ListenBrainz "import" or "single" with several listens stops at the first one it already
  has, and still answers 200: the listens after it are dropped. One listen per request is safe.
- ListenBrainz needs Content-Type: application/json (else 400); playing_now is answered 200 and
  dropped. additional_info: duration becomes the track's length; track_mbid, release_mbid,
  artist_mbids, recording_mbid and tags are kept with the scrobble; the rest is ignored.
- Audioscrobbler 2.0: auth.getMobileSession takes username (any) and password = the API key in
  clear (or authToken = md5(username + md5(key))); api_key and api_sig are not checked. Session
  keys live in memory: after a restart the old one gets 403 {"error": 9}. track.scrobble works
  only with unindexed artist, track, timestamp (album, duration are ignored); artist[0]… batches
  fail with 500/8. track.updateNowPlaying is unknown: 200 {"error": 3, "message": "Invalid method"}.
- Artists are split on feat./ft./&/vs./;/ / | (and "(feat. X)" leaves the title), sorted in no
  fixed order; "(Radio Edit)" and the like are cut from titles. Compare times and titles.
"""
import argparse
import configparser
import json
import os
import secrets
import signal
import socket
import string
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
VENV_PYTHON = os.path.join(REPO, ".build-maloja-venv", "bin", "python3")
ALPHANUMERIC = string.ascii_letters + string.digits

# Written into data/settings.ini on every start. Maloja reads that file before its environment
# variables, so the address goes there too.
SETTINGS = {
    "name": "Pacenote tests",
    "skip_setup": "True",
    "metadata_providers": "[]",
    "scrobble_lastfm": "False",
    "lastfm_api_key": "False",
    "lastfm_api_secret": "False",
    "spotify_api_id": "False",
    "spotify_api_secret": "False",
    "audiodb_api_key": "False",
    "send_stats": "False",
    "proxy_images": "False",
    "fancy_placeholder_art": "False",
}


def fail(message):
    print("maloja_server.py: " + message, file=sys.stderr)
    sys.exit(1)


def maloja_python():
    python = os.environ.get("PACENOTE_MALOJA_PYTHON") or VENV_PYTHON
    if not os.access(python, os.X_OK):
        fail(f"no Maloja venv at {python}: run scripts/test (ensure_maloja in scripts/lib/common.sh)")
    return python


def random_string(length):
    return "".join(secrets.choice(ALPHANUMERIC) for _ in range(length))


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except FileNotFoundError:
        return None


def write(path, text, mode=0o600):
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def secret(path, length):
    value = read(path)
    if not value:
        value = random_string(length)
        write(path, value + "\n")
    return value


def http(method, url, body=None, headers=None, timeout=5):
    """(status, text) of one request; (None, reason) when nothing answered."""
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, OSError) as e:
        return None, str(e)


def port_open(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def our_process(pid, base):
    """Whether pid is alive and is a Maloja started on base (never another process). Maloja
    renames itself to "maloja" (setproctitle, which also overwrites /proc/PID/environ); it runs
    in base, where start put it."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return False
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False
    return b"maloja" in cmdline and cwd == os.path.realpath(base)


def state(base):
    text = read(os.path.join(base, "maloja.json"))
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def prepare(base, port):
    """The data folder, settings, API key and password; returns (data_dir, apikey, password)."""
    data_dir = os.path.join(base, "data")
    os.makedirs(data_dir, exist_ok=True)
    apikey = secret(os.path.join(base, "apikey"), 64)
    password = secret(os.path.join(base, "password"), 32)

    # Maloja's key store (doreah's KeyStore): YAML, client name -> key. Written before the first
    # start, so Maloja's setup does not make a key of its own; DIR/apikey is the only key.
    keys_file = os.path.join(data_dir, "apikeys.yml")
    if apikey not in (read(keys_file) or ""):
        write(keys_file, f"pacenote: '{apikey}'\n")

    settings_file = os.path.join(data_dir, "settings.ini")
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(settings_file)
    if "MALOJA" not in ini:
        ini["MALOJA"] = {}
    ini["MALOJA"].update(SETTINGS)
    ini["MALOJA"]["host"] = "127.0.0.1"
    ini["MALOJA"]["port"] = str(port)
    with open(settings_file, "w") as f:
        ini.write(f)
    return data_dir, apikey, password


def server_ready(port):
    status, text = http("GET", f"http://127.0.0.1:{port}/apis/mlj_1/serverinfo", timeout=2)
    if status != 200:
        return False
    try:
        db = json.loads(text)["db_status"]
        return bool(db["healthy"] and db["complete"])
    except (ValueError, KeyError, TypeError):
        return False


def start(args):
    base = os.path.abspath(args.dir)
    os.makedirs(base, exist_ok=True)
    running = state(base)
    if running and our_process(running["pid"], base):
        if running["port"] == args.port and server_ready(args.port):
            print(json.dumps({"pid": running["pid"], "apikey": read(os.path.join(base, "apikey")), "port": args.port}))
            return
        stop_pid(base, running["pid"], running["port"], args.timeout)
    if port_open(args.port):
        fail(f"port {args.port} is already taken on 127.0.0.1")

    data_dir, apikey, password = prepare(base, args.port)
    python = maloja_python()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALOJA_")}
    env.update({
        "MALOJA_DATA_DIRECTORY": data_dir,
        "MALOJA_SKIP_SETUP": "yes",
        "MALOJA_FORCE_PASSWORD": password,
        "MALOJA_HOST": "127.0.0.1",
        "MALOJA_PORT": str(args.port),
        "MALOJA_CLEAN_OUTPUT": "yes",
    })
    # Its own session (and so process group); stdin closed, so a question would end it at once
    # instead of hanging. -I: nothing from DIR or PYTHON* variables on its path; -u: unbuffered log.
    log = open(os.path.join(base, "maloja.log"), "ab")
    log.write(f"\n=== maloja_server.py start {time.strftime('%Y-%m-%d %H:%M:%S')} port {args.port}\n".encode())
    log.flush()
    process = subprocess.Popen(
        [python, "-I", "-u", "-m", "maloja", "run"],
        cwd=base, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)
    log.close()
    write(os.path.join(base, "maloja.json"), json.dumps({"pid": process.pid, "port": args.port}) + "\n", 0o644)

    deadline = time.monotonic() + args.timeout
    while not server_ready(args.port):
        if process.poll() is not None:
            os.remove(os.path.join(base, "maloja.json"))
            fail(f"Maloja exited with {process.returncode} before it answered; see {base}/maloja.log:\n"
                 + tail(os.path.join(base, "maloja.log")))
        if time.monotonic() > deadline:
            stop_pid(base, process.pid, args.port, 10)
            fail(f"Maloja did not answer on port {args.port} within {args.timeout}s; see {base}/maloja.log:\n"
                 + tail(os.path.join(base, "maloja.log")))
        time.sleep(0.1)
    print(json.dumps({"pid": process.pid, "apikey": apikey, "port": args.port}))


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def stop_pid(base, pid, port, timeout):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not our_process(pid, base):
            break
        try:
            os.killpg(pid, sig)  # its own process group: start_new_session
        except ProcessLookupError:
            break
        deadline = time.monotonic() + timeout
        while our_process(pid, base) and time.monotonic() < deadline:
            time.sleep(0.1)
    if our_process(pid, base):
        fail(f"Maloja (pid {pid}) is still running after SIGKILL")
    try:
        os.waitpid(pid, os.WNOHANG)  # only reaps when this process started it
    except ChildProcessError:
        pass
    deadline = time.monotonic() + timeout
    while port and port_open(port):
        if time.monotonic() > deadline:
            fail(f"port {port} is still taken after Maloja stopped")
        time.sleep(0.1)
    try:
        os.remove(os.path.join(base, "maloja.json"))
    except FileNotFoundError:
        pass


def stop(args):
    base = os.path.abspath(args.dir)
    running = state(base)
    if running:
        stop_pid(base, running["pid"], running["port"], args.timeout)


def scrobbles(args):
    # from/to: without them Maloja lists only scrobbles from its 'first scrobble' (fixed when
    # it started) to the end of today, and misses older or later ones sent since.
    status, text = http("GET", f"http://127.0.0.1:{args.port}/apis/mlj_1/scrobbles?from=1970&to=2999")
    if status != 200:
        fail(f"GET /apis/mlj_1/scrobbles answered {status}: {text}")
    plays = [{
        "time": s["time"],
        "artists": s["track"]["artists"],
        "title": s["track"]["title"],
        "album": (s["track"].get("album") or {}).get("albumtitle"),
    } for s in json.loads(text)["list"]]
    plays.sort(key=lambda p: p["time"])
    print(json.dumps(plays))


def check(args):
    """Both APIs take the key (and reject a wrong one), without scrobbling anything."""
    key = read(os.path.join(os.path.abspath(args.dir), "apikey"))
    base = f"http://127.0.0.1:{args.port}/apis"
    out = {}
    for name, token in (("listenbrainz", key), ("listenbrainz_wrong_key", "wrong")):
        out[name] = http("GET", base + "/listenbrainz/1/validate-token", headers={"Authorization": "Token " + token})
    for name, password in (("audioscrobbler", key), ("audioscrobbler_wrong_key", "wrong")):
        body = urllib.parse.urlencode({"method": "auth.getMobileSession", "username": "pacenote",
                                       "password": password, "format": "json"}).encode()
        out[name] = http("POST", base + "/audioscrobbler/2.0/", body=body)
    print(json.dumps({k: {"status": s, "body": b} for k, (s, b) in out.items()}))
    if out["listenbrainz"][0] != 200 or out["audioscrobbler"][0] != 200:
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, needs_port, timeout in (("start", True, 60), ("stop", False, 10),
                                      ("scrobbles", True, 0), ("check", True, 0)):
        command = commands.add_parser(name)
        command.add_argument("--dir", required=True)
        if needs_port:
            command.add_argument("--port", type=int, required=True)
        if timeout:
            command.add_argument("--timeout", type=float, default=timeout)
    args = parser.parse_args()
    {"start": start, "stop": stop, "scrobbles": scrobbles, "check": check}[args.command](args)


if __name__ == "__main__":
    main()
