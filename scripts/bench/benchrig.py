"""Shared set-up for Pacenote's benchmarks: a private MPD with generated tracks and a
release build of pacenote, both on loopback, cleaned up on exit."""
import atexit, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    sys.exit(f"nothing listens on {port}")


HISTORY = """
PRAGMA journal_mode = WAL;
BEGIN;
-- 2,000 artists and 4,000 albums as entities (what saveTrack files tracks under), then
-- 20,000 tracks each credited to its artist.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999)
INSERT INTO artists (id, name, name_key, created_at_ms) SELECT i + 1, 'Artist ' || i, 'artist ' || i, 0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 3999)
INSERT INTO albums (id, title, artist, album_key, created_at_ms)
SELECT i + 1, 'Album ' || i, 'Artist ' || (i % 2000), 't:album ' || i || char(31) || 'artist ' || (i % 2000), 0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO tracks (id, uri, title, artist, album, album_artist, duration_s, match_key, first_seen_at_ms, updated_at_ms, album_id)
SELECT i, 'lib/' || (i % 2000) || '/' || i || '.flac', 'Track ' || i, 'Artist ' || (i % 2000), 'Album ' || (i % 4000),
       'Artist ' || (i % 2000), 120 + i % 240, 'artist ' || (i % 2000) || char(31) || 'track ' || i, 0, 0, (i % 4000) + 1 FROM n;
INSERT INTO track_artists (track_id, position, name, role, listed, artist_id)
SELECT id, 0, artist, 'primary', 0, (id % 2000) + 1 FROM tracks;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {plays} - 1)
INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, player, local_day, local_hour)
SELECT 1 + (abs(random()) % 20000) * (abs(random()) % 3 + 1) % 20000,
       ({start} + i * {step}) * 1000, ({start} + i * {step} + 180) * 1000, 180, (i % 7 != 0), 'mpd', 'default',
       date({start} + i * {step}, 'unixepoch'), CAST(strftime('%H', {start} + i * {step}, 'unixepoch') AS INTEGER)
FROM n;
INSERT INTO meta (key, value) VALUES ('rollup_timezone', 'GMT') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
-- 200 workouts of 45 minutes over the last 200 days, a heart-rate sample every 5 s.
WITH RECURSIVE w(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM w WHERE i < 200)
INSERT INTO workouts (id, started_at_ms, ended_at_ms, kind, hr_avg, hr_max, z2_s, z3_s, z4_s)
SELECT i, ({end} - i * 86400) * 1000, ({end} - i * 86400 + 2700) * 1000, 'auto', 140, 172, 900, 1200, 600 FROM w;
WITH RECURSIVE s(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM s WHERE j < 539)
INSERT INTO hr_samples (source, at_ms, bpm)
SELECT 'bench', (w.started_at_ms + s.j * 5000), 110 + (s.j % 120) / 2 + (abs(random()) % 8) FROM workouts w, s;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
"""


def history_database(binary, db, plays, years=5):
    """A database with `plays` plays spread over `years` years up to now (20,000 tracks, a
    counted play 6 times in 7), and 200 workouts with heart rate in the last 200 days."""
    subprocess.run([binary, "migrate", "--db", db], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PACENOTE_TIMEZONE": "UTC"})
    end = int(time.time()) - 3600
    step = (years * 365 * 86400) // plays
    start = end - plays * step
    t0 = time.time()
    subprocess.run(["sqlite3", db], input=HISTORY.format(plays=plays, start=start, step=step, end=end), text=True,
                   check=True, stdout=subprocess.DEVNULL)
    print(f"generated {plays:,} plays over {years} years and 200 workouts in {time.time() - t0:.1f} s")


def release_binary():
    # PACENOTE_SCRATCH_PATH: build elsewhere than .build (several worktrees on one machine).
    scratch = os.environ.get("PACENOTE_SCRATCH_PATH", ".build")
    subprocess.run(["swift", "build", "--scratch-path", scratch, "-c", "release", "--product", "pacenote", "--static-swift-stdlib"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, scratch, "release", "pacenote")


class MPD:
    """A private MPD on 127.0.0.1 with the null output playing in real time."""

    def __init__(self, music_setup, mixer="none"):
        self.dir = tempfile.mkdtemp(prefix="pacenote-bench-mpd-")
        atexit.register(shutil.rmtree, self.dir, True)
        self.music = os.path.join(self.dir, "music")
        os.makedirs(self.music)
        os.makedirs(os.path.join(self.dir, "playlists"))
        music_setup(self.music)
        self.port = free_port()
        conf = os.path.join(self.dir, "mpd.conf")
        with open(conf, "w") as f:
            f.write(f'''music_directory "{self.music}"
db_file "{self.dir}/database"
state_file "{self.dir}/state"
sticker_file "{self.dir}/sticker.sql"
playlist_directory "{self.dir}/playlists"
log_file "{self.dir}/mpd.log"
bind_to_address "127.0.0.1"
port "{self.port}"
auto_update "no"
audio_output {{
  type "null"
  name "null"
  sync "yes"
  mixer_type "{mixer}"
}}
''')
        self.proc = subprocess.Popen(["mpd", "--no-daemon", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        atexit.register(self.stop)
        wait_port(self.port)
        self.mpc("--wait", "update")

    def mpc(self, *args):
        return subprocess.run(["mpc", "--host", "127.0.0.1", "--port", str(self.port), *args], check=True,
                              stdout=subprocess.PIPE, text=True).stdout

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.port))
        f = s.makefile("rwb", buffering=0)
        f.readline()  # OK MPD version
        return s, f

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


def make_track(path, seconds, tags):
    args = ["sox", "-n", "-r", "44100", "-c", "2"]
    for k, v in tags.items():
        args += ["--add-comment", f"{k}={v}"]
    subprocess.run(args + [path, "synth", str(seconds), "sine", "440"], check=True)


class Pacenote:
    """`pacenote serve` (release build) following `mpd`, with its own database."""

    def __init__(self, binary, mpd, config="", log_level="info"):
        self.dir = tempfile.mkdtemp(prefix="pacenote-bench-")
        atexit.register(shutil.rmtree, self.dir, True)
        self.db = os.path.join(self.dir, "pacenote.sqlite")
        self.config = os.path.join(self.dir, "config.toml")
        with open(self.config, "w") as f:
            f.write(config)
        self.stderr_path = os.path.join(self.dir, "stderr.log")
        self.binary, self.mpd, self.log_level = binary, mpd, log_level
        self.start()

    def start(self):
        self.http_port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MPD_", "PACENOTE_"))}
        env["PACENOTE_BACKUP_INTERVAL"] = "off"  # no backup mid-measurement
        self.stderr = open(self.stderr_path, "a")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--config", self.config, "--db", self.db, "--http", f"127.0.0.1:{self.http_port}",
             "--mpd", f"127.0.0.1:{self.mpd.port}", "--log-level", self.log_level],
            env=env, stdout=subprocess.DEVNULL, stderr=self.stderr)
        atexit.register(self.stop)
        wait_port(self.http_port)

    def log(self):
        with open(self.stderr_path) as f:
            return f.read()

    def wait_log(self, pattern, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(pattern, self.log())
            if m:
                return m
            time.sleep(0.05)
        sys.exit(f"pacenote never logged {pattern!r}:\n{self.log()}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait()
