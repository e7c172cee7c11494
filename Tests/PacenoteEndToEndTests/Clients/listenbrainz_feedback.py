"""Likes a recording through Pacenote's ListenBrainz-compatible API with liblistenbrainz's
own submit_user_feedback, as a user's script would: submits a listen carrying the
recording's MBID, loves it (score 1), then hates and clears another. Prints one JSON line.

Usage: listenbrainz_feedback.py BASE_URL TOKEN LISTENED_AT"""
import json, sys

import liblistenbrainz
from liblistenbrainz.errors import ListenBrainzAPIException

base, token, listened_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
loved, other = "e225fb84-dc9a-419e-adcd-9890f59ec432", "0f0cd3a9-1f5b-4c3a-9f0e-4e3f1c8a2b11"
client = liblistenbrainz.ListenBrainz(api_base_url=base)
client.set_auth_token(token)
result = {}
for mbid, title, at in [(loved, "Vantablack", listened_at), (other, "Other", listened_at + 300)]:
    client.submit_single_listen(liblistenbrainz.Listen(
        track_name=title, artist_name="Dool", listened_at=at, recording_mbid=mbid,
        additional_info={"duration_ms": 200000}))
result["love"] = client.submit_user_feedback(1, loved)
result["hate"] = client.submit_user_feedback(-1, other)
result["clear"] = client.submit_user_feedback(0, other)
try:
    client.submit_user_feedback(1, "11111111-2222-3333-4444-555555555555")
    result["unknown"] = "accepted"
except ListenBrainzAPIException as e:
    result["unknown"] = [e.status_code, e.message]
try:
    client.submit_user_feedback(5, loved)
    result["bad_score"] = "accepted"
except ListenBrainzAPIException as e:
    result["bad_score"] = [e.status_code, e.message]
print(json.dumps(result))
