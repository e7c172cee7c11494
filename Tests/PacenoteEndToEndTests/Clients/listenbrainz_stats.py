"""Reads Pacenote's charts with liblistenbrainz, the ListenBrainz project's own Python
client, as a statistics tool would: get_user_artists, get_user_recordings and
get_user_releases over ranges, paged with count and offset. It first submits a history of
known counts (this week, the week before and two years ago, weeks beginning on WEEK_STARTS in
UTC as the daemon is configured), works out the charts those listens make on its own, and
prints both as one JSON line with what else happened (no statistics before any listen, an
unknown range, a request without the token); the Swift test compares them.

Usage: listenbrainz_stats.py BASE_URL TOKEN WEEK_STARTS"""
import collections, datetime, json, sys, time

import liblistenbrainz
import requests
from liblistenbrainz.errors import ListenBrainzAPIException

base, token, week_starts = sys.argv[1], sys.argv[2], sys.argv[3]
user = "pacenote"
result = {}

client = liblistenbrainz.ListenBrainz(api_base_url=base)
client.set_auth_token(token)
result["before_any_listen"] = client.get_user_artists(user)  # 204: None

# Weeks begin on WEEK_STARTS (the daemon's [site] week_starts, which the test chose so that
# this week began yesterday or earlier and ends after tomorrow), days are UTC days (--timezone UTC).
now = int(time.time())
today = datetime.datetime.fromtimestamp(now, datetime.timezone.utc).date()
first_weekday = {"monday": 0, "saturday": 5, "sunday": 6}[week_starts]  # Python's: Monday = 0
this_week = today - datetime.timedelta(days=(today.weekday() - first_weekday) % 7)
this_start = int(datetime.datetime.combine(this_week, datetime.time(), datetime.timezone.utc).timestamp())
if not 86400 <= now - this_start < 6 * 86400:
    sys.exit(f"week_starts {week_starts}: this week began {now - this_start} s ago; the test chooses a day a day away")
last_start = this_start - 7 * 86400
result["week_starts_on"] = this_week.strftime("%A")

DOOL = {"recording_mbid": "e225fb84-dc9a-419e-adcd-9890f59ec432", "release_mbid": "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10",
        "artist_mbids": ["f59c5520-5f46-4d2c-b2c4-822eabf53419"]}
# (track, artist credit, release, MusicBrainz ids, times): the credit's artists as Pacenote splits it.
mid = this_start + (now - this_start) // 2
history = [
    ("Vantablack", "Dool", "Summerland", DOOL, [mid - i for i in range(4)]),
    ("Duet", "Alpha feat. Beta", "Pairs", {}, [mid - 10 - i for i in range(3)]),
    ("Single", "Gamma", None, {}, [mid - 20 - i for i in range(2)]),
    ("Last Week Song", "Then Band", "Then", {}, [last_start + 2 * 86400 + i * 600 for i in range(2)]),
    ("Old Hit", "Then Band", "Then", {}, [now - 800 * 86400]),
] + [(f"Song {n}", "Many", "Lots", {}, [mid - 30 - n]) for n in range(6)]
credits = {"Alpha feat. Beta": ["Alpha", "Beta"]}

listens = []
for track, artist, release, ids, times in history:
    for t in times:
        listen = liblistenbrainz.Listen(track_name=track, artist_name=artist, release_name=release, listened_at=t,
                                        additional_info={"duration": 180})
        listen.recording_mbid = ids.get("recording_mbid")
        listen.release_mbid = ids.get("release_mbid")
        listen.artist_mbids = ids.get("artist_mbids")
        listens.append(listen)
result["import"] = client.submit_multiple_listens(listens)

# The charts these listens make, worked out here: a listen counts for each credited artist.
bounds = {"all_time": (0, 2**62), "this_week": (this_start, this_start + 7 * 86400), "week": (last_start, this_start)}
expected = {}
for name, (start, end) in bounds.items():
    charts = {"artists": collections.Counter(), "recordings": collections.Counter(), "releases": collections.Counter()}
    for track, artist, release, _, times in history:
        n = sum(1 for t in times if start <= t < end)
        if n == 0:
            continue
        for a in credits.get(artist, [artist]):
            charts["artists"][a] += n
        charts["recordings"][track] += n
        if release:
            charts["releases"][release] += n
    expected[name] = {entity: sorted([k, v] for k, v in counter.items()) for entity, counter in charts.items()}
result["expected"] = expected

NAME = {"artists": "artist_name", "recordings": "track_name", "releases": "release_name"}
TOTAL = {"artists": "total_artist_count", "recordings": "total_recording_count", "releases": "total_release_count"}
calls = {"artists": client.get_user_artists, "recordings": client.get_user_recordings, "releases": client.get_user_releases}


def chart(entity, time_range, count=100, offset=0):
    answer = calls[entity](user, count=count, offset=offset, time_range=time_range)
    return None if answer is None else answer["payload"]


result["charts"], result["totals"], result["payloads"] = {}, {}, {}
for name in bounds:
    result["charts"][name], result["totals"][name] = {}, {}
    for entity in calls:
        payload = chart(entity, name)
        items = payload[entity]
        result["charts"][name][entity] = [[item[NAME[entity]], item["listen_count"]] for item in items]
        result["totals"][name][entity] = payload[TOTAL[entity]]
        result["payloads"][f"{name} {entity}"] = {k: v for k, v in payload.items() if k != entity} | {"first": items[0] if items else None}

# Paging: three at a time, until a page comes back short.
pages, offset = [], 0
while True:
    page = chart("recordings", "all_time", count=3, offset=offset)
    pages.append({"count": page["count"], "offset": page["offset"], "names": [i["track_name"] for i in page["recordings"]]})
    if page["count"] < 3:
        break
    offset += 3
result["pages"] = pages
result["nothing_last_year"] = chart("artists", "year") if today.month > 1 else "skipped in January"

# ListenBrainz's errors: liblistenbrainz checks ranges itself, so the request is made directly.
bad = requests.get(f"{base.rstrip('/')}/1/stats/user/{user}/artists", params={"range": "fortnight"},
                   headers={"Authorization": f"Token {token}"})
result["bad_range"] = [bad.status_code, bad.json()]

stranger = liblistenbrainz.ListenBrainz(api_base_url=base)
try:
    stranger.get_user_releases(user)
    result["without_token"] = "answered"
except ListenBrainzAPIException as e:
    result["without_token"] = [e.status_code, e.message]

print(json.dumps(result))
