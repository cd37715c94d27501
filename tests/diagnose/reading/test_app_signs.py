"""Signs of an app's own log where no frame or name shows it: its loggers' names, the frameworks it runs under (Celery,
Flask), the paste's words (training a model, generating an image), a frame of its own
modules, and a virtual environment named after vLLM that another program runs in; and the vLLM pastes they must leave
alone."""
from bot.diagnose import diagnose
from bot.diagnose.reading import facts

LOADER = "OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n"


def test_an_apps_own_logger_names_it():
    # WhisperJAV#118's records ("%(asctime)s - %(name)s - %(levelname)s - %(message)s"), basicConfig's default
    dash = "2026-01-08 00:35:04 - whisperjav - ERROR - Failed to process C:\\1,MP4: CUDA out of memory.\n"
    assert facts.program_sign(dash) == "`whisperjav` (the logger its log records name)"
    assert facts.program_sign("ERROR:sources.router:" + LOADER) == "`sources` (the logger its log records name)"
    assert facts.program_sign("2024-03-01 10:00:02,456 ERROR [myapp.loader] " + LOADER).startswith("`myapp`")
    # behind a compose service's prefix
    assert facts.program_sign("backend-1  | ERROR:tracker.jobs:" + LOADER).startswith("`tracker`")
    assert not diagnose(dash.replace("CUDA out of memory.", LOADER.strip())).diagnoses


def test_the_root_logger_a_script_and_the_stacks_loggers_name_no_program():
    for name in ("root", "__main__", "transformers.modeling_utils", "torch.distributed.elastic", "httpx", "ray",
                 "huggingface_hub.file_download", "vllm.engine", "uvicorn.error", "py.warnings"):
        assert facts.program_sign(f"ERROR:{name}:" + LOADER) is None, name
        assert facts.program_sign(f"2024-03-01 10:00:02,456 - {name} - ERROR - " + LOADER) is None, name
    # vLLM's own header and the files some headers bracket are no logger names
    assert facts.program_sign("INFO 12-02 09:36:21 [llm_engine.py:200] Initializing an LLM engine\n") is None
    assert facts.program_sign("2024-03-01 10:00:02,456 INFO [utils.py] x\n") is None
    assert diagnose("ERROR:root:" + LOADER).diagnoses


def test_celery_and_flask_records_are_their_apps():
    celery = "[2024-03-01 10:00:02,456: ERROR/ForkPoolWorker-1] Task app.tasks.run[1f2e] raised unexpected: " + LOADER
    flask = "[2024-03-01 10:00:02,456] ERROR in app: Exception on /generate [POST]\n" + LOADER
    assert facts.program_sign(celery).startswith("a Celery worker")
    assert facts.program_sign(flask).startswith("a Flask app")
    assert not diagnose(celery).diagnoses and not diagnose(flask).diagnoses


def test_the_pastes_words_say_it_trained_or_generated_an_image():
    assert facts.program_sign("I encountered the following error while training the model:\n" + LOADER)
    assert facts.program_sign("This happens everytime I try to generate an image above 512 * 512.\n" + LOADER)
    assert facts.program_sign("txt2img doesn't work as expected.\n" + LOADER)
    # a multimodal request's image, and inference, are vLLM's
    for words in ("The error happens when generating image captions with Qwen2-VL.\n",
                  "It fails when I send an image to the model.\n", "It crashes during inference.\n",
                  "the training data was fine\n"):
        assert facts.program_sign(words + LOADER) is None, words


def test_a_single_frame_of_an_apps_own_modules_shows_the_app():
    one = ('Traceback (most recent call last):\n  File "/home/u/MyApp/modules/loader.py", line 47, in <module>\n'
           "    import torch\n" + "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n")
    assert "app's own modules" in facts.foreign_context(one)[0]
    assert not diagnose(one).diagnoses
    # a user's script in /app or /workspace says nothing: it may be the one that runs vLLM
    script = one.replace("/home/u/MyApp/modules/loader.py", "/app/serve.py")
    assert facts.foreign_context(script)[0] is None and diagnose(script).diagnoses


PYRAMID = ('Traceback (most recent call last):\n  File "app.py", line 47, in <module>\n    model = Pipeline()\n'
           '  File "/home/z/Pyramid-Flow/pyramid_dit/modeling_text_encoder.py", line 19, in __init__\n'
           "    self.tokenizer = CLIPTokenizer.from_pretrained(path)\n"
           '  File "/home/z/miniconda3/envs/vllm/lib/python3.8/site-packages/transformers/tokenization_utils_base.py", '
           "line 2070, in from_pretrained\n    raise EnvironmentError(\n"
           "OSError: Can't load tokenizer for '/home/z/Pyramid-Flow/pyramid_flow_model/tokenizer'.\n")


def test_an_environment_named_vllm_is_no_vllm_where_another_programs_code_runs_in_it():
    low = PYRAMID.lower()
    assert facts.env_only_mention(PYRAMID, low)
    assert not facts.vllm_printed(PYRAMID, paths=False)
    assert facts.foreign_context(PYRAMID)[0] is not None
    assert not diagnose(PYRAMID).diagnoses
    # its frames are not vLLM's
    assert facts.vllm_frames(PYRAMID) == facts.vllm_frames(PYRAMID.replace("envs/vllm/", "envs/pyramid/"))


def test_an_environment_named_vllm_still_hints_vllm_where_only_the_stack_runs():
    torch_only = ('Traceback (most recent call last):\n'
                  '  File "/root/miniconda3/envs/vllm/lib/python3.10/site-packages/torch/cuda/__init__.py", line 300, '
                  "in _lazy_init\n    torch._C._cuda_init()\n"
                  "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
                  "calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was "
                  "attempted on non supported HW\n")
    assert not facts.env_only_mention(torch_only, torch_only.lower())
    assert diagnose(torch_only).diagnoses
    # vLLM's own package in that environment is vLLM's
    own = PYRAMID.replace("site-packages/transformers/tokenization_utils_base.py", "site-packages/vllm/config.py")
    assert not facts.env_only_mention(own, own.lower())
