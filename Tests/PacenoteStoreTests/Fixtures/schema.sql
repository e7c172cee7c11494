index forward_outbox_play forward_outbox
CREATE INDEX forward_outbox_play ON forward_outbox(play_id)
index friend_songs_latest friend_songs
CREATE INDEX friend_songs_latest ON friend_songs(friend_id, day, updated_at_ms)
index hidden_plays_identity hidden_plays
CREATE UNIQUE INDEX hidden_plays_identity ON hidden_plays(track_id, started_at_ms)
index hidden_plays_started hidden_plays
CREATE INDEX hidden_plays_started ON hidden_plays(started_at_ms)
index hr_samples_at hr_samples
CREATE INDEX hr_samples_at ON hr_samples(at_ms)
index library_files_track library_files
CREATE INDEX library_files_track ON library_files(track_id)
index plays_identity plays
CREATE UNIQUE INDEX plays_identity ON plays(track_id, started_at_ms)
index plays_started plays
CREATE INDEX plays_started ON plays(started_at_ms)
index plays_workout plays
CREATE INDEX plays_workout ON plays(workout_id) WHERE workout_id IS NOT NULL
index plays_zoned plays
CREATE INDEX plays_zoned ON plays(track_id, zone, counted) WHERE zone IS NOT NULL
index plays_zoned_by_day plays
CREATE INDEX plays_zoned_by_day ON plays(local_day, zone, track_id, counted, played_s) WHERE zone IS NOT NULL
index rollup_album_total_by_time rollup_album_total
CREATE INDEX rollup_album_total_by_time ON rollup_album_total(played_s DESC, plays DESC)
index rollup_album_total_top rollup_album_total
CREATE INDEX rollup_album_total_top ON rollup_album_total(plays DESC, played_s DESC)
index rollup_artist_total_by_time rollup_artist_total
CREATE INDEX rollup_artist_total_by_time ON rollup_artist_total(played_s DESC, plays DESC)
index rollup_artist_total_top rollup_artist_total
CREATE INDEX rollup_artist_total_top ON rollup_artist_total(plays DESC, played_s DESC)
index rollup_day_album_top rollup_day_album
CREATE INDEX rollup_day_album_top ON rollup_day_album(day, plays DESC, played_s DESC) WHERE plays >= 3
index rollup_day_artist_top rollup_day_artist
CREATE INDEX rollup_day_artist_top ON rollup_day_artist(day, plays DESC, played_s DESC) WHERE plays >= 3
index rollup_day_track_top rollup_day_track
CREATE INDEX rollup_day_track_top ON rollup_day_track(day, plays DESC, played_s DESC) WHERE plays >= 3
index rollup_month_album_by_time rollup_month_album
CREATE INDEX rollup_month_album_by_time ON rollup_month_album(month, played_s DESC, plays DESC) WHERE played_s >= 600
index rollup_month_album_top rollup_month_album
CREATE INDEX rollup_month_album_top ON rollup_month_album(month, plays DESC, played_s DESC) WHERE plays >= 2
index rollup_month_artist_by_time rollup_month_artist
CREATE INDEX rollup_month_artist_by_time ON rollup_month_artist(month, played_s DESC, plays DESC) WHERE played_s >= 600
index rollup_month_artist_top rollup_month_artist
CREATE INDEX rollup_month_artist_top ON rollup_month_artist(month, plays DESC, played_s DESC) WHERE plays >= 2
index rollup_month_track_by_time rollup_month_track
CREATE INDEX rollup_month_track_by_time ON rollup_month_track(month, played_s DESC, plays DESC) WHERE played_s >= 600
index rollup_month_track_top rollup_month_track
CREATE INDEX rollup_month_track_top ON rollup_month_track(month, plays DESC, played_s DESC) WHERE plays >= 2
index rollup_track_first_day rollup_track_first
CREATE INDEX rollup_track_first_day ON rollup_track_first(day)
index rollup_track_total_by_time rollup_track_total
CREATE INDEX rollup_track_total_by_time ON rollup_track_total(played_s DESC, plays DESC)
index rollup_track_total_top rollup_track_total
CREATE INDEX rollup_track_total_top ON rollup_track_total(plays DESC, played_s DESC)
index rollup_year_album_by_time rollup_year_album
CREATE INDEX rollup_year_album_by_time ON rollup_year_album(year, played_s DESC, plays DESC) WHERE played_s >= 600
index rollup_year_album_skipped rollup_year_album
CREATE INDEX rollup_year_album_skipped ON rollup_year_album(year) WHERE plays <= 0
index rollup_year_album_top rollup_year_album
CREATE INDEX rollup_year_album_top ON rollup_year_album(year, plays DESC, played_s DESC) WHERE plays >= 2
index rollup_year_artist_by_time rollup_year_artist
CREATE INDEX rollup_year_artist_by_time ON rollup_year_artist(year, played_s DESC, plays DESC) WHERE played_s >= 600
index rollup_year_artist_skipped rollup_year_artist
CREATE INDEX rollup_year_artist_skipped ON rollup_year_artist(year) WHERE plays <= 0
index rollup_year_artist_top rollup_year_artist
CREATE INDEX rollup_year_artist_top ON rollup_year_artist(year, plays DESC, played_s DESC) WHERE plays >= 2
index rollup_year_track_by_time rollup_year_track
CREATE INDEX rollup_year_track_by_time ON rollup_year_track(year, played_s DESC, plays DESC) WHERE played_s >= 600
index rollup_year_track_skipped rollup_year_track
CREATE INDEX rollup_year_track_skipped ON rollup_year_track(year) WHERE plays <= 0
index rollup_year_track_top rollup_year_track
CREATE INDEX rollup_year_track_top ON rollup_year_track(year, plays DESC, played_s DESC) WHERE plays >= 2
index scrobble_sessions_key scrobble_sessions
CREATE INDEX scrobble_sessions_key ON scrobble_sessions(key_sha256)
index scrobble_tokens_used_key scrobble_tokens_used
CREATE INDEX scrobble_tokens_used_key ON scrobble_tokens_used(key_sha256)
index track_artists_artist track_artists
CREATE INDEX track_artists_artist ON track_artists(artist_id)
index tracks_album tracks
CREATE INDEX tracks_album ON tracks(album COLLATE NOCASE)
index tracks_album_id tracks
CREATE INDEX tracks_album_id ON tracks(album_id) WHERE album_id IS NOT NULL
index tracks_artist tracks
CREATE INDEX tracks_artist ON tracks(artist COLLATE NOCASE)
index tracks_match_key tracks
CREATE INDEX tracks_match_key ON tracks(match_key)
index tracks_mb_recording tracks
CREATE INDEX tracks_mb_recording ON tracks(mb_recording_id) WHERE mb_recording_id IS NOT NULL
index workouts_started workouts
CREATE INDEX workouts_started ON workouts(started_at_ms)
table albums albums
CREATE TABLE albums (
  id            INTEGER PRIMARY KEY,
  title         TEXT NOT NULL,
  artist        TEXT,
  mb_release_id TEXT,
  album_key     TEXT NOT NULL UNIQUE,       -- EntityKey.album
  created_at_ms INTEGER NOT NULL
, merged_into INTEGER REFERENCES albums(id))
table api_keys api_keys
CREATE TABLE api_keys (
  id              INTEGER PRIMARY KEY,
  name            TEXT NOT NULL UNIQUE,
  key_hash        TEXT NOT NULL UNIQUE,
  key_prefix      TEXT NOT NULL,
  scopes          TEXT NOT NULL DEFAULT 'write',
  created_at_ms   INTEGER NOT NULL,
  last_used_at_ms INTEGER,
  revoked_at_ms   INTEGER
, key_md5 TEXT, key_md5_sealed TEXT)
table artists artists
CREATE TABLE artists (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL,              -- as first credited
  name_key      TEXT NOT NULL UNIQUE,       -- EntityKey.artist: case and white space folded
  mbid          TEXT,                       -- MusicBrainz artist id, when a source gave one
  created_at_ms INTEGER NOT NULL
, merged_into INTEGER REFERENCES artists(id))
table curation_log curation_log
CREATE TABLE curation_log (
  id           INTEGER PRIMARY KEY,
  at_ms        INTEGER NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('delete', 'edit', 'add', 'merge', 'rule')),
  summary      TEXT NOT NULL,             -- one line for people: 'Merged artist 4 into 2'
  request_json TEXT NOT NULL,             -- what was asked, as the API takes it
  undo_json    TEXT NOT NULL,             -- what undoing it needs (CurationUndo)
  touches      TEXT NOT NULL,             -- ' play:1 track:2 artist:3 ': what a later entry may depend on
  source       TEXT NOT NULL,             -- 'api', 'site', 'listenbrainz', 'cli'
  undone_at_ms INTEGER
)
table curation_rules curation_rules
CREATE TABLE curation_rules (
  id            INTEGER PRIMARY KEY,
  position      INTEGER NOT NULL,           -- the order among rules of one origin
  action        TEXT NOT NULL CHECK (action IN ('ignore', 'hide', 'rewrite')),
  field         TEXT NOT NULL CHECK (field IN ('artist', 'album', 'title', 'genre', 'path', 'stream', 'duration')),
  match         TEXT NOT NULL CHECK (match IN ('equals', 'prefix', 'contains', 'regex', 'shorter_than')),
  value         TEXT NOT NULL,
  replacement   TEXT,
  enabled       INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  from_config   INTEGER NOT NULL DEFAULT 0 CHECK (from_config IN (0, 1)),  -- `[[rules]]`, replaced at each start
  created_at_ms INTEGER NOT NULL
)
table forward_outbox forward_outbox
CREATE TABLE forward_outbox (
  target_id    INTEGER NOT NULL REFERENCES forward_targets(id) ON DELETE CASCADE,
  play_id      INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
  queued_at_ms INTEGER NOT NULL,
  attempts     INTEGER NOT NULL DEFAULT 0,
  parked_at_ms INTEGER,
  reason       TEXT,
  PRIMARY KEY (target_id, play_id)
) WITHOUT ROWID
table forward_sent forward_sent
CREATE TABLE forward_sent (
  target_id INTEGER NOT NULL,
  play_id   INTEGER NOT NULL,
  PRIMARY KEY (target_id, play_id)
) WITHOUT ROWID
table forward_targets forward_targets
CREATE TABLE forward_targets (
  id                 INTEGER PRIMARY KEY,
  name               TEXT NOT NULL UNIQUE,
  kind               TEXT NOT NULL CHECK (kind IN ('listenbrainz', 'lastfm')),
  url                TEXT NOT NULL,
  active             INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),  -- in the configuration now
  sources            TEXT,          -- char(31)-wrapped list of the sources it takes; NULL: all
  players            TEXT,          -- likewise players; NULL: all
  session_key        TEXT,          -- lastfm: from `pacenote forward login`
  session_user       TEXT,
  queued             INTEGER NOT NULL DEFAULT 0,  -- kept by the outbox's triggers
  parked             INTEGER NOT NULL DEFAULT 0,
  sent               INTEGER NOT NULL DEFAULT 0,
  last_success_at_ms INTEGER,
  last_error         TEXT,
  last_error_at_ms   INTEGER,
  created_at_ms      INTEGER NOT NULL
)
table friend_songs friend_songs
CREATE TABLE friend_songs (
  id             INTEGER PRIMARY KEY,
  friend_id      INTEGER NOT NULL REFERENCES friends(id) ON DELETE CASCADE,
  entry_id       TEXT NOT NULL,               -- the feed entry's id: one per day
  day            TEXT,                        -- the friend's local day, YYYY-MM-DD
  updated_at_ms  INTEGER,
  title          TEXT NOT NULL,
  artist         TEXT,
  link           TEXT,                        -- the friend's share page
  cover_url      TEXT,
  note           TEXT,
  cover          BLOB,                        -- a copy of cover_url's picture
  cover_type     TEXT,
  seen_at_ms     INTEGER NOT NULL,
  UNIQUE (friend_id, entry_id)
)
table friends friends
CREATE TABLE friends (
  id                INTEGER PRIMARY KEY,
  name              TEXT NOT NULL,
  url               TEXT NOT NULL UNIQUE,     -- as given: a feed, or a page naming one
  added_by          TEXT NOT NULL CHECK (added_by IN ('config', 'site')),
  feed_url          TEXT,                     -- the feed found from url (a page's link, a permanent redirect)
  etag              TEXT,
  last_modified     TEXT,
  last_polled_at_ms INTEGER,
  last_ok_at_ms     INTEGER,
  last_error        TEXT,
  failures          INTEGER NOT NULL DEFAULT 0,  -- in a row: the backoff grows with them
  next_poll_at_ms   INTEGER,                  -- NULL: as soon as the poller runs
  created_at_ms     INTEGER NOT NULL
)
table grdb_migrations grdb_migrations
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)
table hidden_plays hidden_plays
CREATE TABLE hidden_plays (
  id            INTEGER PRIMARY KEY,
  track_id      INTEGER NOT NULL REFERENCES tracks(id) ON DELETE RESTRICT,
  started_at_ms INTEGER NOT NULL,
  ended_at_ms   INTEGER NOT NULL,
  played_s      REAL NOT NULL CHECK (played_s >= 0),
  counted       INTEGER NOT NULL CHECK (counted IN (0, 1)),
  source        TEXT NOT NULL,
  player        TEXT,
  hr_avg        REAL,
  hr_max        INTEGER,
  zone          INTEGER CHECK (zone BETWEEN 0 AND 5),
  workout_id    INTEGER REFERENCES workouts(id) ON DELETE SET NULL,
  local_day     TEXT NOT NULL,
  local_hour    INTEGER NOT NULL CHECK (local_hour BETWEEN 0 AND 23),
  CHECK (ended_at_ms >= started_at_ms)
)
table hr_samples hr_samples
CREATE TABLE hr_samples (
  source TEXT NOT NULL,                     -- 'http:<key name>', 'feed', 'ble', …
  at_ms  INTEGER NOT NULL,
  bpm    INTEGER NOT NULL CHECK (bpm BETWEEN 25 AND 250),
  rr_ms  TEXT,                              -- RR intervals in ms, JSON array
  PRIMARY KEY (source, at_ms)
) WITHOUT ROWID
table library_files library_files
CREATE TABLE library_files (
  player         TEXT NOT NULL,
  track_id       INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
  modified_at_ms INTEGER NOT NULL,          -- MPD's Last-Modified; -1 until its tags are read
  PRIMARY KEY (player, track_id)
) WITHOUT ROWID
table meta meta
CREATE TABLE meta (
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) WITHOUT ROWID
table open_plays open_plays
CREATE TABLE open_plays (
  player        TEXT PRIMARY KEY NOT NULL,
  track_id      INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
  song_uri      TEXT NOT NULL,              -- MPD's URI (a stream URL for streams)
  song_json     TEXT NOT NULL,              -- the song's tags and duration, to resume exactly
  mpd_song_id   INTEGER,
  started_at_ms INTEGER NOT NULL,
  played_s      REAL NOT NULL DEFAULT 0 CHECK (played_s >= 0),
  state         TEXT NOT NULL CHECK (state IN ('play', 'pause')),
  position_s    REAL,                       -- elapsed time in the song when saved
  saved_at_ms   INTEGER NOT NULL,
  lost_at_ms    INTEGER                     -- when the player was lost from sight, if it was
) WITHOUT ROWID
table plays plays
CREATE TABLE plays (
  id            INTEGER PRIMARY KEY,
  track_id      INTEGER NOT NULL REFERENCES tracks(id) ON DELETE RESTRICT,
  started_at_ms INTEGER NOT NULL,           -- when playback of this play began
  ended_at_ms   INTEGER NOT NULL,
  played_s      REAL NOT NULL CHECK (played_s >= 0),  -- real playing time, pauses excluded
  counted       INTEGER NOT NULL CHECK (counted IN (0, 1)),  -- 0: a skip
  source        TEXT NOT NULL,              -- 'mpd', 'listenbrainz', 'import:lastfm', …
  player        TEXT,                       -- the MPD (room) that played it
  hr_avg        REAL,
  hr_max        INTEGER,
  zone          INTEGER CHECK (zone BETWEEN 0 AND 5),
  workout_id    INTEGER REFERENCES workouts(id) ON DELETE SET NULL,
  local_day     TEXT NOT NULL,              -- 'YYYY-MM-DD' of started_at in meta.rollup_timezone
  local_hour    INTEGER NOT NULL CHECK (local_hour BETWEEN 0 AND 23),
  CHECK (ended_at_ms >= started_at_ms)
)
table review_shares review_shares
CREATE TABLE review_shares (
  token         TEXT PRIMARY KEY NOT NULL,  -- random, in the public address
  range_from    TEXT NOT NULL,              -- the period's first day, YYYY-MM-DD
  range_to      TEXT NOT NULL,              -- its last (a year's 31 December while it is under way)
  sections      TEXT NOT NULL,              -- what it shows: ReviewSection names, comma-separated
  created_at_ms INTEGER NOT NULL
, snapshot_title       TEXT, snapshot_status      TEXT, snapshot_description TEXT, snapshot_html        BLOB, snapshot_card        BLOB, snapshot_at_ms       INTEGER) WITHOUT ROWID
table rollup_album_total rollup_album_total
CREATE TABLE rollup_album_total (
  album_id INTEGER NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (album_id)
) WITHOUT ROWID
table rollup_artist_total rollup_artist_total
CREATE TABLE rollup_artist_total (
  artist_id INTEGER NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (artist_id)
) WITHOUT ROWID
table rollup_day_album rollup_day_album
CREATE TABLE rollup_day_album (
  day      TEXT NOT NULL,
  album_id INTEGER NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (day, album_id)
) WITHOUT ROWID
table rollup_day_artist rollup_day_artist
CREATE TABLE rollup_day_artist (
  day      TEXT NOT NULL,
  artist_id INTEGER NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (day, artist_id)
) WITHOUT ROWID
table rollup_day_hour rollup_day_hour
CREATE TABLE rollup_day_hour (
  day      TEXT NOT NULL,
  hour     INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (day, hour)
) WITHOUT ROWID
table rollup_day_total rollup_day_total
CREATE TABLE rollup_day_total (
  day      TEXT PRIMARY KEY NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL
) WITHOUT ROWID
table rollup_day_track rollup_day_track
CREATE TABLE rollup_day_track (
  day      TEXT NOT NULL,
  track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
  plays    INTEGER NOT NULL,                -- counted plays
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (day, track_id)
) WITHOUT ROWID
table rollup_month_album rollup_month_album
CREATE TABLE rollup_month_album (
  month    TEXT NOT NULL,
  album_id INTEGER NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL, first_half_plays INTEGER NOT NULL DEFAULT 0, first_half_played_s REAL NOT NULL DEFAULT 0.0,
  PRIMARY KEY (month, album_id)
) WITHOUT ROWID
table rollup_month_artist rollup_month_artist
CREATE TABLE rollup_month_artist (
  month    TEXT NOT NULL,
  artist_id INTEGER NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL, first_half_plays INTEGER NOT NULL DEFAULT 0, first_half_played_s REAL NOT NULL DEFAULT 0.0,
  PRIMARY KEY (month, artist_id)
) WITHOUT ROWID
table rollup_month_total rollup_month_total
CREATE TABLE rollup_month_total (
  month    TEXT PRIMARY KEY NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL
) WITHOUT ROWID
table rollup_month_track rollup_month_track
CREATE TABLE rollup_month_track (
  month    TEXT NOT NULL,                   -- 'YYYY-MM' of local_day
  track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL, first_half_plays INTEGER NOT NULL DEFAULT 0, first_half_played_s REAL NOT NULL DEFAULT 0.0,
  PRIMARY KEY (month, track_id)
) WITHOUT ROWID
table rollup_track_first rollup_track_first
CREATE TABLE rollup_track_first (
  track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
  day      TEXT NOT NULL                    -- local_day of the track's first counted play
)
table rollup_track_total rollup_track_total
CREATE TABLE rollup_track_total (
  track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL
)
table rollup_year_album rollup_year_album
CREATE TABLE rollup_year_album (
  year TEXT NOT NULL, album_id INTEGER NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (year, album_id)
) WITHOUT ROWID
table rollup_year_artist rollup_year_artist
CREATE TABLE rollup_year_artist (
  year TEXT NOT NULL, artist_id INTEGER NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (year, artist_id)
) WITHOUT ROWID
table rollup_year_charted rollup_year_charted
CREATE TABLE rollup_year_charted (
  year    TEXT NOT NULL,
  entity  TEXT NOT NULL CHECK (entity IN ('track', 'artist', 'album')),
  charted INTEGER NOT NULL,                 -- the year's rows of the entity with plays > 0
  PRIMARY KEY (year, entity)
) WITHOUT ROWID
table rollup_year_hour rollup_year_hour
CREATE TABLE rollup_year_hour (
  year     TEXT NOT NULL,
  hour     INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (year, hour)
) WITHOUT ROWID
table rollup_year_total rollup_year_total
CREATE TABLE rollup_year_total (
  year     TEXT PRIMARY KEY NOT NULL,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL
) WITHOUT ROWID
table rollup_year_track rollup_year_track
CREATE TABLE rollup_year_track (
  year     TEXT NOT NULL,                   -- 'YYYY' of local_day
  track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
  plays    INTEGER NOT NULL,
  skips    INTEGER NOT NULL,
  played_s REAL NOT NULL,
  PRIMARY KEY (year, track_id)
) WITHOUT ROWID
table scrobble_sessions scrobble_sessions
CREATE TABLE scrobble_sessions (
  session_key   TEXT PRIMARY KEY,
  key_sha256    TEXT NOT NULL,            -- the API key that opened it
  protocol      TEXT NOT NULL CHECK (protocol IN ('2.0', '1.2')),
  client        TEXT NOT NULL,            -- 1.2's client id, 2.0's api_key
  user_name     TEXT NOT NULL,            -- as the player sent it: names the player
  created_at_ms INTEGER NOT NULL
, last_used_at_ms INTEGER) WITHOUT ROWID
table scrobble_tokens_used scrobble_tokens_used
CREATE TABLE scrobble_tokens_used (
  token_id      TEXT PRIMARY KEY,        -- ScrobblerCredentials.tokenID: a hash, not the token
  key_sha256    TEXT NOT NULL,           -- the key it logged in with
  expires_at_ms INTEGER                  -- forgotten after; NULL: while the key lives
) WITHOUT ROWID
table sotd_pins sotd_pins
CREATE TABLE sotd_pins (
  day          TEXT PRIMARY KEY NOT NULL,   -- 'YYYY-MM-DD' in the display time zone
  track_id     INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
  note         TEXT,
  pinned_at_ms INTEGER NOT NULL
) WITHOUT ROWID
table track_artists track_artists
CREATE TABLE track_artists (
  track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
  position INTEGER NOT NULL CHECK (position >= 0),
  name     TEXT NOT NULL,
  role     TEXT NOT NULL CHECK (role IN ('primary', 'featured')), listed INTEGER NOT NULL DEFAULT 0 CHECK (listed IN (0, 1)), mbid TEXT, artist_id INTEGER REFERENCES artists(id),
  PRIMARY KEY (track_id, position)
) WITHOUT ROWID
table track_feelings track_feelings
CREATE TABLE track_feelings (
  track_id      INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
  feeling       TEXT NOT NULL CHECK (feeling IN ('like', 'dislike')),
  source        TEXT NOT NULL,        -- site, api, listenbrainz, import
  updated_at_ms INTEGER NOT NULL
)
table tracks tracks
CREATE TABLE tracks (
  id                  INTEGER PRIMARY KEY,
  uri                 TEXT UNIQUE,          -- MPD song URI or stream URL; NULL when only imported
  title               TEXT NOT NULL,        -- falls back to the file name when untagged
  artist              TEXT,
  album               TEXT,
  album_artist        TEXT,
  genre               TEXT,
  date                TEXT,                 -- as tagged: '1997', '1997-05-21'
  track_number        INTEGER,
  disc_number         INTEGER,
  duration_s          REAL CHECK (duration_s IS NULL OR duration_s >= 0),
  mb_recording_id     TEXT,
  mb_release_id       TEXT,
  mb_artist_id        TEXT,
  mb_album_artist_id  TEXT,
  mb_release_track_id TEXT,
  bpm                 REAL CHECK (bpm IS NULL OR bpm > 0),
  bpm_source          TEXT CHECK (bpm_source = 'tag' OR bpm_source = 'sticker' OR bpm_source = 'analysis' OR bpm_source = 'manual' OR bpm_source = 'import'),
  bpm_confidence      REAL CHECK (bpm_confidence IS NULL OR bpm_confidence BETWEEN 0 AND 1),
  match_key           TEXT NOT NULL,        -- normalised artist + title (PacenoteCore.MatchKey)
  in_library          INTEGER NOT NULL DEFAULT 0 CHECK (in_library IN (0, 1)),  -- in some player's library_files
  first_seen_at_ms    INTEGER NOT NULL,
  updated_at_ms       INTEGER NOT NULL, album_id INTEGER REFERENCES albums(id), merged_into INTEGER REFERENCES tracks(id),
  CHECK ((bpm IS NULL) = (bpm_source IS NULL))
)
table tracks_fts tracks_fts
CREATE VIRTUAL TABLE tracks_fts USING fts5(
  title, artist, album, content = 'tracks', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2', columnsize = 0
)
table tracks_fts_config tracks_fts_config
CREATE TABLE 'tracks_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID
table tracks_fts_data tracks_fts_data
CREATE TABLE 'tracks_fts_data'(id INTEGER PRIMARY KEY, block BLOB)
table tracks_fts_idx tracks_fts_idx
CREATE TABLE 'tracks_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID
table workouts workouts
CREATE TABLE workouts (
  id               INTEGER PRIMARY KEY,
  started_at_ms    INTEGER NOT NULL,
  ended_at_ms      INTEGER,                 -- NULL while the workout is in progress
  kind             TEXT NOT NULL DEFAULT 'auto' CHECK (kind IN ('auto', 'manual', 'import')),
  name             TEXT,
  sport            TEXT,
  zone_settings_id INTEGER REFERENCES zone_settings(id) ON DELETE RESTRICT,
  hr_avg           REAL,
  hr_max           INTEGER,
  z0_s REAL NOT NULL DEFAULT 0, z1_s REAL NOT NULL DEFAULT 0, z2_s REAL NOT NULL DEFAULT 0,
  z3_s REAL NOT NULL DEFAULT 0, z4_s REAL NOT NULL DEFAULT 0, z5_s REAL NOT NULL DEFAULT 0,
  CHECK (ended_at_ms IS NULL OR ended_at_ms >= started_at_ms)
)
table zone_settings zone_settings
CREATE TABLE zone_settings (
  id                INTEGER PRIMARY KEY,
  effective_from_ms INTEGER NOT NULL UNIQUE,
  model             TEXT NOT NULL CHECK (model IN ('percent_max', 'hrr', 'lthr_run', 'lthr_bike', 'custom')),
  max_hr            INTEGER CHECK (max_hr IS NULL OR max_hr BETWEEN 100 AND 250),
  resting_hr        INTEGER CHECK (resting_hr IS NULL OR resting_hr BETWEEN 25 AND 120),
  lthr              INTEGER CHECK (lthr IS NULL OR lthr BETWEEN 80 AND 230),
  bounds_json       TEXT,                   -- custom: lower bpm bound of Z1..Z5 as a JSON array
  created_at_ms     INTEGER NOT NULL
)
trigger forward_outbox_in forward_outbox
CREATE TRIGGER forward_outbox_in AFTER INSERT ON forward_outbox BEGIN
  UPDATE forward_targets SET queued = queued + (NEW.parked_at_ms IS NULL),
                             parked = parked + (NEW.parked_at_ms IS NOT NULL)
  WHERE id = NEW.target_id;
END
trigger forward_outbox_out forward_outbox
CREATE TRIGGER forward_outbox_out AFTER DELETE ON forward_outbox BEGIN
  UPDATE forward_targets SET queued = queued - (OLD.parked_at_ms IS NULL),
                             parked = parked - (OLD.parked_at_ms IS NOT NULL)
  WHERE id = OLD.target_id;
END
trigger forward_outbox_park forward_outbox
CREATE TRIGGER forward_outbox_park AFTER UPDATE OF parked_at_ms ON forward_outbox
WHEN (OLD.parked_at_ms IS NULL) <> (NEW.parked_at_ms IS NULL) BEGIN
  UPDATE forward_targets SET queued = queued + (NEW.parked_at_ms IS NULL) - (OLD.parked_at_ms IS NULL),
                             parked = parked + (NEW.parked_at_ms IS NOT NULL) - (OLD.parked_at_ms IS NOT NULL)
  WHERE id = NEW.target_id;
END
trigger library_files_delete library_files
CREATE TRIGGER library_files_delete AFTER DELETE ON library_files BEGIN
  UPDATE tracks SET in_library = EXISTS (SELECT 1 FROM library_files WHERE track_id = OLD.track_id)
  WHERE id = OLD.track_id;
END
trigger library_files_insert library_files
CREATE TRIGGER library_files_insert AFTER INSERT ON library_files BEGIN
  UPDATE tracks SET in_library = 1 WHERE id = NEW.track_id;
END
trigger plays_entity_rollup_delete plays
CREATE TRIGGER plays_entity_rollup_delete AFTER DELETE ON plays BEGIN
UPDATE rollup_artist_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
DELETE FROM rollup_artist_total WHERE artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_year_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
DELETE FROM rollup_year_artist WHERE year = substr(OLD.local_day, 1, 4) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_album_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
DELETE FROM rollup_album_total WHERE album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_year_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
DELETE FROM rollup_year_album WHERE year = substr(OLD.local_day, 1, 4) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_month_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END) WHERE month = substr(OLD.local_day, 1, 7) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
DELETE FROM rollup_month_artist WHERE month = substr(OLD.local_day, 1, 7) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_month_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END) WHERE month = substr(OLD.local_day, 1, 7) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
DELETE FROM rollup_month_album WHERE month = substr(OLD.local_day, 1, 7) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_day_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE day = OLD.local_day AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
DELETE FROM rollup_day_artist WHERE day = OLD.local_day AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_day_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE day = OLD.local_day AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
DELETE FROM rollup_day_album WHERE day = OLD.local_day AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_year_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4);
DELETE FROM rollup_year_total WHERE year = substr(OLD.local_day, 1, 4) AND plays = 0 AND skips = 0;
UPDATE rollup_day_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE day = OLD.local_day;
DELETE FROM rollup_day_total WHERE day = OLD.local_day AND plays = 0 AND skips = 0;
UPDATE rollup_year_hour SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND hour = OLD.local_hour;
DELETE FROM rollup_year_hour WHERE year = substr(OLD.local_day, 1, 4) AND hour = OLD.local_hour AND plays = 0 AND skips = 0;
UPDATE rollup_month_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE month = substr(OLD.local_day, 1, 7);
DELETE FROM rollup_month_total WHERE month = substr(OLD.local_day, 1, 7) AND plays = 0 AND skips = 0;
END
trigger plays_entity_rollup_insert plays
CREATE TRIGGER plays_entity_rollup_insert AFTER INSERT ON plays BEGIN
INSERT INTO rollup_artist_total (artist_id, plays, skips, played_s)
  SELECT e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
  ON CONFLICT (artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_artist (year, artist_id, plays, skips, played_s)
  SELECT substr(NEW.local_day, 1, 4), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
  ON CONFLICT (year, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_album_total (album_id, plays, skips, played_s)
  SELECT e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
  ON CONFLICT (album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_album (year, album_id, plays, skips, played_s)
  SELECT substr(NEW.local_day, 1, 4), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
  ON CONFLICT (year, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_month_artist (month, artist_id, plays, skips, played_s, first_half_plays, first_half_played_s)
  SELECT substr(NEW.local_day, 1, 7), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END
  FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
  ON CONFLICT (month, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
INSERT INTO rollup_month_album (month, album_id, plays, skips, played_s, first_half_plays, first_half_played_s)
  SELECT substr(NEW.local_day, 1, 7), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END
  FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
  ON CONFLICT (month, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
INSERT INTO rollup_day_artist (day, artist_id, plays, skips, played_s)
  SELECT NEW.local_day, e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
  ON CONFLICT (day, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_day_album (day, album_id, plays, skips, played_s)
  SELECT NEW.local_day, e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
  ON CONFLICT (day, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_total (year, plays, skips, played_s)
  VALUES (substr(NEW.local_day, 1, 4), NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (year) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_day_total (day, plays, skips, played_s)
  VALUES (NEW.local_day, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (day) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_hour (year, hour, plays, skips, played_s)
  VALUES (substr(NEW.local_day, 1, 4), NEW.local_hour, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (year, hour) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_month_total (month, plays, skips, played_s)
  VALUES (substr(NEW.local_day, 1, 7), NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (month) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
END
trigger plays_entity_rollup_update plays
CREATE TRIGGER plays_entity_rollup_update
AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
UPDATE rollup_artist_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
DELETE FROM rollup_artist_total WHERE artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_year_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
DELETE FROM rollup_year_artist WHERE year = substr(OLD.local_day, 1, 4) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_album_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
DELETE FROM rollup_album_total WHERE album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_year_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
DELETE FROM rollup_year_album WHERE year = substr(OLD.local_day, 1, 4) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_month_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END) WHERE month = substr(OLD.local_day, 1, 7) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
DELETE FROM rollup_month_artist WHERE month = substr(OLD.local_day, 1, 7) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_month_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END) WHERE month = substr(OLD.local_day, 1, 7) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
DELETE FROM rollup_month_album WHERE month = substr(OLD.local_day, 1, 7) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_day_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE day = OLD.local_day AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
DELETE FROM rollup_day_artist WHERE day = OLD.local_day AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_day_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE day = OLD.local_day AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
DELETE FROM rollup_day_album WHERE day = OLD.local_day AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
UPDATE rollup_year_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4);
DELETE FROM rollup_year_total WHERE year = substr(OLD.local_day, 1, 4) AND plays = 0 AND skips = 0;
UPDATE rollup_day_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE day = OLD.local_day;
DELETE FROM rollup_day_total WHERE day = OLD.local_day AND plays = 0 AND skips = 0;
UPDATE rollup_year_hour SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND hour = OLD.local_hour;
DELETE FROM rollup_year_hour WHERE year = substr(OLD.local_day, 1, 4) AND hour = OLD.local_hour AND plays = 0 AND skips = 0;
UPDATE rollup_month_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
  played_s = played_s - OLD.played_s WHERE month = substr(OLD.local_day, 1, 7);
DELETE FROM rollup_month_total WHERE month = substr(OLD.local_day, 1, 7) AND plays = 0 AND skips = 0;
INSERT INTO rollup_artist_total (artist_id, plays, skips, played_s)
  SELECT e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
  ON CONFLICT (artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_artist (year, artist_id, plays, skips, played_s)
  SELECT substr(NEW.local_day, 1, 4), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
  ON CONFLICT (year, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_album_total (album_id, plays, skips, played_s)
  SELECT e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
  ON CONFLICT (album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_album (year, album_id, plays, skips, played_s)
  SELECT substr(NEW.local_day, 1, 4), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
  ON CONFLICT (year, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_month_artist (month, artist_id, plays, skips, played_s, first_half_plays, first_half_played_s)
  SELECT substr(NEW.local_day, 1, 7), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END
  FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
  ON CONFLICT (month, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
INSERT INTO rollup_month_album (month, album_id, plays, skips, played_s, first_half_plays, first_half_played_s)
  SELECT substr(NEW.local_day, 1, 7), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END
  FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
  ON CONFLICT (month, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
INSERT INTO rollup_day_artist (day, artist_id, plays, skips, played_s)
  SELECT NEW.local_day, e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
  ON CONFLICT (day, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_day_album (day, album_id, plays, skips, played_s)
  SELECT NEW.local_day, e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
  FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
  ON CONFLICT (day, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_total (year, plays, skips, played_s)
  VALUES (substr(NEW.local_day, 1, 4), NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (year) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_day_total (day, plays, skips, played_s)
  VALUES (NEW.local_day, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (day) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_hour (year, hour, plays, skips, played_s)
  VALUES (substr(NEW.local_day, 1, 4), NEW.local_hour, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (year, hour) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_month_total (month, plays, skips, played_s)
  VALUES (substr(NEW.local_day, 1, 7), NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (month) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
END
trigger plays_rollup_delete plays
CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
UPDATE rollup_day_track
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
  WHERE day = OLD.local_day AND track_id = OLD.track_id;
DELETE FROM rollup_day_track WHERE day = OLD.local_day AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
UPDATE rollup_day_hour
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
  WHERE day = OLD.local_day AND hour = OLD.local_hour;
DELETE FROM rollup_day_hour WHERE day = OLD.local_day AND hour = OLD.local_hour AND plays = 0 AND skips = 0;
UPDATE rollup_year_track
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
  WHERE year = substr(OLD.local_day, 1, 4) AND track_id = OLD.track_id;
DELETE FROM rollup_year_track WHERE year = substr(OLD.local_day, 1, 4) AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
UPDATE rollup_track_total
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
  WHERE track_id = OLD.track_id;
DELETE FROM rollup_track_total WHERE track_id = OLD.track_id AND plays = 0 AND skips = 0;
UPDATE rollup_month_track
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END)
  WHERE month = substr(OLD.local_day, 1, 7) AND track_id = OLD.track_id;
DELETE FROM rollup_month_track WHERE month = substr(OLD.local_day, 1, 7) AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
DELETE FROM rollup_track_first WHERE OLD.counted = 1 AND track_id = OLD.track_id AND day = OLD.local_day;
INSERT INTO rollup_track_first (track_id, day) SELECT OLD.track_id, OLD.local_day WHERE OLD.counted = 1 AND NOT EXISTS (SELECT 1 FROM rollup_track_first WHERE track_id = OLD.track_id)
  AND EXISTS (SELECT 1 FROM plays WHERE track_id = OLD.track_id
                AND started_at_ms BETWEEN OLD.started_at_ms - 172800000 AND OLD.started_at_ms + 172800000
                AND counted = 1 AND local_day = OLD.local_day);
INSERT INTO rollup_track_first (track_id, day)
  SELECT OLD.track_id, (SELECT MIN(local_day) FROM plays WHERE track_id = OLD.track_id AND counted = 1)
  WHERE OLD.counted = 1 AND NOT EXISTS (SELECT 1 FROM rollup_track_first WHERE track_id = OLD.track_id) AND EXISTS (SELECT 1 FROM plays WHERE track_id = OLD.track_id AND counted = 1);
END
trigger plays_rollup_insert plays
CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
INSERT INTO rollup_day_track (day, track_id, plays, skips, played_s)
  VALUES (NEW.local_day, NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (day, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_day_hour (day, hour, plays, skips, played_s)
  VALUES (NEW.local_day, NEW.local_hour, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (day, hour) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_track (year, track_id, plays, skips, played_s)
  VALUES (substr(NEW.local_day, 1, 4), NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (year, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_track_total (track_id, plays, skips, played_s)
  VALUES (NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_month_track (month, track_id, plays, skips, played_s, first_half_plays, first_half_played_s)
  VALUES (substr(NEW.local_day, 1, 7), NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END)
  ON CONFLICT (month, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
INSERT INTO rollup_track_first (track_id, day) SELECT NEW.track_id, NEW.local_day WHERE NEW.counted = 1
  ON CONFLICT (track_id) DO UPDATE SET day = excluded.day WHERE excluded.day < rollup_track_first.day;
END
trigger plays_rollup_update plays
CREATE TRIGGER plays_rollup_update
AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
UPDATE rollup_day_track
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
  WHERE day = OLD.local_day AND track_id = OLD.track_id;
DELETE FROM rollup_day_track WHERE day = OLD.local_day AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
UPDATE rollup_day_hour
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
  WHERE day = OLD.local_day AND hour = OLD.local_hour;
DELETE FROM rollup_day_hour WHERE day = OLD.local_day AND hour = OLD.local_hour AND plays = 0 AND skips = 0;
UPDATE rollup_year_track
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
  WHERE year = substr(OLD.local_day, 1, 4) AND track_id = OLD.track_id;
DELETE FROM rollup_year_track WHERE year = substr(OLD.local_day, 1, 4) AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
UPDATE rollup_track_total
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
  WHERE track_id = OLD.track_id;
DELETE FROM rollup_track_total WHERE track_id = OLD.track_id AND plays = 0 AND skips = 0;
UPDATE rollup_month_track
  SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END)
  WHERE month = substr(OLD.local_day, 1, 7) AND track_id = OLD.track_id;
DELETE FROM rollup_month_track WHERE month = substr(OLD.local_day, 1, 7) AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
INSERT INTO rollup_day_track (day, track_id, plays, skips, played_s)
  VALUES (NEW.local_day, NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (day, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_day_hour (day, hour, plays, skips, played_s)
  VALUES (NEW.local_day, NEW.local_hour, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (day, hour) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_year_track (year, track_id, plays, skips, played_s)
  VALUES (substr(NEW.local_day, 1, 4), NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (year, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_track_total (track_id, plays, skips, played_s)
  VALUES (NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
  ON CONFLICT (track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
INSERT INTO rollup_month_track (month, track_id, plays, skips, played_s, first_half_plays, first_half_played_s)
  VALUES (substr(NEW.local_day, 1, 7), NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END)
  ON CONFLICT (month, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
DELETE FROM rollup_track_first WHERE OLD.counted = 1 AND track_id = OLD.track_id AND day = OLD.local_day;
INSERT INTO rollup_track_first (track_id, day) SELECT OLD.track_id, OLD.local_day WHERE OLD.counted = 1 AND NOT EXISTS (SELECT 1 FROM rollup_track_first WHERE track_id = OLD.track_id)
  AND EXISTS (SELECT 1 FROM plays WHERE track_id = OLD.track_id
                AND started_at_ms BETWEEN OLD.started_at_ms - 172800000 AND OLD.started_at_ms + 172800000
                AND counted = 1 AND local_day = OLD.local_day);
INSERT INTO rollup_track_first (track_id, day)
  SELECT OLD.track_id, (SELECT MIN(local_day) FROM plays WHERE track_id = OLD.track_id AND counted = 1)
  WHERE OLD.counted = 1 AND NOT EXISTS (SELECT 1 FROM rollup_track_first WHERE track_id = OLD.track_id) AND EXISTS (SELECT 1 FROM plays WHERE track_id = OLD.track_id AND counted = 1);
INSERT INTO rollup_track_first (track_id, day) SELECT NEW.track_id, NEW.local_day WHERE NEW.counted = 1
  ON CONFLICT (track_id) DO UPDATE SET day = excluded.day WHERE excluded.day < rollup_track_first.day;
END
trigger rollup_year_album_charted_delete rollup_year_album
CREATE TRIGGER rollup_year_album_charted_delete AFTER DELETE ON rollup_year_album WHEN OLD.plays > 0 BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'album'; END
trigger rollup_year_album_charted_insert rollup_year_album
CREATE TRIGGER rollup_year_album_charted_insert AFTER INSERT ON rollup_year_album WHEN NEW.plays > 0 BEGIN INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'album', 1 WHERE NEW.plays > 0
    ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END
trigger rollup_year_album_charted_update rollup_year_album
CREATE TRIGGER rollup_year_album_charted_update AFTER UPDATE OF year, plays ON rollup_year_album
WHEN OLD.year IS NOT NEW.year OR (OLD.plays > 0) <> (NEW.plays > 0) BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'album'; INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'album', 1 WHERE NEW.plays > 0
    ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END
trigger rollup_year_artist_charted_delete rollup_year_artist
CREATE TRIGGER rollup_year_artist_charted_delete AFTER DELETE ON rollup_year_artist WHEN OLD.plays > 0 BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'artist'; END
trigger rollup_year_artist_charted_insert rollup_year_artist
CREATE TRIGGER rollup_year_artist_charted_insert AFTER INSERT ON rollup_year_artist WHEN NEW.plays > 0 BEGIN INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'artist', 1 WHERE NEW.plays > 0
    ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END
trigger rollup_year_artist_charted_update rollup_year_artist
CREATE TRIGGER rollup_year_artist_charted_update AFTER UPDATE OF year, plays ON rollup_year_artist
WHEN OLD.year IS NOT NEW.year OR (OLD.plays > 0) <> (NEW.plays > 0) BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'artist'; INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'artist', 1 WHERE NEW.plays > 0
    ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END
trigger rollup_year_track_charted_delete rollup_year_track
CREATE TRIGGER rollup_year_track_charted_delete AFTER DELETE ON rollup_year_track WHEN OLD.plays > 0 BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'track'; END
trigger rollup_year_track_charted_insert rollup_year_track
CREATE TRIGGER rollup_year_track_charted_insert AFTER INSERT ON rollup_year_track WHEN NEW.plays > 0 BEGIN INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'track', 1 WHERE NEW.plays > 0
    ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END
trigger rollup_year_track_charted_update rollup_year_track
CREATE TRIGGER rollup_year_track_charted_update AFTER UPDATE OF year, plays ON rollup_year_track
WHEN OLD.year IS NOT NEW.year OR (OLD.plays > 0) <> (NEW.plays > 0) BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'track'; INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'track', 1 WHERE NEW.plays > 0
    ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END
trigger tracks_fts_delete tracks
CREATE TRIGGER tracks_fts_delete AFTER DELETE ON tracks BEGIN
  INSERT INTO tracks_fts (tracks_fts, rowid, title, artist, album) VALUES ('delete', OLD.id, OLD.title, OLD.artist, OLD.album);
END
trigger tracks_fts_insert tracks
CREATE TRIGGER tracks_fts_insert AFTER INSERT ON tracks BEGIN
  INSERT INTO tracks_fts (rowid, title, artist, album) VALUES (NEW.id, NEW.title, NEW.artist, NEW.album);
END
trigger tracks_fts_update tracks
CREATE TRIGGER tracks_fts_update AFTER UPDATE OF title, artist, album ON tracks BEGIN
  INSERT INTO tracks_fts (tracks_fts, rowid, title, artist, album) VALUES ('delete', OLD.id, OLD.title, OLD.artist, OLD.album);
  INSERT INTO tracks_fts (rowid, title, artist, album) VALUES (NEW.id, NEW.title, NEW.artist, NEW.album);
END
