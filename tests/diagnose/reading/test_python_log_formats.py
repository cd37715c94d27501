"""Python log formats no program of vLLM's stack writes (loguru's records, rich's logging handler) and rich's traceback
frames whose function name a long path pushed onto the box's next line: signs of another program where nothing names
vLLM; and the vLLM pastes they must leave alone."""
from bot.diagnose import diagnose
from bot.diagnose.reading import facts

# fish-speech#84's tools/llama/generate.py records, then Triton's build failing to link libcuda
LOGURU = ("2024-02-18 17:02:12.963 | INFO     | __main__:load_model:359 - Restored model from checkpoint\n"
          "2024-02-18 17:02:18.903 | INFO     | __main__:main:439 - Encoded prompt shape: torch.Size([5, 823])\n")
LD = "/usr/bin/ld: cannot find -lcuda\ncollect2: error: ld returned 1 exit status\n"
# animatediff-cli-prompt-travel#30's and #152's rich records (padding shortened)
RICH = ("17:02:04 INFO     Creating AnimationPipeline...                                   generate.py:342\n"
        "         INFO     No TI embeddings found                                                ti.py:102\n")
RICH_DATED = "[11/07/23 12:02:34] WARNING  Using base model: runwayml/stable-diffusion-v1-5     cli.py:322\n"
# vLLM's own record and a client's relayed server error
VLLM_RECORD = "INFO 12-02 09:36:21 [mem_manager.py:200] Loading model weights took 14.99 GiB      model_runner.py:1\n"
RELAYED = ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context "
           "length is 4096 tokens. However, you requested 5000 tokens.\", 'type': 'BadRequestError', 'code': 400}\n")


def test_loguru_and_rich_records_are_another_programs_signs():
    assert "loguru" in facts.program_sign(LOGURU)
    assert "rich" in facts.program_sign(RICH)
    assert "rich" in facts.program_sign(RICH_DATED)
    assert "loguru" in facts.foreign_context(LOGURU + LD)[0]
    assert "rich" in facts.foreign_context(RICH + "RuntimeError: CUDA error: invalid configuration argument\n")[0]


def test_the_record_formats_leave_vllm_and_the_stack_alone():
    # vLLM's header puts the level first and the file in brackets; FastChat's records have no function and line
    assert facts.program_sign(VLLM_RECORD) is None
    assert facts.program_sign("2024-01-18 21:27:53 | ERROR | stderr | CUDA error\n") is None
    assert facts.program_sign("INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n") is None
    # a paste that names vLLM keeps it vLLM's, and a client that logs so relays a vLLM server's answer
    assert facts.foreign_context(LOGURU + "vllm serve Qwen/Qwen2-7B\n" + LD)[0] is None
    assert facts.foreign_context(LOGURU + RELAYED)[0] is None


def test_a_pasted_loguru_run_gets_no_answer_where_a_bare_one_does():
    assert diagnose(LD).diagnoses
    assert not diagnose(LOGURU + LD).diagnoses


def test_rich_frames_whose_function_wrapped_are_frames():
    wrapped = ("│ /home/pymo/.local/lib/python3.10/site-packages/torch/utils/_contextlib.py:115 in                 │\n"
               "│ decorate_context                                                                                 │\n")
    assert facts.traceback_paths(wrapped) == ["/home/pymo/.local/lib/python3.10/site-packages/torch/utils/_contextlib.py"]
    own = ("│ /home/u/animatediff-cli-prompt-travel/src/animatediff/generate.py:680 in run_inference           │\n")
    assert "no vLLM frame" in facts.foreign_context(own + wrapped)[0]
    # a code line of the box that merely ends in " in" is no frame
    assert facts.traceback_paths("│ ❱ 41 │   for x in                                                        │\n") == []


def test_an_axolotl_config_pasted_without_its_command_is_axolotls():
    # axolotl#1158's NCCL error and QLoRA config, the `accelerate launch -m axolotl.cli.train` line left out
    nccl = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, "
            "invalid argument, NCCL version 2.16.5\nncclInvalidArgument: Invalid value for an argument.\n")
    config = ("base_model: uni-tianyan/Uni-TianYan\nmodel_type: LlamaForCausalLM\nload_in_4bit: true\n"
              "dataset_prepared_path:\nval_set_size: 0\nadapter: qlora\nsequence_len: 4096\nsample_packing: false\n"
              "pad_to_sequence_len: true\nlora_r: 16\nlora_target_linear: true\n")
    assert facts.foreign_context(nccl + config)[0] == "Axolotl"
    assert diagnose(nccl).diagnoses and not diagnose(nccl + config).diagnoses
    # its GRPO config's vLLM section names vLLM: not another program's then
    assert facts.foreign_context(nccl + config + "vllm:\n  host: 0.0.0.0\n")[0] is None


def test_diffusers_own_pipeline_warnings_name_it():
    # diffusers 0.42.1's own warnings (the CLIP prompt truncation of encode_prompt, pipeline_utils.py's unused keyword
    # arguments, the SD pipelines' safety checker, modeling_utils.py's pickle fallback)
    for line in ("The following part of your input was truncated because CLIP can only handle sequences up to 77 "
                 "tokens: ['purpose or identity.']",
                 "Keyword arguments {'device': 'cuda'} are not expected by FluxPipeline and will be ignored.",
                 "You have disabled the safety checker for <class 'diffusers.pipelines.stable_diffusion.pipeline_stable_"
                 "diffusion.StableDiffusionPipeline'> by passing `safety_checker=None`.",
                 "An error occurred while trying to fetch model: Error no file named diffusion_pytorch_model.safetensors "
                 "found in directory model. Defaulting to unsafe serialization. Pass `allow_pickle=False` to raise an "
                 "error instead."):
        assert facts.foreign_context(line + "\nRuntimeError: CUDA error: out of memory\n")[0].startswith("diffusers"), line
    # transformers' Trainer says "are not expected by `LlamaForCausalLM.forward`", which names no diffusers pipeline
    assert facts.foreign_context("If text are not expected by `LlamaForCausalLM.forward`, you can safely ignore this "
                                 "message.\n")[0] != "diffusers (an image or video generation pipeline)"
