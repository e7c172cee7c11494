"""pylast (PyPI) reading Pacenote through Last.fm 2.0, as an app that scrobbles and reads
does: get_recent_tracks (with now playing), get_top_artists/albums/tracks over periods,
get_loved_tracks, Track.love()/unlove(), get_userplaycount()/get_userloved(), the user's
play count and registration; then who may do that (a session of the admin key or of a
submit key, a read key as api_key, nothing at all) and Last.fm's error codes, some with
raw requests where pylast would not send them. The test has stored the history and liked
one track before; it prints one JSON object for the Swift test to check.

pylast speaks https only; as in pylast_client.py its one transport sends http instead.

A `client` key (an app's key: submit, read, likes) then does the same reads and loves
through a session of its own, and gets the friends list.

Usage: pylast_reads.py HOST:PORT ADMIN_KEY SUBMIT_KEY READ_KEY CLIENT_KEY"""
import json
import sys

import httpx2 as httpx
import pylast

host, admin_key, submit_key, read_key, client_key = sys.argv[1:6]
path = "/apis/audioscrobbler/2.0/"


class PlainHTTP(httpx.HTTPTransport):
    def handle_request(self, request):
        request.url = request.url.copy_with(scheme="http")
        return super().handle_request(request)


def network(api_key="any-api-key", username="", key=None):
    return pylast._Network(
        name="Pacenote", homepage="http://" + host, ws_server=(host, path), api_key=api_key, api_secret="any-secret",
        session_key="", username=username, password_hash=pylast.md5(key) if key else "",
        domain_names={pylast.DOMAIN_ENGLISH: host}, urls={}, proxy={"https://": PlainHTTP()})


def error_of(call):
    try:
        call()
        return "no error"
    except pylast.WSError as e:
        return e.get_id()


out = {}
admin = network(username="reader", key=admin_key)
me = admin.get_user("pacenote")

admin.update_now_playing(artist="Dool", title="The Alpha Man")
recent = me.get_recent_tracks(limit=4)
out["recent"] = [[str(p.track.artist), p.track.title, p.album, p.timestamp] for p in recent]
with_now = me.get_recent_tracks(limit=2, now_playing=True)
out["recent_now_first"] = [str(with_now[0].track.artist), with_now[0].track.title, with_now[0].timestamp]
playing = me.get_now_playing()
out["now_playing"] = [str(playing.artist), playing.title] if playing else None
out["recent_all"] = len(me.get_recent_tracks(limit=None))
# pylast's own pager over pages of two (totalPages tells it where to stop): the now-playing
# track is on the first page besides the two plays.
out["recent_paged"] = len(pylast._collect_nodes(None, me, "user.getRecentTracks", False, {"user": "pacenote", "limit": "2"}))

out["top_artists"] = [[str(t.item), t.weight] for t in me.get_top_artists(period=pylast.PERIOD_OVERALL)]
out["top_artists_7day"] = [[str(t.item), t.weight] for t in me.get_top_artists(period=pylast.PERIOD_7DAYS)]
out["top_tracks"] = [[str(t.item.artist), t.item.title, t.weight] for t in me.get_top_tracks(period=pylast.PERIOD_OVERALL)]
out["top_albums"] = [[str(t.item.artist), t.item.title, t.weight] for t in me.get_top_albums(period=pylast.PERIOD_12MONTHS)]
out["playcount"] = me.get_playcount()
out["registered"] = me.get_unixtime_registered()

out["loved_before"] = [[str(t.track.artist), t.track.title] for t in me.get_loved_tracks()]
track = admin.get_track("dool", "VANTABLACK")
out["userplaycount"] = track.get_userplaycount()
out["userloved_before"] = track.get_userloved()
track.love()
out["userloved_after"] = track.get_userloved()
out["loved_after"] = [[str(t.track.artist), t.track.title] for t in me.get_loved_tracks()]
liked = admin.get_track("Chelsea Wolfe", "Carrion Flowers")
liked.unlove()
out["loved_after_unlove"] = [[str(t.track.artist), t.track.title] for t in me.get_loved_tracks()]
out["love_unknown"] = error_of(lambda: admin.get_track("Nobody", "Never Played").love())
out["bad_period"] = error_of(lambda: me.get_top_artists(period="fortnight"))
out["info_unknown"] = error_of(lambda: admin.get_track("Nobody", "Never Played").get_userplaycount())

# Who may read: a submit key's session may love, not read; a read key as api_key reads.
submitter = network(username="phone", key=submit_key)
out["submit_session_reads"] = error_of(lambda: submitter.get_user("pacenote").get_recent_tracks(limit=1))
out["submit_session_loves"] = error_of(lambda: submitter.get_track("Emma Ruth Rundle", "Marked for Death").love())
out["read_key_reads"] = len(network(api_key=read_key).get_user("pacenote").get_recent_tracks(limit=3))
out["stranger_reads"] = error_of(lambda: network().get_user("pacenote").get_recent_tracks(limit=1))
out["admin_key_as_api_key_reads"] = len(network(api_key=admin_key).get_user("pacenote").get_loved_tracks())

# A client key's session: everything above an app does, with its own key.
app = network(username="app", key=client_key)
mine = app.get_user("pacenote")
out["client_recent"] = [[str(p.track.artist), p.track.title] for p in mine.get_recent_tracks(limit=2)]
out["client_top_artists"] = [[str(t.item), t.weight] for t in mine.get_top_artists(period=pylast.PERIOD_OVERALL)]
app.get_track("Chelsea Wolfe", "Carrion Flowers").love()
out["client_loved"] = [[str(t.track.artist), t.track.title] for t in mine.get_loved_tracks()]
app.get_track("Chelsea Wolfe", "Carrion Flowers").unlove()
out["client_loved_after_unlove"] = [[str(t.track.artist), t.track.title] for t in mine.get_loved_tracks()]
out["client_userplaycount"] = app.get_track("Dool", "Vantablack").get_userplaycount()
out["client_friends"] = [str(u) for u in mine.get_friends()]

# Raw calls: JSON shapes, and what pylast never sends (no signature, a wrong session, a wrong method).
url = "http://" + host + path
def post(fields):
    r = httpx.post(url, data=fields)
    return r.status_code, r.text
status, text = post({"method": "user.getRecentTracks", "user": "pacenote", "limit": "2", "format": "json", "api_key": read_key})
out["json_recent"] = [status, json.loads(text)]
status, text = post({"method": "user.getTopArtists", "user": "pacenote", "format": "json", "api_key": read_key, "limit": "1"})
out["json_top_artists"] = [status, json.loads(text)]
status, text = post({"method": "track.getInfo", "artist": "Dool", "track": "Vantablack", "username": "pacenote",
                     "format": "json", "api_key": read_key})
out["json_track_info"] = [status, json.loads(text)]
status, text = post({"method": "user.getInfo", "user": "pacenote", "format": "json", "api_key": read_key})
out["json_user_info"] = [status, json.loads(text)]
status, text = post({"method": "track.love", "artist": "Dool", "track": "Vantablack", "sk": admin.session_key,
                     "api_key": "any-api-key"})
out["unsigned_love"] = [status, text]
status, text = post({"method": "track.love", "artist": "Dool", "track": "Vantablack", "sk": "0" * 32,
                     "api_sig": "0" * 32, "api_key": "any-api-key", "format": "json"})
out["bad_session_love"] = [status, json.loads(text)]
status, text = post({"method": "user.getRecentTracks", "user": "pacenote", "sk": "f" * 32, "api_key": "x", "format": "json"})
out["bad_session_read"] = [status, json.loads(text)]
status, text = post({"method": "user.getFriends", "user": "pacenote", "api_key": read_key, "format": "json", "limit": "1"})
out["json_friends"] = [status, json.loads(text)]
status, text = post({"method": "user.getPersonalTags", "user": "pacenote", "api_key": read_key, "format": "json"})
out["unknown_method"] = [status, json.loads(text)]
status, text = post({"method": "user.getRecentTracks", "user": "pacenote", "api_key": read_key, "limit": "0"})
out["bad_limit"] = [status, text]
print(json.dumps(out))
