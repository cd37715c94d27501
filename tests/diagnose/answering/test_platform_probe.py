"""device-infer-failed names why vLLM found no platform from vLLM's own detection lines
(reading/facts.platform_probe): NVML's library missing (in a container the paste shows, or not), no GPU
counted, the driver not loaded, a CPU build; and stays generic when the paste shows only the final error."""

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.reading import facts

BOOK = load_rulebook(use_cache=False)

FINAL = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/config/device.py", line 78, in __post_init__\n'
         "    self.device = torch.device(self.device_type)\n"
         "RuntimeError: Device string must not be empty\n")
NO_PLATFORM = "INFO 08-29 04:29:54 [__init__.py:245] No platform detected, vLLM is running on UnspecifiedPlatform\n"


def probe(reason: str) -> str:
    return (f"DEBUG 08-29 04:29:54 [__init__.py:82] Exception happens when checking CUDA platform: {reason}\n"
            f"DEBUG 08-29 04:29:54 [__init__.py:99] CUDA platform is not available because: {reason}\n")


def best(text: str, lang: str = "en"):
    report = diagnose(text, lang=lang, book=BOOK)
    return report.diagnoses[0] if report.diagnoses else None


def test_probe_reads_each_reason_vllm_logs():
    assert facts.platform_probe(probe("NVML Shared Library Not Found")) == ("nvml_missing", "NVML Shared Library Not Found")
    assert facts.platform_probe(probe("Driver Not Loaded"))[0] == "driver_not_loaded"
    assert facts.platform_probe(probe("Insufficient Permissions"))[0] == "nvml_no_permission"
    assert facts.platform_probe("CUDA platform is not available because no GPU is found.\n")[0] == "no_gpu"
    # 0.8's two-part string literal prints as one sentence
    assert facts.platform_probe("CUDA platform is not available because vLLM is built with CPU.\n")[0] == "vllm_cpu_build"
    assert facts.platform_probe(NO_PLATFORM) == ("no_platform", None)
    assert facts.platform_probe(NO_PLATFORM + "WARNING x Failed to import from vllm._C with ImportError("
                                "'libcuda.so.1: cannot open shared object file: No such file or directory')")[0] == "libcuda_missing"
    assert facts.platform_probe("INFO Automatically detected platform cuda.\n") == (None, None)


def test_nvml_missing_in_a_docker_container_names_the_runtime_not_started():
    d = best("$ docker run --ipc=host vllm/vllm-openai:latest --model m\n" + probe("NVML Shared Library Not Found")
             + NO_PLATFORM + "Traceback (most recent call last):\n" + FINAL)
    assert d.rule_id == "device-infer-failed"
    assert "docker container" in d.cause and "NVIDIA runtime" in d.cause
    assert "--gpus all" in d.fix and "runtimeClassName: nvidia" in d.fix
    assert "Ray actor" not in d.cause                 # the generic list gives way to the reason


def test_nvml_missing_without_a_container_says_both_places():
    d = best(probe("NVML Shared Library Not Found") + NO_PLATFORM + "Traceback (most recent call last):\n" + FINAL)
    assert d.rule_id == "device-infer-failed"
    assert "Outside a container, no NVIDIA driver" in d.cause
    assert "CPU build" in d.fix


def test_no_gpu_counted_points_at_the_devices_not_cuda_visible_devices():
    d = best("DEBUG 04-25 [__init__.py:66] CUDA platform is not available because no GPU is found.\n"
             + NO_PLATFORM + "Traceback (most recent call last):\n" + FINAL)
    assert "NVIDIA_VISIBLE_DEVICES=none" in d.cause
    assert "nvidia-smi -L" in d.fix


def test_driver_not_loaded_is_the_hosts_kernel_module():
    d = best(probe("Driver Not Loaded") + NO_PLATFORM + "Traceback (most recent call last):\n" + FINAL, "zh")
    assert d.rule_id == "device-infer-failed"
    assert "Driver Not Loaded" in d.cause and "lsmod" in d.fix


def test_only_the_final_error_stays_generic():
    d = best("Traceback (most recent call last):\n" + FINAL)
    assert d.rule_id == "device-infer-failed"
    assert "--gpus all" in d.cause and "platform check says why" not in d.cause


BASE_RAISE = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/platforms/interface.py", line 201, in is_async_output_supported\n'
              "    raise NotImplementedError\nNotImplementedError\n")


def test_the_placeholders_not_implemented_method_is_no_platform_but_a_plugins_is_not():
    d = best(NO_PLATFORM + "Traceback (most recent call last):\n" + BASE_RAISE)
    assert d.rule_id == "device-infer-failed" and "placeholder platform" in d.cause
    # an out-of-tree platform that announced itself and lacks a method is that plugin's gap, not a missing GPU
    d = best("INFO 08-18 15:31:33 [__init__.py:245] Platform plugin ascend is activated\n"
             "Traceback (most recent call last):\n" + BASE_RAISE)
    assert d is None or d.rule_id != "device-infer-failed"


NOT_INSTALLED = ("WARNING 05-04 15:44:48 [__init__.py:26] The vLLM package was not found, so its version could not be "
                 "inspected. This may cause platform detection to fail.\n")


def test_vllm_not_installed_as_vllm_is_its_own_cause_unless_nvml_spoke_first():
    assert facts.platform_probe(NOT_INSTALLED + NO_PLATFORM)[0] == "vllm_not_installed"
    assert facts.platform_probe(probe("No package metadata was found for vllm") + NO_PLATFORM)[0] == "vllm_not_installed"
    # NVML's own reason is the CUDA platform's first failure: the warning (from another plugin) is not why
    assert facts.platform_probe(NOT_INSTALLED + probe("NVML Shared Library Not Found") + NO_PLATFORM)[0] == "nvml_missing"
    assert best(NOT_INSTALLED + NO_PLATFORM + FINAL).rule_id == "vllm-package-not-found"
    # the warning where a platform was found is no cause
    found = NOT_INSTALLED + "INFO 05-04 15:44:48 [__init__.py:243] Automatically detected platform cuda.\n"
    assert not any(d.rule_id == "vllm-package-not-found" for d in diagnose(found, book=BOOK).diagnoses)


def test_the_containers_command_without_a_gpu_is_named_with_its_fix():
    run = "$ docker run -p 8000:8000 --ipc=host vllm/vllm-openai:v0.8.5 --model Qwen/Qwen2.5-7B-Instruct\n"
    d = best(run + probe("NVML Shared Library Not Found") + NO_PLATFORM + FINAL)
    assert d.rule_id == "device-infer-failed"
    assert "docker run --gpus all -p 8000:8000" in d.fix
    with_gpus = run.replace("docker run", "docker run --gpus all")
    assert "Your command with it" not in best(with_gpus + probe("NVML Shared Library Not Found") + NO_PLATFORM + FINAL).fix


def test_an_amd_gpu_is_told_its_rocm_build_not_nvidias_runtime():
    rocm_torch = "PyTorch version: 2.5.1+rocm6.2\n"
    amdsmi = ("DEBUG 11-26 10:00:00 [__init__.py:120] ROCm platform is not available because: No module named 'amdsmi'\n")
    assert facts.platform_probe(rocm_torch + probe("NVML Shared Library Not Found") + amdsmi + NO_PLATFORM) == \
        ("rocm_amdsmi_missing", "No module named 'amdsmi'")
    # without the paste showing ROCm, the ROCm line of a CUDA machine is no reason
    assert facts.platform_probe(probe("NVML Shared Library Not Found") + amdsmi + NO_PLATFORM)[0] == "nvml_missing"
    d = best(rocm_torch + probe("NVML Shared Library Not Found") + amdsmi + NO_PLATFORM + FINAL)
    assert "pip install /opt/rocm/share/amd_smi" in d.fix and "--gpus all" not in d.fix
    # no ROCm line: an AMD GPU with NVML missing is the CUDA build on AMD, not a container without NVIDIA's runtime
    run = "$ docker run -p 8000:8000 vllm/vllm-openai:v0.8.5 --model m\n"
    d = best(run + rocm_torch + probe("NVML Shared Library Not Found") + NO_PLATFORM + FINAL)
    assert "ROCm build" in d.fix and "--gpus all" not in d.fix
