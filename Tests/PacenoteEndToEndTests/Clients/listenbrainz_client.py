"""Drives Pacenote's ListenBrainz-compatible API with liblistenbrainz, the ListenBrainz
project's own Python client, exactly as a user's script would. Prints one JSON line of
what happened; the Swift test checks it and the database.

Usage: listenbrainz_client.py BASE_URL TOKEN LISTENED_AT"""
import json, sys

import liblistenbrainz
from liblistenbrainz.errors import ListenBrainzAPIException, InvalidAuthTokenException

base, token, listened_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
result = {}

client = liblistenbrainz.ListenBrainz(api_base_url=base)
client.set_auth_token(token)  # checks it with GET /1/validate-token
result["token_valid"] = True

single = liblistenbrainz.Listen(
    track_name="Vantablack", artist_name="Dool", release_name="Here Now, There Then",
    listened_at=listened_at, recording_mbid="e225fb84-dc9a-419e-adcd-9890f59ec432",
    additional_info={"duration_ms": 215500, "media_player": "liblistenbrainz test"})
result["single"] = client.submit_single_listen(single)
result["single_again"] = client.submit_single_listen(single)  # the same listen twice: stored once

result["playing_now"] = client.submit_playing_now(
    liblistenbrainz.Listen(track_name="Now", artist_name="Playing"))

batch = [liblistenbrainz.Listen(track_name=f"Song {i}", artist_name="Importer", listened_at=listened_at + 600 + i * 240,
                                additional_info={"duration": 200})
         for i in range(5)]
result["import"] = client.submit_multiple_listens(batch)

try:
    bad = liblistenbrainz.ListenBrainz(api_base_url=base)
    bad.set_auth_token("not-the-key-at-all")
    result["bad_token"] = "accepted"
except InvalidAuthTokenException:
    result["bad_token"] = "invalid"

try:
    bad = liblistenbrainz.ListenBrainz(api_base_url=base)
    bad.set_auth_token("not-the-key-at-all", check_validity=False)
    bad.submit_single_listen(single)
    result["bad_submit"] = "accepted"
except ListenBrainzAPIException as e:
    result["bad_submit"] = [e.status_code, e.message]

print(json.dumps(result))
