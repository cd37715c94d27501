"""The NVIDIA driver's Xid lines and nvidia-smi's failures beside a vLLM log (build/xid_codes.py, the reader's
gpu_report, stack_families.xid_root)."""

from bot.diagnose import diagnose
from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.build import xid_codes
from bot.diagnose.reading import tracebacks

VLLM = "INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.8.5\n"
IMA = "ERROR 05-01 10:05:00 [core.py:400] RuntimeError: CUDA error: an illegal memory access was encountered\n"
LAUNCH = "ERROR 05-01 10:05:00 [core.py:400] RuntimeError: CUDA error: unspecified launch failure\n"


def _first(text):
    r = diagnose(text)
    return r.diagnoses[0] if r.diagnoses else None


def test_table_has_the_common_xids_with_a_group():
    rows = {r[0]: r for r in xid_codes.ROWS}
    for n in (13, 31, 32, 43, 45, 48, 62, 63, 64, 68, 69, 74, 79, 92, 94, 95, 109, 119, 120, 121, 140, 143,
              *range(144, 151)):
        assert n in rows, n
    assert rows[79][1] == "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS" and rows[79][3] == "RESTART_BM"
    assert {r[5] for r in xid_codes.ROWS} <= {"application", "cleanup", "notice", "memory", "bus", "firmware",
                                             "nvlink", "c2c"}


def test_index_reads_xid_lines():
    ix = stack_index.load()
    hits = ix.xids_in("[ 812.3] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.")
    assert [(h.kind, h.record.number, h.record.group) for h in hits] == [("xid", 79, "bus")]
    assert ix.xids_in("NVRM: Xid (0000:03:00): 48, An uncorrectable double bit error")[0].record.number == 48
    assert ix.xids_in("Xid 79 is bad") == []


def test_reader_keeps_gpu_reports_apart():
    text = LAUNCH + "[Mon May  1 10:05:00 2025] NVRM: Xid (PCI:0000:3b:00): 79, pid=2342, GPU has fallen off the bus.\n" \
        "No devices were found\n"
    msgs = tracebacks.messages(text)
    assert msgs[0].text == "RuntimeError: CUDA error: unspecified launch failure"
    assert msgs[1].text.startswith("NVRM: Xid (PCI:0000:3b:00): 79") and msgs[1].is_error
    assert msgs[2].text == "No devices were found" and msgs[2].is_error
    # a healthy nvidia-smi table is no error
    assert not [m for m in tracebacks.messages("| N/A   34C    P0    60W / 400W |   0MiB / 81920MiB |\n") if m.is_error]


def test_bare_xid_79_is_answered():
    d = _first("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n")
    assert d.rule_id == "stack-error-code" and "79" in d.title and "Reboot the machine" in d.fix


def test_hardware_xid_is_the_root_over_the_cuda_error_it_causes():
    for err in (IMA, LAUNCH):
        for xid in ("79, pid=2342, GPU has fallen off the bus.", "48, pid=2342, DBE (double bit error) ECC error",
                    "94, pid=2342, Contained: SM (0x1). RST: No, D-RST: No", "119, pid=2342, Timeout after 6s"):
            d = _first(VLLM + err + f"[ 812.3] NVRM: Xid (PCI:0000:3b:00): {xid}\n")
            assert d.rule_id == "stack-error-code" and "Xid" in d.title, (err, xid)


def test_application_xid_leaves_the_cuda_error_first():
    r = diagnose(VLLM + IMA + "[ 812.3] NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 1, "
                 "SM 0): Out Of Range Address\n[ 812.4] NVRM: Xid (PCI:0000:3b:00): 43, pid=2342, Ch 00000008\n")
    assert r.diagnoses[0].rule_id == "illegal-memory-access"
    assert r.facts["gpu_xids"] == [13, 43]


def test_nvidia_smi_gpu_is_lost():
    d = _first("Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost.  Reboot the system to recover "
               "this GPU\n")
    assert d.rule_id == "stack-error-code" and "NVML_ERROR_GPU_IS_LOST" in d.title and "Reboot the machine" in d.fix
