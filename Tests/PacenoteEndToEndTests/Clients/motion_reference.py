"""Reference files and readings for the motion import tests (issue 54), from independent libraries.

motion_reference.py fit OUT START SECONDS
  Writes a running FIT activity with fit-tool (PyPI): a record each second with heart rate,
  speed, distance, altitude, cadence (strides), power and position; two laps and a session
  with total_calories. Then reads it back with fitdecode (PyPI) and prints JSON:
  {"records": [{"ts", "speed", "distance", "altitude", "cadence", "power", "lat", "lon"}],
   "laps": [{"start", "elapsed", "calories"}], "calories"} (times in Unix seconds, degrees).

motion_reference.py gpx OUT START SECONDS
  Writes a GPX track with gpxpy (PyPI): a point each second along a bending line, climbing and
  falling, with gpxtpx:hr and gpxtpx:cad; prints gpxpy's {"length_2d", "length_3d", "points"}.
"""
import json
import math
import sys

FIT_EPOCH = 631065600


def write_fit(out, start, seconds):
    from fit_tool.fit_file_builder import FitFileBuilder
    from fit_tool.profile.messages.file_id_message import FileIdMessage
    from fit_tool.profile.messages.lap_message import LapMessage
    from fit_tool.profile.messages.record_message import RecordMessage
    from fit_tool.profile.messages.session_message import SessionMessage
    from fit_tool.profile.profile_type import FileType, Manufacturer, Sport, SubSport

    start_ms = start * 1000  # fit-tool takes Unix milliseconds
    file_id = FileIdMessage()
    file_id.type = FileType.ACTIVITY
    file_id.manufacturer = Manufacturer.DEVELOPMENT.value
    file_id.product = 0
    file_id.time_created = start_ms
    file_id.serial_number = 0x12345678
    builder = FitFileBuilder(auto_define=True, min_string_size=50)
    builder.add(file_id)
    distance = 0.0
    for i in range(seconds):
        speed = 2.8 + 0.6 * math.sin(i / 17)  # m/s
        record = RecordMessage()
        record.timestamp = start_ms + i * 1000
        record.heart_rate = 120 + i % 40
        record.speed = speed
        record.distance = distance
        record.altitude = 30 + 12 * math.sin(i / 40)
        record.cadence = 80 + i % 9  # strides a minute, one foot
        record.power = 200 + (i * 7) % 120
        record.position_lat = 52.5 + i * 0.00002
        record.position_long = 13.4 + i * 0.00001
        builder.add(record)
        distance += speed
    half = seconds // 2
    for first, last, kcal in ((0, half, 31), (half, seconds - 1, 29)):
        lap = LapMessage()
        lap.timestamp = start_ms + last * 1000
        lap.start_time = start_ms + first * 1000
        lap.total_elapsed_time = last - first
        lap.total_timer_time = last - first
        lap.total_calories = kcal
        builder.add(lap)
    session = SessionMessage()
    session.timestamp = start_ms + (seconds - 1) * 1000
    session.start_time = start_ms
    session.total_elapsed_time = seconds - 1
    session.total_timer_time = seconds - 1
    session.total_calories = 60
    session.sport = Sport.RUNNING
    session.sub_sport = SubSport.GENERIC
    builder.add(session)
    builder.build().to_file(out)


def unix(value):
    """fitdecode gives datetimes (or raw FIT seconds for an unknown layout)."""
    if hasattr(value, "timestamp"):
        return value.timestamp()
    return value + FIT_EPOCH


def read_fit(path):
    import fitdecode

    records, laps, calories = [], [], None
    semicircle = 180 / 2 ** 31
    with fitdecode.FitReader(path) as fit:
        for frame in fit:
            if frame.frame_type != fitdecode.FIT_FRAME_DATA:
                continue
            get = lambda name: frame.get_value(name, fallback=None)
            if frame.name == "record":
                lat, lon = get("position_lat"), get("position_long")
                records.append({
                    "ts": unix(get("timestamp")), "speed": get("speed"), "distance": get("distance"),
                    "altitude": get("altitude"), "cadence": get("cadence"), "power": get("power"),
                    "lat": None if lat is None else lat * semicircle, "lon": None if lon is None else lon * semicircle,
                })
            elif frame.name == "lap":
                laps.append({"start": unix(get("start_time")), "elapsed": get("total_elapsed_time"),
                             "calories": get("total_calories")})
            elif frame.name == "session":
                calories = get("total_calories")
    return {"records": records, "laps": laps, "calories": calories}


def write_gpx(out, start, seconds):
    import datetime
    import xml.etree.ElementTree as ET
    import gpxpy
    import gpxpy.gpx

    ns = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
    gpx = gpxpy.gpx.GPX()
    gpx.nsmap["gpxtpx"] = ns
    track = gpxpy.gpx.GPXTrack(name="Reference run")
    track.type = "running"
    gpx.tracks.append(track)
    segment = gpxpy.gpx.GPXTrackSegment()
    track.segments.append(segment)
    lat, lon = 52.5, 13.4
    for i in range(seconds):
        heading = i / 90  # radians: the line bends
        lat += 2.8 * math.cos(heading) / 111_320
        lon += 2.8 * math.sin(heading) / (111_320 * math.cos(math.radians(lat)))
        point = gpxpy.gpx.GPXTrackPoint(
            latitude=lat, longitude=lon, elevation=40 + 15 * math.sin(i / 60),
            time=datetime.datetime.fromtimestamp(start + i, datetime.timezone.utc))
        extension = ET.Element("{%s}TrackPointExtension" % ns)
        ET.SubElement(extension, "{%s}hr" % ns).text = str(130 + i % 30)
        ET.SubElement(extension, "{%s}cad" % ns).text = str(84 + i % 5)
        point.extensions.append(extension)
        segment.points.append(point)
    with open(out, "w") as f:
        f.write(gpx.to_xml())
    return {"length_2d": gpx.length_2d(), "length_3d": gpx.length_3d(), "points": seconds}


if __name__ == "__main__":
    kind, out, start, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if kind == "fit":
        write_fit(out, start, seconds)
        print(json.dumps(read_fit(out)))
    elif kind == "gpx":
        print(json.dumps(write_gpx(out, start, seconds)))
    else:
        sys.exit("fit or gpx")
