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


def release_binary():
    # PACENOTE_SCRATCH_PATH: build elsewhere than .build (several worktrees on one machine).
    scratch = os.environ.get("PACENOTE_SCRATCH_PATH", ".build")
    subprocess.run(["swift", "build", "--scratch-path", scratch, "-c", "release", "--product", "pacenote", "--static-swift-stdlib"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, scratch, "release", "pacenote")


class MPD:
    """A private MPD on 127.0.0.1 with the null output playing in real time."""

    def __init__(self, music_setup):
        self.dir = tempfile.mkdtemp(prefix="pacenote-bench-mpd-")
        atexit.register(shutil.rmtree, self.dir, True)
        self.music = os.path.join(self.dir, "music")
        os.makedirs(self.music)
        music_setup(self.music)
        self.port = free_port()
        conf = os.path.join(self.dir, "mpd.conf")
        with open(conf, "w") as f:
            f.write(f'''music_directory "{self.music}"
db_file "{self.dir}/database"
state_file "{self.dir}/state"
sticker_file "{self.dir}/sticker.sql"
log_file "{self.dir}/mpd.log"
bind_to_address "127.0.0.1"
port "{self.port}"
auto_update "no"
audio_output {{
  type "null"
  name "null"
  sync "yes"
  mixer_type "none"
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
