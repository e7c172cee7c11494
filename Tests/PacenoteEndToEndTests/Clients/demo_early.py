#!/usr/bin/env python3
"""The first part of DemoTenMinutesTests, started by scripts/test as soon as the debug
`pacenote` exists, before the tests are built: the ten minutes are most of the run, and
they need only the binary, MPD and Chromium. It does what the test does when it starts the
demo itself: `pacenote demo --http 127.0.0.1:0 --mpd-port PORT` with standard output a
pipe (read as it comes) and standard error in a file, then demo_browser.py against the
address the demo announces. The test (PACENOTE_DEMO_EARLY=DIR) reads the results from DIR,
checks the rest against the demo still running, and stops it with SIGTERM.

Files in DIR: pid, mpd-port, stdout (as it comes), stderr; browser.status, browser.stdout
and browser.stderr once the browser is done; exit-status once the demo exits.

Usage: demo_early.py DIR PACENOTE_BINARY ARTIFACTS_DIR MINUTES"""
import itertools
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time

directory, binary, artifacts, minutes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(directory, exist_ok=True)


def path(name):
    return os.path.join(directory, name)


def write(name, text):
    with open(path(name) + ".part", "w") as f:
        f.write(text)
    os.replace(path(name) + ".part", path(name))  # whole or absent: the test polls for it


def free_port():
    """A port below the kernel's ephemeral range, as the tests' Ports.free() hands out."""
    try:
        low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(1000):
        port = random.randrange(10000, max(low, 11000))
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                s.listen(1)
                return port
            except OSError:
                continue
    sys.exit("no free port")


home = path("home")
os.makedirs(home, exist_ok=True)
# Without the developer's own MPD or Pacenote settings (PacenoteProcess.cleanEnvironment).
env = {k: v for k, v in os.environ.items() if not k.startswith(("MPD_", "PACENOTE_", "XDG_"))}
env["HOME"] = home
mpd_port = free_port()
with open(path("stderr"), "wb") as err:
    demo = subprocess.Popen([binary, "demo", "--http", "127.0.0.1:0", "--mpd-port", str(mpd_port)], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
# scripts/test's exit (a failed build, say) stops the launcher: the demo goes with it.
signal.signal(signal.SIGTERM, lambda *_: (demo.terminate(), sys.exit(1)))
write("mpd-port", str(mpd_port))
write("pid", str(demo.pid))
out = open(path("stdout"), "wb")


def copy_output():
    while True:
        chunk = demo.stdout.read1(65536)
        if not chunk:
            break
        out.write(chunk)
        out.flush()


reader = threading.Thread(target=copy_output, daemon=True)
reader.start()

# The address comes first, while the demo runs (the test checks the line itself).
deadline = time.time() + 120
banner = ""
while time.time() < deadline and demo.poll() is None:
    text = open(path("stdout"), encoding="utf-8", errors="replace").read()
    if "\n" in text:
        banner = text.split("\n")[0]
        break
    time.sleep(0.05)
base = "http://127.0.0.1:" + "".join(itertools.takewhile(str.isdigit, banner.partition("http://127.0.0.1:")[2]))
if not banner or demo.poll() is not None:
    write("browser.stdout", "")
    write("browser.stderr", f"the demo announced no address within 120 s (first line: {banner!r})")
    write("browser.status", "-1")
else:
    browser = subprocess.run([sys.executable, os.path.join(here, "demo_browser.py"), base, artifacts, minutes],
                             capture_output=True, text=True)
    write("browser.stdout", browser.stdout)
    write("browser.stderr", browser.stderr)
    write("browser.status", str(browser.returncode))

# The test stops the demo; if it never comes (it failed to build or crashed), do not leave
# a demo running: SIGTERM after 20 minutes.
try:
    status = demo.wait(timeout=20 * 60)
except subprocess.TimeoutExpired:
    demo.terminate()
    status = demo.wait()
reader.join(timeout=5)
out.close()
write("exit-status", str(status))
