"""Reads a run's TensorBoard event files with tensorboard's own EventAccumulator.

Prints one JSON object: every scalar as [step, value] per tag, the HParams plugin's session
start (hparams, group) and end (status name); RunRecordingTest compares them with the job's.
"""
import json
import sys

from tensorboard.backend.event_processing import event_accumulator
from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2

accumulator = event_accumulator.EventAccumulator(
    sys.argv[1], size_guidance={event_accumulator.SCALARS: 0, event_accumulator.TENSORS: 0})
accumulator.Reload()

out = {"scalars": {}, "hparams": {}, "group": None, "status": None}
for tag in accumulator.Tags()[event_accumulator.SCALARS]:
    # repr of the float32 value widened to a Python float: exact, so Java compares bits
    out["scalars"][tag] = [[e.step, e.value] for e in accumulator.Scalars(tag)]
for tag, content in accumulator.PluginTagToContent("hparams").items():
    data = plugin_data_pb2.HParamsPluginData.FromString(content)
    if data.HasField("session_start_info"):
        start = data.session_start_info
        out["group"] = start.group_name
        for name, value in start.hparams.items():
            out["hparams"][name] = getattr(value, value.WhichOneof("kind"))
    if data.HasField("session_end_info"):
        out["status"] = api_pb2.Status.Name(data.session_end_info.status)
print(json.dumps(out))
