"""Signs of another program that a paste shows without naming it: the container image it runs, a training loop's
progress lines, FFmpeg's and SGLang's old record headers, NVENC; and the vLLM pastes they must leave alone."""
import pytest

from bot.diagnose import diagnose
from bot.diagnose.reading import facts

# text-generation-inference#1312's command line: options with and without values, then the image
TGI_RUN = ("sudo docker run --gpus all --shm-size 1g -p 3000:80 -v $volume:/data "
           "ghcr.io/huggingface/text-generation-inference:1.0.0 --model-id $model --quantize bitsandbytes")
# vllm#9420's command line, continued with backslashes, before vLLM's own flags
VLLM_RUN = ("docker run --runtime nvidia --gpus all \\\n    -v /home/ids/llm_models/zephyr:/root/.cache/huggingface \\\n"
            "    --env \"HUGGING_FACE_HUB_TOKEN=<key>\" \\\n    -p 8080:8080 \\\n    --ipc=host \\\n"
            "    vllm/vllm-openai:latest \\\n    --model \"/root/.cache/huggingface/zephyr-7b-alpha.Q8_0.gguf\" \\\n")
# transformers' message when the Hub is unreachable, as llm-transparency-tool#18 printed it
HUB_DOWN = ("OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached "
            "files and it looks like gpt2 is not the path to a directory containing a file named config.json.\n")


def test_the_image_a_docker_run_starts_is_read_past_its_options():
    assert facts.container_image(TGI_RUN) == "ghcr.io/huggingface/text-generation-inference:1.0.0"
    assert facts.container_image(VLLM_RUN) == "vllm/vllm-openai:latest"
    assert facts.container_image("docker run --rm -p 7860:7860 llm_transparency_tool\n") == "llm_transparency_tool"
    assert facts.container_image("services:\n  ollama:\n    image: ollama/ollama\n") == "ollama/ollama"
    # prose that names the command runs no image
    assert facts.container_image("I tried docker run with the --gpus flag\n") is None


def test_an_error_inside_another_images_container_is_that_programs():
    f = facts.extract("docker run --rm -p 7860:7860 llm_transparency_tool\n" + HUB_DOWN)
    assert "llm_transparency_tool" in f["foreign_context"] and not f["stack_context"]
    assert diagnose("docker run --rm -p 7860:7860 llm_transparency_tool\n" + HUB_DOWN).diagnoses == []


def test_vllms_images_and_the_frameworks_that_host_it_are_not_another_program():
    for image in ("vllm/vllm-openai:v0.10.1", "avarok/dgx-vllm-nvfp4-kernel:v22", "verlai/verl:base",
                  "hiyouga/llamafactory:latest", "xprobe/xinference:latest", "gpustack/gpustack:latest",
                  "kserve/huggingfaceserver:latest"):
        f = facts.extract(f"docker run --gpus all {image}\n" + HUB_DOWN)
        assert f["foreign_context"] is None and f["stack_context"], image
    assert diagnose(f"docker run --gpus all verlai/verl:base\n{HUB_DOWN}").diagnoses[0].rule_id == "hf-unreachable"


def test_the_daemon_refusing_another_programs_image_is_that_programs_deployment():
    # linonetwo/MOSS-DockerFile#2: MOSS's image, which the daemon would not start: MOSS's set-up, not vLLM's
    refusal = "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n"
    moss = "docker run --gpus all -it --volume=/home/moss:/mnt/llm -d linonetwo/moss:int4\n" + refusal
    assert "linonetwo/moss:int4" in (facts.extract(moss)["foreign_context"] or "")
    assert not diagnose(moss).diagnoses
    # the CUDA base image that only runs nvidia-smi is the first step of any GPU container's set-up: answered
    cuda = "docker run --rm --gpus all nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n" + refusal
    assert facts.extract(cuda)["foreign_context"] is None
    assert diagnose(cuda).diagnoses[0].rule_id == "container-gpu-runtime-missing"
    # and vLLM's own image, of course
    ours = "docker run --gpus all -p 8000:8000 vllm/vllm-openai:latest --model Qwen/Qwen2.5-7B-Instruct\n" + refusal
    assert diagnose(ours).diagnoses[0].rule_id == "container-gpu-runtime-missing"


def test_a_training_loops_epoch_and_loss_lines_show_another_program():
    for line in ("{| Epoch: 54/167 (1922/1926) | Loss: 0.2836 | 0.89 steps/s | Step: 424k | }",   # MockingBird#774
                 "[04/23 13:54:10 d2.utils.events]:  eta: 1:56:49  iter: 79  total_loss: 2.734  lr: 0.0015996",
                 "INFO:tensorflow:global step 60: loss = 11.7182 (0.427 sec/step)",                  # tensorflow#17669
                 " 39/100 [==========>..........] - ETA: 29s - loss: 2.4585e-06 - binary_accuracy: 0.0635"):
        assert "training loop" in (facts.program_sign(line + "\n") or ""), line
    # vLLM's own records have steps but no loss; an option named for a loss is no loss value
    for line in ("INFO 05-21 23:17:46 [gpu_model_runner.py:2400] Graph capturing finished in 5 secs, took 0.5 GiB",
                 "--max_epochs 1 --save_steps 3 --aux_loss_coef 0.01 --entropy_loss_coef 0.0"):
        assert facts.program_sign(line + "\n") is None, line


def test_ffmpeg_and_old_sglang_records_show_their_program():
    ffmpeg = "[AVHWDeviceContext @ 0x562894e1d340] Could not dynamically load CUDA\n"      # jellyfin#7036
    windows = "[h264_nvenc @ 00000219ccbba800] Driver does not support the required nvenc API version.\n"
    assert "FFmpeg" in facts.foreign_shape(ffmpeg) and "FFmpeg" in facts.foreign_shape(windows)
    assert "SGLang" in facts.foreign_shape("[gpu_id=0] Load weight end. type=Qwen2ForCausalLM, avail mem=11.57 GB\n")
    # a vLLM log that also shows a video decoder's warning is still vLLM's
    own = ("(EngineCore_DP0 pid=1) INFO 10-25 13:08:41 [core.py:77] Initializing a V1 LLM engine (v0.11.0)\n"
           "[h264 @ 0x94adf00] mmco: unref short failure\n")
    f = facts.extract(own)
    assert f["vllm_printed"] and f["stack_context"]


# The container's own command asks for the GPU or not (docker run, podman run, a compose file).
@pytest.mark.parametrize("text, expected", [
    ("$ docker run -p 8000:8000 --ipc=host vllm/vllm-openai:v0.8.5 --model Qwen/Qwen2.5-7B", "none"),
    ("sudo docker run --rm -it \\\n  -p 8000:8000 \\\n  vllm/vllm-openai:latest --model m", "none"),
    ("docker run --runtime nvidia -p 8000:8000 vllm/vllm-openai --model m", "requested"),
    ("docker run --gpus '\"device=0,1\"' vllm/vllm-openai --model m", "requested"),
    ("podman run --device nvidia.com/gpu=all vllm/vllm-openai --model m", "requested"),
    ("nvidia-docker run -p 8000:8000 vllm/vllm-openai --model m", "requested"),
    # another vendor's build or device needs no NVIDIA GPU
    ("docker run -it --device /dev/dri intel/vllm:xpu --model m", None),
    ("docker run -it vllm/vllm-openai-cpu:latest --model m", None),
    # a compose file may be pasted in part: no request seen is no sign of none
    ("services:\n  vllm:\n    image: vllm/vllm-openai:latest\n    ports:\n      - 8000:8000\n", None),
    ("services:\n  vllm:\n    image: vllm/vllm-openai:latest\n    deploy:\n      resources:\n        reservations:\n"
     "          devices:\n            - driver: nvidia\n              capabilities: [gpu]\n", "requested"),
    ("I ran it in docker and it failed", None),
])
def test_container_gpu_request(text, expected):
    assert facts.container_gpu_request(text) == expected


def test_container_gpu_command_adds_the_flag_after_run():
    line = "$ docker run -p 8000:8000 vllm/vllm-openai:v0.8.5 --model m"
    assert facts.container_gpu_command(line) == "docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.8.5 --model m"
    assert facts.container_gpu_command("podman run -it vllm/vllm-openai --model m") == \
        "podman run --device nvidia.com/gpu=all -it vllm/vllm-openai --model m"
    # a command continued over lines is not one the user can copy back whole
    assert facts.container_gpu_command("docker run \\\n  vllm/vllm-openai --model m") is None
