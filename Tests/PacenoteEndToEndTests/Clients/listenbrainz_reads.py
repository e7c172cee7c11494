"""liblistenbrainz (the ListenBrainz project's Python client, 0.7.0) reading what apps read
besides listens: listening activity, daily activity, following and followers, and the
metadata look-up scrobblers use to fill in MusicBrainz ids. liblistenbrainz 0.7.0 has no
method for these, so they go through its own request path (`ListenBrainz._get`: its token
header, rate-limit handling and error mapping), with ListenBrainz's paths and parameters.

It first submits a history with the admin token, works out on its own what ListenBrainz
would answer (days are UTC days: the daemon runs with --timezone UTC; weeks begin on
Monday), and prints what came back and what it expected as one JSON object.

An app's `client` token then makes the same reads, submits and reads its own listen with
liblistenbrainz's methods, and is refused `delete_listen`.

Usage: listenbrainz_reads.py BASE_URL ADMIN_TOKEN SUBMIT_TOKEN CLIENT_TOKEN"""
import calendar, collections, datetime, json, sys, time

import liblistenbrainz
import requests
from liblistenbrainz.errors import ListenBrainzAPIException

base, admin_token, submit_token, client_token = sys.argv[1:5]
user = "pacenote"
out = {}

client = liblistenbrainz.ListenBrainz(api_base_url=base)
client.set_auth_token(admin_token)


def get(endpoint, params=None, on=client):
    try:
        return on._get(endpoint, params=params or {})
    except ListenBrainzAPIException as e:
        return {"status": e.status_code, "error": e.message}


out["before_any_listen"] = get(f"/1/stats/user/{user}/listening-activity")

now = int(time.time())
utc = datetime.timezone.utc
today = datetime.datetime.fromtimestamp(now, utc).date()
def at(day, hour, minute=0):
    return int(datetime.datetime.combine(day, datetime.time(hour, minute), utc).timestamp())

# Listens on days of this month and the last, of the last two whole weeks, and of 2 years ago.
this_monday = today - datetime.timedelta(days=today.weekday())
days = {today - datetime.timedelta(days=1), this_monday - datetime.timedelta(days=3), this_monday - datetime.timedelta(days=10),
        today.replace(day=1) - datetime.timedelta(days=2)}
times = []
for n, day in enumerate(sorted(days)):
    times += [at(day, 7 + n, m) for m in range(n + 1)]
times.append(at(today.replace(year=today.year - 2, day=1), 23))
times = [t for t in times if t < now]
listens = [liblistenbrainz.Listen(track_name=f"Track {i}", artist_name="Activity", listened_at=t) for i, t in enumerate(times)]
out["submit"] = client.submit_multiple_listens(listens)
out["submitted"] = len(times)

def day_of(t):
    return datetime.datetime.fromtimestamp(t, utc).date()
per_day = collections.Counter(day_of(t) for t in times)
def day_start(d):
    return int(datetime.datetime.combine(d, datetime.time(), utc).timestamp())

def expected_days(first, last, weekday):
    fmt = "%A %d %B %Y" if weekday else "%d %B %Y"
    items, d = [], first
    while d <= last:
        items.append({"from_ts": day_start(d), "listen_count": per_day[d], "time_range": d.strftime(fmt),
                      "to_ts": day_start(d + datetime.timedelta(days=1)) - 1})
        d += datetime.timedelta(days=1)
    return items

# week: the last whole week and the one before it, days with weekdays.
out["week"] = get(f"/1/stats/user/{user}/listening-activity", {"range": "week"})
out["week_expected"] = expected_days(this_monday - datetime.timedelta(days=14), this_monday - datetime.timedelta(days=1), True)
# this_month: last month's first day to today.
last_month_first = (today.replace(day=1) - datetime.timedelta(days=1)).replace(day=1)
out["this_month"] = get(f"/1/stats/user/{user}/listening-activity", {"range": "this_month"})
out["this_month_expected"] = expected_days(last_month_first, today, False)
# all_time: the years with listens.
per_year = collections.Counter(day_of(t).year for t in times)
out["all_time"] = get(f"/1/stats/user/{user}/listening-activity")
out["all_time_expected"] = [{"from_ts": day_start(datetime.date(y, 1, 1)), "listen_count": per_year[y], "time_range": str(y),
                             "to_ts": day_start(datetime.date(y + 1, 1, 1)) - 1} for y in sorted(per_year)]
out["bad_range"] = get(f"/1/stats/user/{user}/listening-activity", {"range": "fortnight"})

# Daily activity, all time: per weekday (Monday first) and UTC hour.
cells = collections.Counter((datetime.datetime.fromtimestamp(t, utc).weekday(), datetime.datetime.fromtimestamp(t, utc).hour) for t in times)
out["daily"] = get(f"/1/stats/user/{user}/daily-activity")
out["daily_expected"] = {calendar.day_name[d]: [{"hour": h, "listen_count": cells[(d, h)]} for h in range(24)] for d in range(7)}

out["following"] = get(f"/1/user/{user}/following")
out["followers"] = get(f"/1/user/{user}/followers")

# The look-up, as a scrobbler holding a submit token makes it.
scrobbler = liblistenbrainz.ListenBrainz(api_base_url=base)
scrobbler.set_auth_token(submit_token)
out["lookup"] = get("/1/metadata/lookup/", {"artist_name": "the dool", "recording_name": "VANTABLACK"}, on=scrobbler)
out["lookup_with_release"] = get("/1/metadata/lookup/", {"artist_name": "Dool", "recording_name": "Vantablack",
                                                          "release_name": "Summerland", "metadata": "true"}, on=scrobbler)
out["lookup_unknown"] = get("/1/metadata/lookup/", {"artist_name": "Nobody", "recording_name": "Never"}, on=scrobbler)
out["lookup_without_artist"] = get("/1/metadata/lookup/", {"recording_name": "Vantablack"}, on=scrobbler)
out["lookup_too_long"] = get("/1/metadata/lookup/", {"artist_name": "a" * 200, "recording_name": "b" * 60}, on=scrobbler)
out["lookup_without_token"] = requests.get(base + "/1/metadata/lookup/", params={"artist_name": "Dool", "recording_name": "x"}).status_code
# A submit token reads no history: the activity is refused to it.
out["activity_with_submit_token"] = get(f"/1/stats/user/{user}/daily-activity", on=scrobbler)

# An app's client token: the reads above, its own listen, and no delete.
app = liblistenbrainz.ListenBrainz(api_base_url=base)
app.set_auth_token(client_token)
out["client_all_time"] = get(f"/1/stats/user/{user}/listening-activity", on=app)
out["client_daily"] = get(f"/1/stats/user/{user}/daily-activity", on=app)
out["client_following"] = get(f"/1/user/{user}/following", on=app)
out["client_lookup"] = get("/1/metadata/lookup/", {"artist_name": "the dool", "recording_name": "VANTABLACK"}, on=app)
app_listen = liblistenbrainz.Listen(track_name="From The App", artist_name="Activity", listened_at=now - 60)
out["client_submit"] = app.submit_single_listen(app_listen)
newest = app.get_listens(user, count=1)
out["client_newest"] = [newest[0].track_name, newest[0].listened_at] if newest else None
try:
    app.delete_listen(newest[0])
    out["client_delete"] = "deleted"
except ListenBrainzAPIException as e:
    out["client_delete"] = e.status_code
out["client_newest_after_delete"] = [l.track_name for l in app.get_listens(user, count=1)]
print(json.dumps(out))
