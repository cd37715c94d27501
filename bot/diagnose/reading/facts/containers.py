"""A container the paste runs (`docker run`, podman, a compose file): its image, whether its command asks for the GPU
and the command with the GPU asked for, and an image that is neither vLLM's nor a framework's that hosts it.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe

from .patterns import _P


# A container the paste runs: `docker run [options] IMAGE [command]` (podman's, nvidia-docker's; a command continued
# with backslashes, after a prompt or in inline code) and a compose file's `image:` lines. An error raised inside a
# container is its image's program's: one that is not vLLM's image is another program, like the CUDA base image
# that only runs nvidia-smi. vLLM's images name vLLM (vllm/vllm-openai, a custom tag built on it, which a mention
# already keeps vLLM's); so do the images of the frameworks that host it.
_CONTAINER_RUN = _P(r"(?:^|[`$#>➜] ?)[ \t]*(?:sudo[ \t]+(?:-E[ \t]+)?)?(?:nvidia-docker|docker|podman)[ \t]+(?:container[ \t]+)?"
                    r"run[ \t]+((?:\\\n|[^\n]){1,1500})", re.M,
                    literals=("docker run", "podman run", "container run"), span=1600)
_COMPOSE_IMAGE = _P(r"^[ \t]*image:[ \t]*['\"]?([^\s'\"#]{1,200})", re.M, literals=("image:",))
# docker run's options that take no value (the rest take the next word unless written `--opt=value`)
_RUN_FLAGS = frozenset(("--rm", "--privileged", "--init", "--detach", "--interactive", "--tty", "--read-only",
                        "-P", "--publish-all", "--no-healthcheck", "--oom-kill-disable", "--sig-proxy"))
_IMAGE_NAME = LazyRe(r"[a-z0-9][a-z0-9._/-]*(?::[\w.-]+)?(?:@sha256:[0-9a-f]+)?")
_PROSE_WORDS = frozenset("a an the it its this that my your with without and or but on in as for from to using "
                         "is was command commands image images container containers again".split())
# images of vLLM and of the frameworks that run it (verl, OpenRLHF, LLaMA-Factory, Xinference, GPUStack, Ray's LLM
# images, KServe's huggingfaceserver, LMCache, Dynamo, NIM, ms-swift and ModelScope's, NeMo-RL, SkyRL, EasyR1,
# LocalAI, OpenLLM): lower-case substrings of the image's name (Axolotl's and Unsloth's are _FOREIGN_RUNNERS)
_VLLM_HOST_IMAGES = ("vllm", "verl", "openrlhf", "llamafactory", "llama-factory", "xinference", "gpustack",
                     "ray-llm", "rayproject/ray", "kserve", "huggingfaceserver", "lmcache", "dynamo", "nvcr.io/nim/",
                     "ms-swift", "modelscope", "nemo-rl", "skyrl", "easyr1", "localai", "openllm")
# The container engine refusing to start the container (no NVIDIA runtime, the toolkit's hook failing, a pull that
# failed): the image's program never ran, but the paste is still that program's deployment, which a vLLM channel
# does not answer; only images that exist to test the GPU or to build on (CUDA's bases and samples, plain OS
# images) stay the stack's to answer, as the first step of any vLLM container's set-up.
_GPU_TEST_IMAGES = LazyRe(r"(?:^|/)(?:cuda|cuda-sample|samples|ubuntu|debian|centos|rockylinux|almalinux|fedora|"
                          r"alpine|busybox|nbody)(?::|@|$)")
_CONTAINER_NOT_STARTED = ("error response from daemon", "oci runtime create failed", "nvidia-container-cli",
                          "could not select device driver", "unresolvable cdi devices", "error running hook",
                          "error running prestart hook", "failed to create shim", "unknown or invalid runtime name",
                          "unknown runtime specified", "failed to register layer", "pull access denied",
                          "error pulling image")


def container_image(text: str) -> str | None:
    """The image of the first container the paste runs (docker/podman run, a compose file), if it names one."""
    m = _CONTAINER_RUN.search(text)
    if m:
        words = [w.strip("`'\"") for w in m.group(1).replace("\\\n", " ").split()]
        while words and words[0].startswith("-"):
            flag = words.pop(0)
            takes_value = "=" not in flag and flag not in _RUN_FLAGS and not re.fullmatch(r"-[dit]+", flag)
            if takes_value and words:
                words.pop(0)
        image = words[0] if words else ""
        if _IMAGE_NAME.fullmatch(image) and image not in _PROSE_WORDS:
            return image
    m = _COMPOSE_IMAGE.search(text)
    return m.group(1) if m and _IMAGE_NAME.fullmatch(m.group(1)) else None


# What gives a container the GPU: docker's `--gpus`, the NVIDIA runtime (`--runtime nvidia`, the `nvidia-docker`
# wrapper), a CDI device (`--device nvidia.com/gpu=all`, podman's way) or the device nodes by name; a compose file's
# device reservation, `runtime: nvidia` or `gpus:`.
_RUN_GPU_REQUEST = LazyRe(r"--gpus\b|--runtime[= ]+['\"]?nvidia|--device[= ]+['\"]?(?:nvidia\.com/gpu|/dev/nvidia)"
                          r"|--cdi-device|nvidia_visible_devices", re.I)
_COMPOSE_GPU_REQUEST = LazyRe(r"^\s*(?:runtime:\s*['\"]?nvidia|driver:\s*['\"]?nvidia|gpus:|capabilities:.*\bgpu\b"
                              r"|-\s*['\"]?nvidia\.com/gpu)", re.I | re.M)
_OTHER_ACCELERATOR = LazyRe(r"cpu|xpu|rocm|amd|tpu|neuron|hpu|gaudi|openvino|ascend|npu|arm64|aarch64", re.I)
_OTHER_DEVICE = LazyRe(r"/dev/(?:dri|kfd|accel|neuron|davinci)")
_COMPOSE_SERVICES = _P(r"^services:\s*$", re.M, literals=("services:",))


def container_gpu_request(text: str) -> str | None:
    """How the paste's own container command asks for the GPU: `none` where the `docker run` / `podman run` it shows
    asks for none, `requested` where it (or a compose file) does, None where it shows neither. Only the command's own
    words count, whatever the rest of the log says."""
    m = _CONTAINER_RUN.search(text)
    if m:
        command = text[max(0, m.start() - 20):m.end(1)]
        if "nvidia-docker" in command or _RUN_GPU_REQUEST.search(m.group(1)):
            return "requested"
        image = container_image(text)
        # another vendor's image or device (vLLM's CPU, XPU, ROCm, TPU, Neuron, Gaudi builds) needs no NVIDIA GPU
        if not image or _OTHER_ACCELERATOR.search(image) or _OTHER_DEVICE.search(m.group(1)):
            return None
        return "none"
    # a compose file pasted in part may hold its device reservation in the part left out: only its request is read
    if _COMPOSE_SERVICES.search(text) and _COMPOSE_IMAGE.search(text) and _COMPOSE_GPU_REQUEST.search(text):
        return "requested"
    return None


def container_gpu_command(text: str) -> str | None:
    """The paste's `docker run` / `podman run` line with `--gpus all` added after `run` (podman: the CDI device),
    for a command that asks for no GPU (the caller has checked: container_gpu_request is "none"); only a command
    on one line, as the user can copy it back."""
    m = _CONTAINER_RUN.search(text)
    if not m or "\\\n" in m.group(1):
        return None
    line = text[m.start():m.end(1)].strip().lstrip("`$#> ").rstrip("`").strip()
    flag = "--device nvidia.com/gpu=all" if re.match(r"(?:sudo\s+(?:-E\s+)?)?podman\b", line) else "--gpus all"
    fixed, n = re.subn(r"\brun\b", f"run {flag}", line, count=1)
    return fixed if n and len(fixed) <= 600 else None


def _container_program(text: str) -> str | None:
    """A container of an image that is neither vLLM's nor a framework's that hosts it, whose program ran."""
    image = container_image(text)
    if image is None or any(h in image for h in _VLLM_HOST_IMAGES):
        return None
    low = text.lower()
    if any(m in low for m in _CONTAINER_NOT_STARTED) and _GPU_TEST_IMAGES.search(image):
        return None
    return f"`{image}` (a container image that is not vLLM's)"
