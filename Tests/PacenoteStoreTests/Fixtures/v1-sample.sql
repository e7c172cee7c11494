-- Rows written into a database made by Pacenote 0.1.0 (schema v1) with
--   pacenote migrate --db v1.sqlite && sqlite3 v1.sqlite < v1-sample.sql
-- The result, v1.sqlite, is kept as it is: every later version must open it.
INSERT INTO tracks (id, uri, title, artist, album, album_artist, genre, duration_s, mb_recording_id,
                    bpm, bpm_source, bpm_confidence, match_key, first_seen_at_ms, updated_at_ms)
VALUES (1, 'Artist/Album/01 Run.flac', 'Run', 'Artist', 'Album', 'Artist', 'Electronic', 215.5,
        '6b9a509f-6907-4a6e-9345-2f12da09ba4b', 128, 'tag', 1, 'artist' || char(31) || 'run', 1763769600000, 1763769600000),
       (2, NULL, 'Imported Song', 'Other Artist', NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, 'other artist' || char(31) || 'imported song', 1763769600000, 1763769600000);
INSERT INTO library_files (player, track_id, modified_at_ms) VALUES ('default', 1, 1763769000000);
INSERT INTO open_plays (player, track_id, song_uri, song_json, mpd_song_id, started_at_ms, played_s, state, position_s, saved_at_ms)
VALUES ('default', 1, 'Artist/Album/01 Run.flac',
        '{"durationSeconds":215.5,"tags":{"Artist":"Artist","Title":"Run"},"uri":"Artist\/Album\/01 Run.flac"}',
        7, 1763810000000, 12.5, 'play', 12.5, 1763810012500);
INSERT INTO zone_settings (id, effective_from_ms, model, max_hr, created_at_ms) VALUES (1, 1763769600000, 'percent_max', 190, 1763769600000);
INSERT INTO workouts (id, started_at_ms, ended_at_ms, kind, zone_settings_id, hr_avg, hr_max, z2_s, z3_s)
VALUES (1, 1763794800000, 1763796600000, 'auto', 1, 138.5, 171, 900, 900);
INSERT INTO hr_samples (source, at_ms, bpm, rr_ms) VALUES ('feed', 1763794800000, 120, '[500,498]'), ('feed', 1763794801000, 122, NULL);
INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, player, hr_avg, hr_max, zone, workout_id, local_day, local_hour)
VALUES (1, 1763794800000, 1763795015500, 215.5, 1, 'mpd', 'default', 131.0, 150, 3, 1, '2025-11-22', 7),
       (1, 1763795100000, 1763795110000, 10, 0, 'mpd', 'default', NULL, NULL, NULL, NULL, '2025-11-22', 7),
       (2, 1763809200000, 1763809380000, 180, 1, 'import:listenbrainz', NULL, NULL, NULL, NULL, NULL, '2025-11-22', 11);
INSERT INTO sotd_pins (day, track_id, note, pinned_at_ms) VALUES ('2025-11-22', 1, 'first run of the winter', 1763809200000);
INSERT INTO api_keys (name, key_hash, key_prefix, created_at_ms) VALUES ('default', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'pn_e3b0', 1763769600000);
INSERT INTO meta (key, value) VALUES ('rollup_timezone', 'UTC') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
