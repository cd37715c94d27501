"""Other programs a paste may be from where no marker names them: their log's shape, what they do that vLLM never does
(training, another engine's words), a Rust program's panic, a container of another image, an app's own logger, an
executable the loader could not start. Other inference engines, whose users' mentions of vLLM do not make it vLLM's.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe

from .containers import _container_program
from .patterns import _P
from .traceback_frames import _STACK_PACKAGES


# Log formats no program of vLLM's stack writes, judged by their shape where the program's name may be cut away:
# Go's structured logger with the source file (Ollama's server: "time=... level=ERROR source=sched.go:455
# msg=..."), and SGLang's record header, which names its parallel ranks ("[2025-04-17 16:15:33 TP0] Scheduler
# hit an exception", "[... TP0 EP0]", "[... DP1 TP3]"), and the time-with-microseconds header of SD.Next's logger,
# which text-generation-webui took over ("22:16:19-842024 INFO     Command line args: ...").
_FOREIGN_SHAPES = [
    ("Ollama or another Go server (its `level=... source=file.go` log)",
     _P(r"\blevel=(?:ERROR|WARN|INFO|DEBUG) source=[\w./-]+\.go:\d+", literals=(" source=",))),
    # Go's log/slog text records without the source ("time=2026-09-19T20:06:59.547Z level=ERROR msg=..."):
    # dcgm-exporter, the device plugins, Go servers; unquoted time and upper-case level are slog's (the docker
    # CLI's logrus lines, which a vLLM image's start may print, quote the time and write the level in lower case)
    ("a Go program (its `time=... level=... msg=` log)",
     _P(r"(?:^|\s)time=\d{4}-\d\d-\d\dT\S+ level=(?:DEBUG|INFO|WARN|ERROR) msg=", re.M, literals=(" level=",))),
    ("SGLang (its `[date TP0]` log records)",
     _P(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: (?:TP|DP|EP|PP)\d+)+\]", literals=(" TP", " DP"))),
    # SGLang's records before its `[date TP0]` header (0.1-0.2, 2024): "[gpu_id=0] Load weight begin.",
    # "[gpu_id=3] Memory pool end. avail mem=2.52 GB"; vLLM names no GPU so in any record, and after whatever a log
    # collector put before it (docker compose's "svc-1  | ", journald's, a colour code)
    ("SGLang (its `[gpu_id=N]` log records)",
     _P(r"\[gpu_id=\d+\] ", literals=("[gpu_id=",))),
    # FFmpeg's log records name the component and its address ("[h264_nvenc @ 0x5612d4a0] Cannot load ...",
    # "[AVHWDeviceContext @ 0x562894e1d340] cu->cuInit(0) failed", on Windows "[h264_nvenc @ 00000219ccbba800]"):
    # a media server's or a video tool's transcoding (Jellyfin, Plex, Frigate, HandBrake), whose CUDA errors read
    # like vLLM's; a vLLM log with a video decoder's warning prints vLLM's own lines, which keep it vLLM's
    ("FFmpeg or a media tool built on it (its `[component @ 0x...]` log)",
     _P(r"^\[[A-Za-z][\w:-]{1,40} @ (?:0x)?[0-9a-fA-F]{6,16}\] ", re.M, literals=(" @ 0",))),
    ("SD.Next or text-generation-webui (their `HH:MM:SS-micro LEVEL` log)",
     _P(r"^\d\d:\d\d:\d\d-\d{6} (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) ", re.M,
        literals=(" DEBUG ", " INFO ", " WARNING ", " ERROR ", " CRITICAL "))),
    # SD.Next's log file sdnext.log ("%(asctime)s | {hostname} | %(name)s | %(levelname)s | %(module)s | %(message)s",
    # its logger named "sd"; before 2024 without the host) and the JSON records of its UI's log view ('{ "asctime":
    # "...", "created":..., "facility":"sd", "pid":..., ...}'), installer.py's setup_logging
    ("SD.Next (its `| sd | LEVEL | module |` log)",
     _P(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \| (?:[^|\n]{1,80} \| )?sd \| "
        r"(?:DEBUG|TRACE|INFO|WARNING|ERROR|CRITICAL) \| \w+ \| |\"facility\":\s?\"sd\", \"pid\":", re.M,
        literals=(" | sd | ", '"facility":'))),
    # the torch lines of SD.Next's installer (installer.py: "Torch backend: nVidia CUDA 12.1 cuDNN 8801", "Torch
    # detected GPU: NVIDIA GeForce RTX 4090 VRAM 24217 Arch (8, 9) Cores 128"), which kohya_ss's GUI copied ("... VRAM
    # 24564MB Arch 8.9 Cores 128")
    # and SD.Next's device line and toolkit probe ("Device: device=NVIDIA GeForce RTX 4090 n=1 arch=sm_90 cap=(8, 9)
    # cuda=12.1 cudnn=8902 driver=551.86", "nVidia CUDA toolkit detected: nvidia-smi present")
    ("SD.Next or kohya_ss's GUI (their `Torch backend:` and `Torch detected GPU:` lines)",
     _P(r"\bTorch detected GPU: [^\n]{1,120}? VRAM \d+(?:MB)? Arch |"
        r"\bTorch backend: (?:nVidia CUDA [\d.]+ cuDNN |AMD ROCm HIP )|"
        r"\bDevice: device=[^\n]{1,120}? n=\d+ arch=\S+ cap=\(\d+, ?\d+\)|\bnVidia CUDA toolkit detected\b",
        literals=("Torch detected GPU", "Torch backend: ", "Device: device=", "nVidia CUDA toolkit detected"))),
    # a diffusers pipeline class loaded by the paste's code or a frame's source line (StableDiffusionXLPipeline,
    # FluxPipeline, a project's own InstantCharacterFluxPipeline): transformers builds its pipelines with the
    # pipeline() function, and vLLM has no such classes
    ("diffusers (an image or video generation pipeline)",
     _P(r"\b[A-Z]\w*Pipeline\.from_(?:pretrained|single_file)\(", literals=("Pipeline.from_",))),
    # The model manager of ComfyUI (comfy/model_management.py, model_patcher.py, server.py), which Forge, Fooocus
    # (ldm_patched/), SwarmUI's backend and ComfyUI's desktop app keep: the lines every run prints as it loads and
    # offloads models ("Total VRAM 8192 MB, total RAM 32694 MB", "Set vram state to: NORMAL_VRAM", "got prompt",
    # "Requested to load SDXLClipModel", "Loading 1 new model", "loaded completely 0.0 159.55 True", "loaded
    # partially; 128.00 MB usable, ...", "model weight dtype torch.float16, manual cast: None"), also behind the
    # desktop app's "[2024-11-06 23:41:06.479] " or ComfyUI-Manager's "2025-11-24T15:06:58.204434 - " stamps
    ("ComfyUI or an app on its model manager (Forge, Fooocus, SwarmUI: its `Requested to load` lines)",
     _P(r"^(?:\[[\d:.,/ T-]{8,32}\] *|\d{4}-\d\d-\d\dT[\d:.]+ - )?(?:Requested to load \w|"
        r"loaded (?:completely|partially);? -?[\d.]|Loading \d+ new models?$|Total VRAM \d+ MB, total RAM \d+ MB|"
        r"Set vram state to: [A-Z_]+|model weight dtype torch\.\w+, manual cast: |got prompt$)", re.M,
        literals=("Requested to load", "loaded completely", "loaded partially", " new model", "Total VRAM",
                  "Set vram state", "model weight dtype", "got prompt"))),
    # FramePack's model loader (diffusers_helper/memory.py), which its forks and wrappers keep: "Moving
    # DynamicSwap_HunyuanVideoTransformer3DModelPacked to cuda:0 with preserved memory: 6 GB", "Offloading ... to
    # preserve memory: 8 GB", "Loaded CLIPTextModel to cuda:0 as complete.", "Unloaded SiglipVisionModel as complete."
    ("FramePack (its `Loaded ... as complete.` lines)",
     _P(r"^(?:Unloaded \w+ as complete\.|Loaded \w+ to \S+ as complete\.|Moving \w+ to \S+ with preserved memory: |"
        r"Offloading \w+ from \S+ to preserve memory: )", re.M,
        literals=("as complete.", "preserved memory:", "preserve memory:"))),
    # DeepSpeed's logger: "[2023-08-18 10:54:39,821] [INFO] [real_accelerator.py:133:get_accelerator] ..."
    # (comma milliseconds, then file:line:function); importing deepspeed prints it, so a trainer that merely
    # has it installed shows it, and a run that starts vLLM shows vLLM's own lines beside it
    ("DeepSpeed (its `[date] [LEVEL] [file.py:line:function]` log)",
     _P(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] \[(?:DEBUG|INFO|WARNING|ERROR)\] \[\w+\.py:\d+:\w+\]",
        re.M, literals=("] [INFO] [", "] [WARNING] [", "] [ERROR] [", "] [DEBUG] ["))),
    # FastChat's logger, which the projects built on it keep (Langchain-Chatchat): "date | LEVEL | name | msg",
    # its workers' stderr redirected as "| ERROR | stderr |"; its vLLM worker's log names vllm_worker
    ("FastChat (its `date | LEVEL | logger |` log)",
     _P(r"^(?:\S+ )?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \| (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \| [\w.-]+ \| ",
        re.M, literals=(" | INFO | ", " | ERROR | ", " | WARNING | ", " | DEBUG | "))),
    # LocalAI's model loader and the backend processes it runs (pkg/model): "Loading Model X with gRPC (file: F) (backend:
    # B): {...}", older "Loading GRPC Model X: {backendString:...", and each backend's output relayed as "GRPC(<model>-
    # 127.0.0.1:<port>): stderr ...". Its backends are diffusers, transformers, llama.cpp, ... and vLLM itself: a log
    # of its vLLM backend shows vLLM's own lines or names vLLM as the backend, which keep it vLLM's
    ("LocalAI (its gRPC backend log)",
     _P(r"\bwith gRPC \(file: [^)\n]*\) \(backend: |\bLoading GRPC Model [^:\n]+: \{backendString:|"
        r"\bGRPC\([^()\n]{1,300}-127\.0\.0\.1:\d+\): std(?:err|out) ",
        literals=("with gRPC (file:", "Loading GRPC Model", "GRPC("))),
    # Jupyter's server: "[I 2024-01-01 12:00:00.123 ServerApp] ...", "[W 12:00:00.123 NotebookApp] ...",
    # "[I ... KernelRestarter] ..."; a notebook's kernel prints vLLM's lines where vLLM runs in it
    ("a Jupyter server (its `[I time ServerApp]` log)",
     _P(r"^\[[DIWEC] (?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d\.\d{3} (?:ServerApp|NotebookApp|LabApp|KernelRestarter)\]",
        re.M, literals=("ServerApp]", "NotebookApp]", "LabApp]", "KernelRestarter]"))),
]


# Other inference engines, which serve models on their own and never start vLLM (their _FOREIGN names and the names of
# their _FOREIGN_SHAPES). Their users often name vLLM beside their log ("vLLM serves the same model on this GPU",
# "nevertheless vllm is stable", a vLLM setting compared with theirs): such a mention does not make the engine's error
# vLLM's; only a sign that vLLM ran in the paste does (_vllm_ran). The front ends and frameworks that relay or host a
# vLLM server (Open WebUI, RAGFlow, LocalAI, Triton's vLLM backend, FastChat, Xinference) are not among them, nor is
# Aphrodite Engine, a fork of vLLM whose messages and fixes are vLLM's: a paste that names vLLM beside it is answered.
_OTHER_ENGINES = frozenset((
    "SGLang", "Ollama", "llama.cpp or another GGML program", "llama.cpp or a binding of it", "whisper.cpp", "LoRAX",
    "TGI", "text-embeddings-inference", "Infinity (an embedding server)", "LightLLM", "TensorRT-LLM", "LMDeploy",
    "KoboldCpp",
    "ExLlama or TabbyAPI", "MLC LLM or Apache TVM", "mistral.rs", "LM Studio",
    "SGLang (its `[date TP0]` log records)", "SGLang (its `[gpu_id=N]` log records)",
))


def foreign_shape(text: str) -> str | None:
    """The program whose log format the paste shows, where that format is no program of vLLM's stack's."""
    return next((name for name, pattern in _FOREIGN_SHAPES if pattern.search(text)), None)


# What another program does, where nothing names it: signs read only where the paste does not mention vLLM at
# all (a mention keeps it vLLM's, not_vllm), and after a vLLM server's error relayed through a client.
# vLLM only infers: it prints no training loss, steps no optimizer, calls no backward pass, loads no model
# through transformers' or diffusers' model classes, and keeps no training tracker. Trainers that run vLLM
# for rollouts (verl, OpenRLHF, TRL's GRPO) print vLLM's own lines or name it where vLLM fails inside them.
_PROGRAM_SIGNS = [
    # a progress bar whose postfix is a training loss (tqdm's "[00:10<4:06:13, 1.73s/step, loss=0.656]",
    # kohya's "avr_loss=0.134") or whose label is a task vLLM does not do: training epochs and steps, a
    # speech transcription ("Epoch 2/30:   0%|", "steps:  18%|", "Train (loss 63.31) epoch 1:   3%|",
    # "Transcribe:   0%|")
    ("a training or transcription loop (its progress bar)",
     _P(r"\d+(?:\.\d+)?(?:s/it|it/s|s/step|step/s)?, (?:\w+_)?loss=-?\d|"
        r"(?im:^\s*(?:epoch|steps?|training|train|transcrib\w*|(?:\w+ )?frames)\b[^|\n]{0,60}:\s+\d{1,3}%\|)",
        literals=("loss=", "%|"))),
    # a training loop's own progress lines: an epoch, iteration or step counter and a loss value on one line
    # ("{| Epoch: 54/167 (1922/1926) | Loss: 0.2836 |", "iter 100: loss 2.3456", "Epoch [1/10], Step [100/600],
    # Loss: 0.21", "iter: 79  total_loss: 2.734", "INFO:tensorflow:global step 60: loss = 11.7182"), and Keras'
    # bar (" 39/100 [=====>.....] - ETA: 29s - loss: 2.4585e-06"); vLLM computes no loss
    ("a training loop (its epoch or step lines with a loss)",
     _P(r"(?im)^[^\n]{0,200}?\b(?:epochs?|iter(?:ation)?s?|steps?)\b[^\n]{0,200}?\b(?:\w+[_ ])?loss\b[\s:=(|]{0,3}"
        r"-?\d|\s-\s(?:\w+_)?loss:\s-?\d", literals=("loss", "Loss", "LOSS"))),
    # a training loop's epoch counter on a line of its own ("Epoch: 0", "epoch 3/100"), printed before the batch that
    # failed; vLLM runs no epochs
    ("a training loop (its epoch counter)",
     _P(r"(?im)^[ \t]*epoch[ \t]*[:=]?[ \t]*\d+(?:[ \t]*/[ \t]*\d+)?[ \t]*$", literals=("epoch", "Epoch", "EPOCH"))),
    # NVIDIA's video encoder, which vLLM never uses: FFmpeg's and PyAV's NVENC encoders ("h264_nvenc",
    # "ERROR:libav.h264_nvenc:Driver does not support the required nvenc API version") and the Video Codec SDK's
    # session ("nvEncOpenEncodeSessionEx ... returned error 2")
    ("a video encoder (NVENC)",
     _P(r"\b(?:h264|hevc|av1)_nvenc\b|\bnvEncOpenEncodeSession", literals=("_nvenc", "nvEncOpenEncodeSession"))),
    # trainers' own log records: the Hugging Face Trainer's dicts ("{'loss': 1.23, 'grad_norm': ...",
    # "'train_runtime':") and banner, OpenMMLab's runner ("Epoch [6][3150/3681]\tlr: ...", mmengine's
    # "Epoch(train)  [6][150/501]"), the classic "Epoch: [1][43/48]" of PyTorch's examples, Lightning's banner
    ("a model trainer (its training log records)",
     _P(r"\{'(?:train_)?loss': -?[\d.]+|'train_runtime': |\*{5} Running training \*{5}|"
        r"\bEpoch(?:\(train\))?:? *\[\d+\] *\[\d+/\d+\]|^GPU available: (?:True|False)(?: \(\w+\))?, used: ",
        re.M, literals=("'loss': ", "'train_loss': ", "'train_runtime'", "Running training", "Epoch",
                        "GPU available: "))),
    # Weights & Biases, the training tracker: "wandb: Tracking run with wandb version 0.18.7",
    # "wandb: Run summary:"
    ("a training run tracked by Weights & Biases",
     _P(r"^wandb: (?:Tracking run|Run summary|Run history|Syncing run|Currently logged in|"
        r"🚀 View run|You can sync this run|Find logs at)", re.M, literals=("wandb: ",))),
    # the paste's code, or a traceback's source line, trains a model: a backward pass, an optimizer or a
    # trainer stepping ("loss.backward()", "accelerator.backward(loss)", "trainer.train()"). Not a model loaded
    # with transformers (`LlamaForCausalLM.from_pretrained`): such a bare script's stack errors are answered
    ("a script that trains a model (its backward pass or optimizer step)",
     _P(r"\b\w+\.backward\(|\boptimizer\.step\(|\btrainer\.(?:train|fit)\(",
        literals=(".backward(", "optimizer.step(", "trainer.train(", "trainer.fit("))),
    # the script run, named on a command line, in prose or in a frame: a training script (train.py,
    # tools/train.py, train_net.py, finetune.py, pretrain_*.py, a project's own deepbind_train_encode.py (one word
    # before it, not an RL trainer's grpo_train.py), their shell launchers (tools/dist_train.sh,
    # scripts/finetune_lora.sh), the Hugging Face examples' run_clm.py and
    # the scripts derived from them such as run_clm_sft_with_peft.py; not the RL trainers' train_grpo.py or
    # train_ppo_ray.py, which start vLLM), a model's chat or web demo (cli_demo.py, web_demo.py,
    # huatuo_cli_demo_stream.py, demo_gradio.py, gradio_demo.py, a transformers-only inference_hf.py), a speech
    # model's synthesis script (FastSpeech2's and Tacotron's synthesize.py, Coqui TTS's TTS/bin/synthesize.py; vLLM
    # serves speech through its API server, and no file of it is named so), a web UI's
    # launcher (webui.py, launch.py; not torch's, accelerate's or DeepSpeed's launch.py), or a research
    # code base's entry point driven by its config file (`python main.py --config ...`). vLLM is started as
    # `vllm serve` or from a script that imports it, and its own files have none of these names.
    ("a training script, a model's demo or a web UI (the script it runs)",
     _P(r"(?<![\w.-])(?:(?:dist_|(?!(?:grpo|ppo|rloo|rlhf|online|rl|vllm)_)[a-z0-9]+_)?"
        r"(?:train|finetune|fine_tune|pretrain)(?!\w*(?:grpo|ppo|rloo|rlhf|online))\w*"
        r"\.(?:py|sh)|(?:\w*(?:cli|web)_?demo\w*|demo_gradio|gradio_demo|webui|(?:\w+_)?synthesi[sz]e\w*|"
        # a web UI's launch.py, not the launchers of torch (distributed/launch.py), accelerate (commands/launch.py)
        # and DeepSpeed (launcher/launch.py), which start whatever script they are given
        r"(?<![/\\]distributed[/\\])(?<![/\\]commands[/\\])(?<![/\\]launcher[/\\])launch|inference_hf|"
        r"run_(?:clm|mlm|plm|glue|xnli|ner|qa|swag|seq2seq|summarization|translation|speech_recognition|"
        r"image_classification|mae|mim|clip)\w*)\.py)\b|"
        r"\bpython[\d.]* +(?:-u +)?[\w./\\-]*\bmain\.py +--c(?:fg|onfig)\b",
        re.I, literals=("train", "Train", "finetune", "pretrain", "demo", "webui", "launch.py", "main.py", "run_",
                        "inference_hf", "synthesi", "Synthesi"))),
    # Python log records in formats that no program of vLLM's stack writes (vLLM logs "INFO 12-02 09:36:21
    # [file.py:200] ...", the stack beneath it Python's logging): loguru's ("2024-02-18 17:02:12.379 | INFO     |
    # __main__:load_model:359 - Restored model from checkpoint", fish-speech's tools/llama/generate.py), which apps and
    # toolkits log through (fish-speech, data-juicer, MinerU), and rich's logging handler, whose records put the time,
    # the level padded to eight columns and the message first and the source file right-aligned at the end
    # ("12:02:34 INFO     Loading VAE...   generate.py:368", "[11/07/23 12:02:34] WARNING  ...   cli.py:83";
    # animatediff-cli and the diffusers apps like it). Read only where nothing names vLLM (a client that logs so and
    # relays a vLLM server's answer is answered as the relayed error before any of these signs) and not in a Ray
    # job's log, whose actors may host vLLM
    ("a Python program that logs through loguru (its `date | LEVEL | module:function:line - ` records)",
     _P(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,6})? \| (?:TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL) *\| "
        r"[A-Za-z_<][\w.<>-]*:[\w<>.]+:\d+ - ",
        literals=(" | TRACE ", " | DEBUG ", " | INFO ", " | SUCCESS ", " | WARNING ", " | ERROR ", " | CRITICAL "))),
    ("a program that logs through rich (its `time LEVEL message  file.py:line` records)",
     _P(r"^\[?(?:\d\d/\d\d/\d\d )?\d\d:\d\d:\d\d\]? (?:DEBUG {4}|INFO {5}|WARNING {2}|ERROR {4}|CRITICAL )\S[^\n]*? {2,}"
        r"[\w.-]+\.py:\d+[ \t]*$", re.M,
        literals=(" DEBUG    ", " INFO     ", " WARNING  ", " ERROR    ", " CRITICAL "))),
    # Go's runtime and loggers, in no program of vLLM's stack: a panic's goroutine dump ("goroutine 1
    # [running]:"), the standard log's "2023/10/19 03:11:54 " stamp at a line's start (after a container
    # runtime's own prefix), klog's header naming a .go source ("I0819 07:02:54.756486  1 main.go:235]")
    ("a Go program (its panic or log format)",
     _P(r"^goroutine \d+ \[[\w ,]+\]:$|"
        r"^(?:\S+ (?:stdout|stderr) [FP] )?\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S|"
        r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [\w.-]+\.go:\d+\]",
        re.M, literals=("goroutine ", "/0", "/1", ".go:"))),
    # a C++ test binary built on GoogleTest ("Running main() from .../gtest_main.cc", "[==========] Running 8 tests from
    # 1 test suite.", "[ RUN      ] Params/FusionTest.ModUp/0"): a project's own CUDA code under test, none of vLLM's
    ("a C++ test program (GoogleTest)",
     _P(r"^\[=+\] Running \d+ tests? from|^\[ RUN {6}\] \S|\bgtest_main\.cc\b", re.M,
        literals=("] Running ", "[ RUN ", "gtest_main"))),
    # Lua's traceback (Torch7's `th train.lua` on cutorch)
    ("a Lua program (its `stack traceback:`)",
     _P(r"^stack traceback:\s*\n\s*\[C\]: in ", re.M, literals=("stack traceback:",), span=200)),
    # the paste's own words: the failure came while training a model ("I encountered the following error while
    # training the model:", "when fine-tuning my LoRA"), or while generating an image or a video
    # ("Launching ... and generating an image gives", "img2img", "text-to-image"); vLLM infers text and names itself where
    # it generates (vLLM-Omni's image and video models are served by `vllm serve ... --omni`, which a mention keeps
    # vLLM's). Not an image a prompt carries: "generating image captions", "image embeddings" are a multimodal model's
    ("a training run (the paste says it was training a model)",
     _P(r"(?i)\b(?:while|when|during|after|before|for|start(?:ing)?|try(?:ing)? to) (?:the |my |a )?(?:lora )?"
        r"(?:training|fine-?tuning)\b|\b(?:train|training|fine-?tune|fine-?tuning) (?:the |my |a |an )(?:\w+ )?"
        r"(?:model|lora)\b", literals=("train", "Train", "TRAIN", "tun", "Tun"))),
    ("an image or video generator (the paste says it was generating one)",
     _P(r"(?i)\b(?:generat(?:e|ing)|render(?:ing)?|upscal(?:e|ing)|inpaint(?:ing)?) (?:an |the |a |my )?(?:\w+ )?"
        r"(?:images?|videos?|pictures?|photos?)\b(?! (?:captions?|descriptions?|embeddings?|tokens?|inputs?|features?|"
        r"understanding|tags?|urls?|data|prompts?|placeholders?)\b)|\b(?:txt2img|img2img|text-to-(?:image|video)|"
        r"image-to-video)\b",
        literals=("enerat", "ender", "pscal", "npaint", "2img", "-to-"))),
    # the web and task frameworks apps run their work under, by the record format each configures: a Celery worker
    # ("[2024-03-01 10:00:02,456: ERROR/ForkPoolWorker-1] Task app.tasks.run[...] raised unexpected: ...", celery/app/
    # log.py's worker format) and Flask's default handler ("[2024-03-01 10:00:02,456] ERROR in app: Exception on /x
    # [POST]", flask/logging.py); vLLM serves with uvicorn and runs under neither
    ("a Celery worker (its `[date: LEVEL/process]` records)",
     _P(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}: (?:DEBUG|INFO|WARNING|ERROR|CRITICAL)/[\w-]+\] ", re.M,
        literals=(": ERROR/", ": INFO/", ": WARNING/", ": DEBUG/", ": CRITICAL/"))),
    ("a Flask app (its `[date] LEVEL in module:` records)",
     _P(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) in \w+: ", re.M,
        literals=(" ERROR in ", " INFO in ", " WARNING in ", " DEBUG in ", " CRITICAL in "))),
]
# Rust crates of vLLM's stack, whose panics surface inside vLLM's Python process (tokenizers, safetensors,
# the Hub's Xet client, tiktoken, the grammar engines, openai-harmony): a panic in them is the stack's
_STACK_CRATES = ("tokenizers", "safetensors", "hf_xet", "hf-xet", "xet", "cas_client", "tiktoken", "outlines",
                 "llguidance", "minijinja", "pyo3", "harmony", "blake3")
# Rust's panic message: "thread 'main' panicked at src/main.rs:12:5:", "thread '<unnamed>' (2785453)
# panicked at /home/u/.cargo/registry/src/index.crates.io-.../cudarc-0.13.9/src/driver/safe/core.rs:257:76:"
_RUST_PANIC = _P(r"thread '([^'\n]{1,60})'(?: \(\d+\))? panicked at '?([^\n]{0,300})", literals=("panicked at",))
_CRATE_SOURCE = LazyRe(r"[/\\]\.?cargo[/\\]registry[/\\]src[/\\][^/\\\s]+[/\\]([A-Za-z][\w-]*?)-\d")


def _rust_program(text: str) -> str | None:
    """A Rust program's own panic: on its main thread (Rust names the main thread 'main' only in a Rust
    binary; a Python process's threads are '<unnamed>' to it), or in a registry crate that is none of the
    stack's, where no Python traceback (pyo3's PanicException) shows a Python process hosting it."""
    m = _RUST_PANIC.search(text)
    if m is None or "Traceback (most recent call last)" in text or "PanicException" in text:
        return None
    thread, where = m.group(1), m.group(2).lower()
    if any(c in where for c in _STACK_CRATES):
        return None
    crate = _CRATE_SOURCE.search(where)
    return "a Rust program (its panic)" if thread == "main" or crate else None


def program_sign(text: str) -> str | None:
    """The other program a paste that never mentions vLLM shows by what it does or how it logs."""
    return next((name for name, pattern in _PROGRAM_SIGNS if pattern.search(text)), None) \
        or _rust_program(text) or _container_program(text) or _logger_program(text)


# Python's logging records that carry the logger's name, in the formats apps configure (vLLM logs "INFO 12-02 09:36:21
# [file.py:200] ...", with no logger name): basicConfig's default ("ERROR:sources.router:..."), the logging
# cookbook's "%(asctime)s - %(name)s - %(levelname)s - %(message)s" ("2026-01-08 00:35:04 - whisperjav - ERROR -
# ..."), and "%(asctime)s %(levelname)s [%(name)s] ..."; after a compose service's "name  | " prefix. An app names its
# loggers after its own package (logging.getLogger(__name__)): a name that is neither the root logger, nor a script's
# __main__, nor a package of vLLM's stack (transformers, torch, httpx, ...) or the libraries beside it, names the
# program that logged it.
_LOGGER_RECORD = LazyRe(r"^(?:[\w.-]{1,60} +\| )?(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):([A-Za-z_][\w.]{0,80}):|"
                        r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d{1,6})? (?:- ([A-Za-z_][\w.]{0,80}) - "
                        r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - |(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) +"
                        r"\[([A-Za-z_][\w.]{0,80})\] ))", re.M)
# loggers that name no program of their own: the root logger, a script's main module, Python's own and the libraries
# any Python program may log through (beside _STACK_PACKAGES)
_COMMON_LOGGERS = frozenset("""
    root __main__ __mp_main__ py asyncio concurrent multiprocessing logging uvicorn gunicorn hypercorn httpx httpcore
    urllib3 filelock jax jaxlib absl numexpr matplotlib h5py botocore boto3 s3transfer azure kubernetes websockets
    werkzeug tornado faiss numba sentence_transformers git paramiko hpack h11 h2 markdown_it pil watchdog
    sqlalchemy alembic apscheduler
""".split())
_LOGGER_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _logger_program(text: str) -> str | None:
    """The package a logging record names as its logger, where that is an app's own (not the root logger, a script's
    __main__, vLLM or a package of the stack beneath it)."""
    if not any(level in text for level in _LOGGER_LEVELS):
        return None
    for n, m in enumerate(_LOGGER_RECORD.finditer(text)):
        if n >= 200:
            break
        name = next(g for g in m.groups() if g)
        top = name.split(".")[0]
        if name.endswith(".py") or top.lower() in _COMMON_LOGGERS or {top, top.lower()} & _STACK_PACKAGES \
                or top.lower().startswith("vllm"):
            continue
        # (an app's package, or a library the app runs, deepspeed or diffusers: the log is not vLLM's either way)
        return f"`{top}` (the logger its log records name)"
    return None


# The dynamic loader names the executable it could not start ("/server: error while loading shared
# libraries: libcuda.so.1: ..."). Python, vLLM and the tools around them (the compiler a build runs,
# Triton's ptxas, Ray's daemons, nvidia-smi and the container toolkit) are a vLLM user's; any other
# executable is another program, and its log is not answered.
_LOADER_PROGRAM = _P(r"^[>\s`*]*(\S{1,200}?): error while loading shared libraries:", re.M,
                     literals=("error while loading shared libraries",))
_OWN_EXECUTABLES = LazyRe(r"(?:python[\d.]*m?|vllm|ray|raylet|gcs_server|plasma_store_server|nvidia-[\w-]+|"
                          r"nvcc|ptxas|cicc|fatbinary|nvlink|cc1(?:plus)?|c\+\+|[gc]\+\+(?:-\d+)?|gcc(?:-\d+)?|"
                          r"ld(?:\.\w+)?|as|cmake|ninja|make|pip\d?|uv|conda|mamba|torchrun|bash|sh|docker|"
                          r"podman|uvicorn|jupyter[\w-]*|ipython\d?)", re.I)


def loader_program(text: str) -> str | None:
    """The executable the loader could not start, when it is not Python or a tool around vLLM."""
    m = _LOADER_PROGRAM.search(text)
    if m is None:
        return None
    name = re.split(r"[/\\]", m.group(1))[-1]
    return None if not name or _OWN_EXECUTABLES.fullmatch(name) else name
