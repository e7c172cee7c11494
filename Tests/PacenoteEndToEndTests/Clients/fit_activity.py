"""Writes a FIT activity with fit-tool (PyPI), a real encoder, for the FIT import tests.

fit_activity.py OUT SPORT START SECONDS FIRST_BPM
  SPORT: running or cycling; START: Unix seconds; a record each second with heart rate
  FIRST_BPM + (i % 40), one lap and one session over the whole time.
"""
import sys

from fit_tool.fit_file_builder import FitFileBuilder
from fit_tool.profile.messages.file_id_message import FileIdMessage
from fit_tool.profile.messages.lap_message import LapMessage
from fit_tool.profile.messages.record_message import RecordMessage
from fit_tool.profile.messages.session_message import SessionMessage
from fit_tool.profile.profile_type import FileType, Manufacturer, Sport, SubSport

out, sport, start, seconds, first_bpm = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
start_ms = start * 1000  # fit-tool takes times in Unix milliseconds

file_id = FileIdMessage()
file_id.type = FileType.ACTIVITY
file_id.manufacturer = Manufacturer.DEVELOPMENT.value
file_id.product = 0
file_id.time_created = start_ms
file_id.serial_number = 0x12345678

builder = FitFileBuilder(auto_define=True, min_string_size=50)
builder.add(file_id)
for i in range(seconds):
    record = RecordMessage()
    record.timestamp = start_ms + i * 1000
    record.heart_rate = first_bpm + (i % 40)
    record.distance = i * 3.0
    builder.add(record)

end_ms = start_ms + (seconds - 1) * 1000
lap = LapMessage()
lap.timestamp = end_ms
lap.start_time = start_ms
lap.total_elapsed_time = seconds - 1
lap.total_timer_time = seconds - 1
builder.add(lap)

session = SessionMessage()
session.timestamp = end_ms
session.start_time = start_ms
session.total_elapsed_time = seconds - 1
session.total_timer_time = seconds - 1
session.sport = Sport.RUNNING if sport == "running" else Sport.CYCLING
session.sub_sport = SubSport.GENERIC
builder.add(session)

builder.build().to_file(out)
