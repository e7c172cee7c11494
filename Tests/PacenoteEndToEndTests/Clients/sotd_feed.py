#!/usr/bin/env python3
"""Reads a Pacenote's songs-of-the-day feed as a feed reader does (feedparser, from PyPI) and
checks it: well formed, Atom 1.0, every entry with an id, a title, its share page as the
alternate link, its cover as an enclosure, published and updated; the feed with its self
link and author; no time of day anywhere (every date is a day at 00:00:00 UTC, Last-Modified
too: issue 51); the conditional GET (ETag, then Last-Modified) answered with 304 (for
Last-Modified, only once its day is over: until then today's song may still change); and
nothing in it but the elements a song of the day needs.

Usage: sotd_feed.py FEED_URL [TODAY]   (TODAY: the server's local day, YYYY-MM-DD)
Prints one JSON object (the feed as read); exits 1 with the failures on stderr."""
import datetime
import email.utils
import json
import sys
import urllib.request
import xml.etree.ElementTree as ET

import feedparser

url = sys.argv[1]
today = sys.argv[2] if len(sys.argv) > 2 else datetime.date.today().isoformat()
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


with urllib.request.urlopen(url, timeout=10) as response:
    raw = response.read()
    content_type = response.headers.get("Content-Type")
    etag = response.headers.get("ETag")
    modified = response.headers.get("Last-Modified")
check(content_type == "application/atom+xml; charset=utf-8", f"Content-Type {content_type!r}")
check(etag is not None and modified is not None, f"ETag {etag!r} and Last-Modified {modified!r}")

d = feedparser.parse(raw)
check(not d.bozo, f"well formed ({d.get('bozo_exception')!r})")
check(d.version == "atom10", f"Atom 1.0 ({d.version!r})")
check(d.feed.get("title") == "Songs of the day", f"the feed's title ({d.feed.get('title')!r})")
check(bool(d.feed.get("author")), "the feed has an author")
check(bool(d.feed.get("id")), "the feed has an id")
self_links = [link.get("href") for link in d.feed.get("links", []) if link.get("rel") == "self"]
check(self_links == [url], f"the self link is the feed's address ({self_links})")
check(bool(d.feed.get("updated_parsed")), "the feed has updated")
check(str(d.feed.get("updated", "")).endswith("T00:00:00Z"), f"the feed's updated is a day ({d.feed.get('updated')!r})")
check(modified is not None and modified.endswith(" 00:00:00 GMT"), f"Last-Modified is a day ({modified!r})")

entries = []
for e in d.entries:
    alternates = [link for link in e.get("links", []) if link.get("rel") == "alternate"]
    check(len(alternates) == 1 and alternates[0].get("type") == "text/html", f"{e.get('id')}: one alternate link to a page")
    enclosures = e.get("enclosures", [])
    check(len(enclosures) == 1 and enclosures[0].get("type", "").startswith("image/"), f"{e.get('id')}: one image enclosure ({enclosures})")
    check(e.get("published_parsed") is not None and e.get("updated_parsed") is not None, f"{e.get('id')}: published and updated")
    check(bool(e.get("id")) and bool(e.get("title")), "every entry has an id and a title")
    for field in ["published", "updated"]:
        parsed = e.get(field + "_parsed")
        check(str(e.get(field, "")).endswith("T00:00:00Z") and parsed is not None and parsed[3:6] == (0, 0, 0),
              f"{e.get('id')}: {field} is a day, no time of day and no offset ({e.get(field)!r})")
    entries.append({
        "id": e.get("id"),
        "title": e.get("title"),
        "link": alternates[0].get("href") if alternates else None,
        "cover": enclosures[0].get("href") if enclosures else None,
        "cover_type": enclosures[0].get("type") if enclosures else None,
        "thumbnail": (e.get("media_thumbnail") or [{}])[0].get("url"),
        "published": e.get("published"),
        "updated": e.get("updated"),
        "summary": e.get("summary"),
    })

# Only what a song of the day needs: the history stays home.
atom, media = "{http://www.w3.org/2005/Atom}", "{http://search.yahoo.com/mrss/}"
allowed = {atom + n for n in ["feed", "id", "title", "author", "name", "updated", "link", "generator", "entry", "published", "summary"]}
allowed.add(media + "thumbnail")
elements = {element.tag for element in ET.fromstring(raw).iter()}
check(elements <= allowed, f"only the expected elements ({sorted(elements - allowed)})")

# Conditional GETs, as a feed reader (and the poller) sends them.
again = feedparser.parse(url, etag=etag)
check(again.get("status") == 304, f"304 for the ETag ({again.get('status')})")
since = feedparser.parse(url, modified=modified)
modified_day = email.utils.parsedate_to_datetime(modified).date().isoformat() if modified else ""
expected = 200 if modified_day >= today else 304
check(since.get("status") == expected, f"{expected} for Last-Modified {modified!r} on {today} ({since.get('status')})")

print(json.dumps({"version": d.version, "title": d.feed.get("title"), "author": d.feed.get("author"),
                  "etag": etag, "last_modified": modified, "elements": sorted(elements), "entries": entries}))
if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
