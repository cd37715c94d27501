"""Image and video apps, agent and RAG apps and the servers beside them, shown by what every log of theirs prints
(ComfyUI's model manager, FramePack's loader, SD.Next's log file, uWSGI's banner, Open WebUI's start script, the
packages of Wan, HunyuanVideo, agenticSeek, Tracecat); and the vLLM logs that name such words, which stay vLLM's."""
import pytest

from bot.diagnose import diagnose
from bot.diagnose.reading import facts
from tests.support.programs import assert_shows_program

_NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
_LOADER = "OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n"

# the program's own lines, as the threads show them (the format strings of their sources where noted), then a stack
# error the bot answers on a bare line
OTHER_PROGRAMS = {
    # Fooocus (lllyasviel/Fooocus#188), StabilityMatrix#1382, ComfyUI#10862, comfyui-reactor-node#396: ComfyUI's
    # model manager, which Fooocus and Forge keep
    "ComfyUI or an app on its model manager": [
        "Total VRAM 8192 MB, total RAM 24575 MB\nxformers version: 0.0.20\nSet vram state to: NORMAL_VRAM\n",
        "Requested to load SDXLClipModel\nLoading 1 new model\n",
        "2025-11-24T15:06:58.220530 - loaded partially; 128.00 MB usable, 128.00 MB loaded, 114.00 MB offloaded, "
        "lowvram patches: 0\n",
        "loaded completely 0.0 159.55708122253418 True\n",
        "got prompt\nmodel weight dtype torch.float16, manual cast: None\n"],
    # FramePack#202, FramePack#271
    "FramePack": ["Unloaded CLIPTextModel as complete.\nLoaded CLIPTextModel to cuda:0 as complete.\n"],
    # SD.Next's installer.py setup_logging: its log file and its UI's JSON records; its GPU line, which kohya_ss's
    # GUI copied
    "SD.Next": [
        "2024-05-01 10:01:02,123 | myhost | sd | ERROR | processing_diffusers | Processing: args={}\n",
        '{ "asctime":"10:01:02-123456", "created":1714550462.12, "facility":"sd", "pid":1234, "tid":5678, '
        '"level":"ERROR", "module":"processing_diffusers", "func":"process_diffusers", "msg":"Processing" }\n',
        "Torch detected GPU: NVIDIA GeForce RTX 4090 VRAM 24217 Arch (8, 9) Cores 128\n",
        "Torch backend: nVidia CUDA 12.1 cuDNN 8801\n",
        # sdnext#1574 (its checkout's first name, vladmandic/automatic); its version and device lines
        "\u2502 D:\\SD\\Vlad\\automatic\\modules\\middleware.py:41 in log_and_time  \u2502\n",
        "Version: app=sd.next updated=2024-04-06 hash=e783b098 branch=master\n",
        "Device: device=NVIDIA GeForce RTX 4090 n=1 arch=sm_90 cap=(8, 9) cuda=12.1 cudnn=8902 driver=551.86\n"],
    # a diffusers pipeline class of a project's own (InstantCharacter's), and ComfyUI's nodes in its error dialog
    # (ComfyUI#10598's WanMoeKSampler, ComfyUI#10246's WanVideoSampler, HunyuanVideoWrapper#306's HyVideoVAELoader)
    # and its pipeline loader's progress bar (Hunyuan3D-2#102; pipelines/pipeline_utils.py)
    "diffusers": ["pipe = InstantCharacterFluxPipeline.from_pretrained(base_model, torch_dtype=torch.bfloat16)\n",
                  "Loading pipeline components...: 100%|\u2588\u2588\u2588\u2588| 6/6 [00:01<00:00,  5.04it/s]\n"],
    "ComfyUI": ["WanMoeKSampler\n", "SamplerCustomAdvanced\n"],
    "an image, video or voice app": [
        "WanVideoSampler\n", "HyVideoVAELoader\n",
        "Moving DynamicSwap_HunyuanVideoTransformer3DModelPacked to cuda:0 with preserved memory: 6 GB\n",
        # Wan2.2#134, Wan2GP#1956, FramePack#202
        '[rank7]:   File "/home/zwz/work/code/Wan2.2/wan/modules/vae2_1.py", line 660, in decode\n',
        '  File "C:\\Users\\user\\Desktop\\comfy\\Wan2GP-main\\wgp.py", line 7442, in generate_media\n',
        '  File "G:\\framepack\\FramePack\\diffusers_helper\\pipelines\\k_diffusion_hunyuan.py", line 116, in '
        'sample_hunyuan\n'],
    # searx/searx#2200, agenticSeek#195 (its compose project), open-webui#5250 (its start script)
    "uWSGI": ["[uWSGI] getting INI configuration from searx.ini\n*** Starting uWSGI 2.0.19.1 (32bit) on [Thu May 27 "
              "03:46:04 2021] ***\n"],
    "agenticSeek": ["frontend  | > agentic-seek@0.1.0 start\n", "Loading zero-shot pipeline...\n",
                    # its router's frame as its docker backend prints it (Fosowl/agenticSeek sources/router.py)
                    'backend  |   File "/app/sources/router.py", line 38, in load_pipelines\n'],
    "Open WebUI": ["CUDA is enabled, appending LD_LIBRARY_PATH to include torch/cudnn & cublas libraries.\n"],
    # Tracecat's executor runs each action as this Ray task (tracecat/executor/service.py)
    "Tracecat": ["(run_action_task pid=812) \n",
                 # its later executor's Ray task (tracecat/executor/service.py)
                 "ray::sync_executor_entrypoint() (pid=812, ip=172.18.0.5)\n"],
    # AUTOMATIC1111#12678: its model loader's lines (modules/sd_hijack.py, sd_models.py)
    "stable-diffusion-webui": ["Applying attention optimization: Doggettx... done.\nloading stable diffusion model: "
                               "RuntimeError\n", "Stable diffusion model failed to load\n"],
    # ollama#9782: the CLI's line when its llama.cpp runner dies (llm/server.go)
    "Ollama": ["Error: llama runner process has terminated: exit status 2\n"],
    # exllama#100: ExLlama v1's JIT-built extension
    "ExLlama": ["ImportError: DLL load failed while importing exllama_ext: The specified module could not be found.\n"],
    # infinity#242: the embedding server's logger
    "Infinity": ["ERROR    2024-06-02 08:21:46,304 infinity_emb ERROR: shape '[2, 512]' is invalid\n"],
    # DeepSpeed#454: its transformer kernels' cuBLAS wrapper (csrc/transformer/cublas_wrappers.cu)
    "DeepSpeed": ["!!!! kernel execution error. (m: 768, n: 4608, k: 3072, error: 13)\n"],
    "LangChain or LlamaIndex": ["llm = HuggingFacePipeline.from_model_id(model_id=model_id, task='text-generation')\n"],
}


@pytest.mark.parametrize("program,lines", [(p, line) for p, lines in sorted(OTHER_PROGRAMS.items()) for line in lines])
@pytest.mark.parametrize("error", [_NO_KERNEL, _LOADER])
def test_an_apps_own_lines_show_it(program, lines, error):
    assert_shows_program(lines + error, program)


def test_a_uwsgi_plugin_the_loader_cannot_open_is_uwsgis():
    # searx/searx#2200: uWSGI's plugin loader (core/plugins.c) reads like a loader error of vLLM's stack
    paste = ('open("./python3_plugin.so"): No such file or directory [core/utils.c line 3732]\n'
             "!!! UNABLE to load uWSGI plugin: ./python3_plugin.so: cannot open shared object file: No such file or "
             "directory !!!\n")
    assert_shows_program(paste, "uWSGI")


@pytest.mark.parametrize("words", [
    # vLLM-Omni serving Wan2.2, and a ComfyUI workflow that calls a vLLM server: vLLM's own lines keep them vLLM's
    "INFO 10-25 13:08:41 [omni.py:77] Loading Wan-AI/Wan2.2-T2V-A14B-Diffusers with wan/modules/ weights\n",
    "Requested to load SDXL\nloaded completely 0.0 159.55 True\n",
    "Total VRAM 24564 MB, total RAM 65457 MB\n",
    # vLLM-Omni loading a diffusion model's components with diffusers
    "Loading pipeline components...: 100%| 7/7 [00:03<00:00,  2.03it/s]\n",
])
def test_a_vllm_log_that_shows_them_stays_vllms(words):
    own = ("(EngineCore_DP0 pid=1) INFO 10-25 13:08:41 [core.py:77] Initializing a V1 LLM engine (v0.11.0)\n"
           + words + _NO_KERNEL)
    assert facts.extract(own)["vllm_printed"]
    assert diagnose(own).diagnoses[0].rule_id == "no-kernel-image"


def test_the_lines_are_anchored_where_prose_could_say_them():
    # words of such lines inside a sentence, or ComfyUI's line without its number, are no sign
    for text in ("the model was loaded completely after a retry\n", "I requested to load the model twice\n",
                 "loaded completely\n", "Loaded the model as complete. Then it failed\n"):
        assert facts.foreign_shape(text + _NO_KERNEL) is None, text
