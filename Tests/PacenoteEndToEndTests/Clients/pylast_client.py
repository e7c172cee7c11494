"""pylast (PyPI) against Pacenote's Audioscrobbler 2.0 endpoint: logs in with the API key
as the password (auth.getMobileSession with pylast's authToken), scrobbles a batch and sets
now-playing. Prints a JSON summary.

pylast always speaks https (its ws_server is a host and a path); Pacenote serves plain
HTTP on loopback, so the one transport pylast is given sends its https requests as http.
Everything else is pylast as it ships."""
import json
import sys

import httpx2 as httpx
import pylast

base_host, key, t0 = sys.argv[1], sys.argv[2], int(sys.argv[3])


class PlainHTTP(httpx.HTTPTransport):
    def handle_request(self, request):
        request.url = request.url.copy_with(scheme="http")
        return super().handle_request(request)


network = pylast._Network(
    name="Pacenote", homepage="http://" + base_host, ws_server=(base_host, "/apis/audioscrobbler/2.0/"),
    api_key="any-api-key", api_secret="any-secret", session_key="", username="pylast-test",
    password_hash=pylast.md5(key), domain_names={pylast.DOMAIN_ENGLISH: base_host}, urls={},
    proxy={"https://": PlainHTTP()})
out = {"session_key": network.session_key}
network.scrobble_many([
    {"artist": "Dool", "title": "Vantablack", "timestamp": t0, "album": "Here Now, There Then", "duration": 215},
    {"artist": "Dool", "title": "Oweynagat", "timestamp": t0 + 300, "mbid": "not-a-valid-mbid"},
    {"artist": "Chelsea Wolfe", "title": "Carrion Flowers", "timestamp": t0 + 600},
])
network.update_now_playing(artist="Dool", title="The Alpha Man", duration=300)
try:
    pylast._Network(
        name="Pacenote", homepage="http://" + base_host, ws_server=(base_host, "/apis/audioscrobbler/2.0/"),
        api_key="any", api_secret="any", session_key="", username="intruder", password_hash=pylast.md5("guess"),
        domain_names={}, urls={}, proxy={"https://": PlainHTTP()})
    out["bad_login"] = "accepted"
except pylast.WSError as e:
    out["bad_login"] = [e.get_id(), e.details]
print(json.dumps(out))
