"""GPU libraries and programs outside vLLM's stack whose own CUDA checks read like the stack's errors (FAISS, Horovod,
PyCUDA, RAPIDS, XGBoost, OpenCV's CUDA modules, Darknet, hashcat, PhysX), the signs of a training loop's epoch counter
and of a GoogleTest binary; and the vLLM logs that name them, which stay vLLM's."""
import pytest

from bot.diagnose import diagnose
from bot.diagnose.reading import facts
from tests.support.programs import assert_shows_program

# one line each from the threads of tests/fixtures/logs/_negative/foreign10-*
OTHER_PROGRAMS = {
    "FAISS": "Faiss assertion 'err__ == cudaSuccess' failed in int faiss::gpu::getNumDevices() at "
             "utils/DeviceUtils.cpp:32; details: CUDA error 3\n",
    "Horovod": "[1]<stderr>:    mpi_lib.horovod_torch_wait_and_clear(handle)\n"
               "[1]<stderr>:RuntimeError: ncclCommInitRank failed: unhandled cuda error (run with NCCL_DEBUG=INFO for "
               "details)\n",
    "PyCUDA": "pycuda._driver.LogicError: cuInit failed: initialization error\n",
    "RAPIDS": "GDFError: CUDA ERROR. cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime "
              "version\n",
    "XGBoost": "xgboost.core.XGBoostError: [17:26:39] /work/src/common/device_vector.cuh: 367: "
               "cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device\n",
    "OpenCV": "  what():  OpenCV(3.4.10) /home/u/opencv-3.4.10/modules/cudev/include/opencv2/cudev/grid/detail/copy.hpp:78:"
              " error: (-217:Gpu API call) no kernel image is available for execution on the device in function 'copy'\n",
    "Darknet": " CUDA Error: no kernel image is available for execution on the device\n"
               "Darknet error location: /home/u/darknet/src/dark_cuda.c, check_error, line #69\n",
    "Hashcat": "* Device #1: Kernel /usr/share/hashcat/OpenCL/shared.cl link failed. Error Log:\n\n"
               "ptxas application ptx input, line 9; fatal:\nUnsupported .version 9.3; current version is '9.2'\n",
    "PhysX": "2023-07-24 09:14:09 [250,761ms] [Error] [omni.physx.plugin] PhysX error: SynchronizeStreams cuEventRecord "
             "failed with error 700\n",
    "GoogleTest": "[==========] Running 8 tests from 1 test suite.\n[ RUN      ] Params/FusionTest.ModUp/0\n"
                  "Cuda failure /home/u/ckks-gpu-core/src/public/Context.cu:361: 'no kernel image is available for "
                  "execution on the device'\n",
    "epoch counter": "Epoch: 0\nCould not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared "
                     "object file: No such file or directory\n",
}


@pytest.mark.parametrize("program", sorted(OTHER_PROGRAMS))
def test_a_gpu_librarys_own_check_shows_its_program(program):
    assert not assert_shows_program(OTHER_PROGRAMS[program], program)["stack_context"]


def test_a_vllm_log_that_names_them_stays_vllms():
    # a vLLM engine's own line, then a pip list that holds the other libraries: the stack's error is answered
    own = ("(EngineCore_DP0 pid=1) INFO 10-25 13:08:41 [core.py:77] Initializing a V1 LLM engine (v0.11.0)\n"
           "[pip3] faiss-gpu==1.7.2\n[pip3] horovod==0.28.1\n[pip3] pycuda==2024.1\n[pip3] xgboost==2.1.0\n"
           "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    f = facts.extract(own)
    assert f["stack_context"]
    assert diagnose(own).diagnoses[0].rule_id == "no-kernel-image"
    # a package list names what is installed, not the program that ran: without vLLM's line it is a bare error
    listed = own.split("\n", 1)[1].replace("faiss-gpu", "cudf-cu12")
    assert facts.extract(listed)["foreign_context"] is None


def test_a_training_scripts_name_may_lead_with_one_word_but_not_an_rl_trainers():
    sign = facts.program_sign
    assert "training script" in (sign("python deepbind_train_encode.py top calib,train\n") or "")
    for command in ("python grpo_train.py --model Qwen/Qwen2.5-7B\n", "python rl_train.py\n",
                    "python vllm_train.py\n"):
        assert sign(command) is None, command


def test_an_epoch_counter_is_a_line_of_its_own():
    assert "epoch counter" in (facts.program_sign("Epoch: 3\n") or "")
    assert "epoch counter" in (facts.program_sign("epoch 3/100\n") or "")
    for line in ("epochs: 3\n", "  num_train_epochs: 3.0\n", "Epoch 1: all prompts done\n"):
        assert "epoch counter" not in (facts.program_sign(line) or ""), line
