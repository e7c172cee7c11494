"""Writes a FIT workout file (type 5) with fit-tool (PyPI), a real encoder, for the plan
import tests: the interval session of issue 55 as a watch's editor would save it.

fit_workout.py OUT [bad]
  steps: a 10-minute warm-up in heart-rate zone 2; 2 minutes at 160-175 bpm ("hard") and
  3 minutes of recovery in zone 2, repeated 6 times; 20 minutes at a cadence of 85-95;
  4 × [30 s at 105-120 % of threshold power, 30 s open target], an open cool-down in zone 1.
  With `bad`, a step of 1 km (a distance, which a timed plan cannot follow).
"""
import sys

from fit_tool.fit_file_builder import FitFileBuilder
from fit_tool.profile.messages.file_id_message import FileIdMessage
from fit_tool.profile.messages.workout_message import WorkoutMessage
from fit_tool.profile.messages.workout_step_message import WorkoutStepMessage
from fit_tool.profile.profile_type import (FileType, Intensity, Manufacturer, Sport, WorkoutStepDuration,
                                           WorkoutStepTarget)

out = sys.argv[1]
bad = len(sys.argv) > 2 and sys.argv[2] == "bad"

file_id = FileIdMessage()
file_id.type = FileType.WORKOUT
file_id.manufacturer = Manufacturer.DEVELOPMENT.value
file_id.product = 0
file_id.time_created = 1_763_794_800_000
file_id.serial_number = 0x12345678


def step(index, name=None, duration=None, seconds=None, target=WorkoutStepTarget.OPEN, zone=None, low=None, high=None,
         intensity=Intensity.ACTIVE):
    s = WorkoutStepMessage()
    s.message_index = index
    if name:
        s.workout_step_name = name
    s.duration_type = duration if duration is not None else WorkoutStepDuration.TIME
    if seconds is not None:
        s.duration_time = seconds  # fit-tool scales seconds to the profile's milliseconds
    s.target_type = target
    s.target_value = zone if zone is not None else 0
    if low is not None:
        s.custom_target_value_low = low
        s.custom_target_value_high = high
    s.intensity = intensity
    return s


steps = [
    step(0, seconds=600, target=WorkoutStepTarget.HEART_RATE, zone=2, intensity=Intensity.WARMUP),
    step(1, name="hard", seconds=120, target=WorkoutStepTarget.HEART_RATE, low=260, high=275, intensity=Intensity.INTERVAL),
    step(2, seconds=180, target=WorkoutStepTarget.HEART_RATE, zone=2, intensity=Intensity.RECOVERY),
]
repeat = WorkoutStepMessage()
repeat.message_index = 3
repeat.duration_type = WorkoutStepDuration.REPEAT_UNTIL_STEPS_CMPLT
repeat.duration_value = 1
repeat.target_value = 6
steps.append(repeat)
if bad:
    s = step(4, seconds=None, duration=WorkoutStepDuration.DISTANCE)
    s.duration_distance = 1000
    steps.append(s)
else:
    steps.append(step(4, seconds=1200, target=WorkoutStepTarget.CADENCE, low=85, high=95))
steps.append(step(5, seconds=30, target=WorkoutStepTarget.POWER, low=105, high=120, intensity=Intensity.INTERVAL))
steps.append(step(6, seconds=30))
again = WorkoutStepMessage()
again.message_index = 7
again.duration_type = WorkoutStepDuration.REPEAT_UNTIL_STEPS_CMPLT
again.duration_value = 5
again.target_value = 4
steps.append(again)
steps.append(step(8, duration=WorkoutStepDuration.OPEN, target=WorkoutStepTarget.HEART_RATE, zone=1, intensity=Intensity.COOLDOWN))

workout = WorkoutMessage()
workout.workout_name = "6 x 2 min"
workout.sport = Sport.RUNNING
workout.num_valid_steps = len(steps)

builder = FitFileBuilder(auto_define=True, min_string_size=16)
builder.add(file_id)
builder.add(workout)
builder.add_all(steps)
builder.build().to_file(out)
