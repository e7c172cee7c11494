#!/usr/bin/env python3
"""The daemon's side of tempo-matched playback (issue 56), for scripts/bench/tempo: a private
MPD with SONG (tagged 120 bpm) and a song playing; `pacenote serve` with [tempo] on and its
cache in a folder of MPD's library; the song queued in cadence mode at 126 steps a minute
(+5 %): how long until its copy takes its place in MPD's queue, and the daemon's resident set
before and at its peak (VmHWM) while it renders. Target: peak <= 150 MiB.

Usage: tempo_daemon.py SONG BINARY QUALITY"""
import json, os, shutil, sqlite3, subprocess, sys, time, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchrig

song, binary, quality = sys.argv[1], sys.argv[2], sys.argv[3]


def music(d):
    subprocess.run(["sox", song, "--add-comment", "BPM=120", "--add-comment", "TITLE=Bench Song", "--add-comment", "ARTIST=Bench",
                    os.path.join(d, "song.flac")], check=True)
    benchrig.make_track(os.path.join(d, "now.flac"), 600, {"TITLE": "Opener", "ARTIST": "Bench"})


mpd = benchrig.MPD(music)
cache = os.path.join(mpd.music, "pacenote-tempo")
pacenote = benchrig.Pacenote(binary, mpd, config=f'[mpd]\nmusic_directory = "{mpd.music}"\n\n[tempo]\nenabled = true\n'
                                                  f'cache_dir = "{cache}"\nquality = "{quality}"\n', log_level="info")
mpd.mpc("add", "now.flac")
mpd.mpc("play")
track = None
deadline = time.time() + 60
while track is None and time.time() < deadline:
    try:
        with sqlite3.connect(f"file:{pacenote.db}?mode=ro", uri=True) as db:
            track = db.execute("SELECT id FROM tracks WHERE uri = 'song.flac' AND bpm IS NOT NULL").fetchone()
    except sqlite3.Error:
        pass
    time.sleep(0.2)
if track is None:
    sys.exit(f"the song was never mirrored with its BPM:\n{pacenote.log()}")
key = open(os.path.join(pacenote.dir, "api-key")).read().strip()
base = f"http://127.0.0.1:{pacenote.http_port}"


def api(method, path, body=None):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": "Token " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def memory(field):
    with open(f"/proc/{pacenote.proc.pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024


idle = memory("VmRSS")
started = time.time()
queued = api("POST", "/api/v1/queue", {"track_id": track[0], "mode": "cadence", "cadence": 126})
render = {}
while time.time() - started < 600:
    render = api("GET", "/api/v1/tempo")["renders"][0]
    if render["state"] != "rendering":
        break
    time.sleep(0.1)
ready = time.time() - started
peak = memory("VmHWM")
playlist = mpd.mpc("-f", "%file%", "playlist").split()
print(json.dumps({"quality": quality, "state": render.get("state"), "reason": render.get("reason"), "ratio": queued["tempo"]["ratio"],
                  "ready_s": round(ready, 2), "render_s": render.get("render_s"), "idle_rss_mib": round(idle, 1),
                  "peak_rss_mib": round(peak, 1), "queued": playlist[1] if len(playlist) > 1 else None}))
