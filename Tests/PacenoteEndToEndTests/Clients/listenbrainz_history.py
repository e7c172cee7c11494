"""Reads Pacenote's history back and deletes a listen with liblistenbrainz, the ListenBrainz
project's own Python client, as a user's script would: submit listens, find them with
get_listens, delete one with delete_listen, count before and after, and ask what plays
now. Prints one JSON line of what happened; the Swift test checks it and the database.

Usage: listenbrainz_history.py BASE_URL TOKEN LISTENED_AT"""
import json, sys

import liblistenbrainz
from liblistenbrainz.errors import ListenBrainzAPIException

base, token, t0 = sys.argv[1], sys.argv[2], int(sys.argv[3])
user = "pacenote"
result = {}


def described(listens):
    return [{"listened_at": l.listened_at, "track_name": l.track_name, "artist_name": l.artist_name,
             "release_name": l.release_name, "recording_msid": l.recording_msid, "recording_mbid": l.recording_mbid}
            for l in listens]


client = liblistenbrainz.ListenBrainz(api_base_url=base)
client.set_auth_token(token)

# Three listens ten minutes apart: t0, t0 + 600, t0 + 1200.
batch = [liblistenbrainz.Listen(track_name=f"History {i}", artist_name="Curator", release_name="Corrections",
                                listened_at=t0 + i * 600, additional_info={"duration": 200})
         for i in range(3)]
batch[1].recording_mbid = "e225fb84-dc9a-419e-adcd-9890f59ec432"
result["import"] = client.submit_multiple_listens(batch)

result["count_before"] = client.get_user_listen_count(user)
result["newest"] = described(client.get_listens(user))
result["window"] = described(client.get_listens(user, min_ts=t0 - 1, max_ts=t0 + 1201, count=10))
result["before_max"] = described(client.get_listens(user, max_ts=t0 + 600))
result["after_min"] = described(client.get_listens(user, min_ts=t0, count=1))

middle = [l for l in client.get_listens(user, min_ts=t0 - 1, max_ts=t0 + 1201) if l.listened_at == t0 + 600][0]
result["delete"] = client.delete_listen(middle)
result["count_after"] = client.get_user_listen_count(user)
result["window_after"] = described(client.get_listens(user, min_ts=t0 - 1, max_ts=t0 + 1201))

try:
    client.delete_listen(middle)
    result["delete_again"] = "accepted"
except ListenBrainzAPIException as e:
    result["delete_again"] = [e.status_code, e.message]

playing = client.get_playing_now(user)
result["playing_now"] = None if playing is None else {
    "track_name": playing.track_name, "artist_name": playing.artist_name, "listened_at": playing.listened_at,
    "recording_msid": playing.additional_info.get("recording_msid")}

print(json.dumps(result))
