"""Answers from the versions a paste shows where no error line is answered (knowledge/stack/environment.py): a driver
older than torch's CUDA major, a GPU torch's CUDA cannot target, torch's CPU build beside an NVIDIA GPU."""

from bot.diagnose import diagnose
from bot.diagnose.knowledge.stack import environment, stack_index
from bot.diagnose.pipeline import _default_book

SMI = "| NVIDIA-SMI {d}   Driver Version: {d}   CUDA Version: {c}     |\n"
ROW = "|   0  {gpu}          Off  | 00000000:00:07.0 Off |                    0 |\n"
VLLM = "INFO 06-10 12:00:00 api_server.py:177] vLLM API server version 0.5.0\n"


def _paste(driver, cuda, gpu, torch, tail="(it just exits)\n", head="$ nvidia-smi\n"):
    return (head + SMI.format(d=driver, c=cuda) + ROW.format(gpu=gpu) + "$ pip list | grep torch\n"
            + f"torch                    {torch}\n" + VLLM + tail)


def test_driver_of_an_older_cuda_major_than_torch_is_answered_from_the_nvidia_smi_line():
    r = diagnose(_paste("470.182.03", "11.4", "NVIDIA A10", "2.3.0+cu121"))
    assert r.verdict == "diagnosed"
    d = r.diagnoses[0]
    assert d.rule_id == "driver-too-old" and d.matched_by == "environment"
    assert d.line_no == 2 and "Driver Version: 470.182.03" in d.evidence
    assert 0.6 <= d.confidence < 0.7
    assert "torch 2.3.0+cu121 is built for CUDA 12.1" in " ".join(d.cause.split())
    assert "470.182.03" in d.cause and "forward-compatibility" in d.cause
    assert any("No error line" in c for c in d.caveats)


def test_the_answer_and_its_caveat_in_chinese():
    d = diagnose(_paste("470.182.03", "11.4", "NVIDIA A10", "2.3.0+cu121"), lang="zh").diagnoses[0]
    assert "彼此无法配合" in d.cause and "2.3.0+cu121" in d.cause
    assert any("没有哪一行报错" in c for c in d.caveats)


def test_minor_version_compatibility_is_no_finding():
    # driver 535 runs CUDA 12.2; a CUDA 12.4 build runs on it (minor-version compatibility)
    r = diagnose(_paste("535.161.08", "12.2", "NVIDIA A100-SXM4-80GB", "2.5.1+cu124"))
    assert not r.diagnoses and r.verdict == "no_error"


def test_a_datacenter_gpu_in_a_container_may_run_cuda_compat():
    paste = _paste("470.182.03", "11.4", "NVIDIA A100-SXM4-80GB", "2.3.0+cu121",
                   head="$ docker run --gpus all vllm/vllm-openai:v0.5.0\n")
    assert not diagnose(paste).diagnoses
    consumer = _paste("470.182.03", "11.4", "NVIDIA GeForce RTX 3090", "2.3.0+cu121",
                      head="$ docker run --gpus all vllm/vllm-openai:v0.5.0\n")
    assert diagnose(consumer).best.rule_id == "driver-too-old"


def test_blackwell_with_a_cuda_before_12_8_has_no_kernels():
    r = diagnose(_paste("570.86.10", "12.8", "NVIDIA GeForce RTX 5090", "2.5.1+cu124", tail="it hangs\n"))
    d = r.diagnoses[0]
    assert d.rule_id == "no-kernel-image" and d.matched_by == "environment"
    assert d.evidence.startswith("torch") and "2.5.1+cu124" in d.evidence and d.line_no == 5
    assert "CUDA 12.4, which cannot compile for the NVIDIA GeForce RTX 5090" in " ".join(d.cause.split())
    # torch itself lacks the kernel: no attention backend to switch to
    assert "TRITON_ATTN" not in d.fix and "XFORMERS" not in d.fix


def test_a_newer_minor_of_the_same_architecture_runs_the_older_cubins():
    facts = {"torch_cuda": "11.0", "compute_capability": "8.6", "gpu_name": "NVIDIA A10"}
    assert not environment.no_kernel(facts, "")                   # sm_80's cubins run on sm_86
    assert environment.no_kernel({**facts, "torch_cuda": "11.7", "compute_capability": "9.0",
                                  "gpu_name": "NVIDIA H100 80GB HBM3"}, "")
    assert not environment.no_kernel({**facts, "torch_cuda": "11.8", "compute_capability": "9.0",
                                      "gpu_name": "NVIDIA H100 80GB HBM3"}, "")
    # CUDA 13 compiles for nothing below Turing
    assert environment.no_kernel({"torch_cuda": "13.0", "compute_capability": "7.0", "gpu_name": "Tesla V100"}, "")
    assert not environment.no_kernel({"torch_cuda": "12.8", "compute_capability": "7.0", "gpu_name": "Tesla V100"}, "")


def test_a_mixed_box_is_no_finding():
    text = ROW.format(gpu="NVIDIA GeForce RTX 5090") + ROW.format(gpu="NVIDIA GeForce RTX 4090")
    facts = {"torch_cuda": "12.4", "compute_capability": "12.0", "gpu_name": "NVIDIA GeForce RTX 5090"}
    assert not environment.no_kernel(facts, text)


def test_driver_check_reads_the_index_table():
    ix = stack_index.load()
    assert environment.driver_too_old({"torch_cuda": "12.1", "driver_version": "470.182.03"}, ix)
    assert not environment.driver_too_old({"torch_cuda": "12.8", "driver_version": "535.247.01"}, ix)
    assert environment.driver_too_old({"torch_cuda": "13.0", "driver_cuda": "12.8", "driver_version": "570.86.10"}, ix)
    # the version's own tag where no line says torch's CUDA
    assert environment.driver_too_old({"torch_version": "2.3.0+cu121", "driver_version": "470.182.03"}, ix)


def test_cpu_torch_beside_an_nvidia_gpu():
    r = diagnose(_paste("550.54.15", "12.4", "NVIDIA GeForce RTX 4090", "2.5.1+cpu"))
    d = r.diagnoses[0]
    assert d.rule_id == "torch-not-cuda-build" and d.matched_by == "environment" and "2.5.1+cpu" in d.evidence
    assert "CPU-only build, and the paste shows an NVIDIA GPU" in " ".join(d.cause.split())


def test_cpu_torch_of_vllms_cpu_build_is_no_finding():
    paste = ("INFO 06-10 12:00:00 [__init__.py:1] Automatically detected platform cpu.\n"
             "torch                    2.5.1+cpu\n" + VLLM)
    assert not diagnose(paste).diagnoses


def test_an_error_of_its_own_is_not_answered_from_the_versions():
    paste = _paste("470.182.03", "11.4", "NVIDIA A10", "2.3.0+cu121",
                   tail="Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
                        "KeyError: 'my_custom_field'\n")
    assert all(d.matched_by != "environment" for d in diagnose(paste).diagnoses)


def test_healthy_versions_give_no_candidate():
    facts = {"stack_context": True, "torch_version": "2.5.1+cu124", "torch_cuda": "12.4", "driver_version": "550.54.15",
             "driver_cuda": "12.4", "gpu_name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}
    book = _default_book()
    assert environment.candidates(book, facts, "") == []
    old = {**facts, "driver_version": "470.182.03", "driver_cuda": "11.4"}
    assert [c.rule.id for c in environment.candidates(book, old, "")] == []     # no line shows it: no evidence
    shown = SMI.format(d="470.182.03", c="11.4")
    assert [c.rule.id for c in environment.candidates(book, old, shown)] == ["driver-too-old"]
