#!/usr/bin/env bash
# On the H200 (vLLM 0.26.0 installed from .gpu/p6): the user script under one broken environment each.
# usage: h200.sh [base|variants|variants2|...|variants21]
#   base       the nine environments of issue 21 (and two healthy-looking offline/Hub runs)
#   variants   other limits, caches and proxy answers: the same failures as other values word them
#   variants2  other users, homes, unwritable caches, the Hub failing in other ways
#   variants3  model files broken, a fake libcuda, Triton's ptxas missing, process limits, Triton's cache full
#   variants4  PYTORCH_CUDA_ALLOC_CONF mistyped, no C compiler for Triton, a 1 MiB /dev/shm under the mp
#              executor, cuBLAS's library missing, a model folder the user cannot read
#   variants5  no C compiler on PATH (the venv's bin only), `True` written lower-case in the allocator config,
#              FlashInfer's sampler forced on where FlashInfer is not installed
#   variants6  weight sync over vLLM's PyNcclCommunicator (same GPU twice, a missing NCCL_SOCKET_IFNAME, a peer
#              that never joins, VLLM_NCCL_SO_PATH naming nothing), TRITON_LIBCUDA_PATH naming nothing,
#              CUDA_VISIBLE_DEVICES=0,0, the API server's port already held
#   variants7  an index past a table at the first forward: a tokenizer larger than the checkpoint's embeddings,
#              GPT-2's learned positions past max_position_embeddings (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); each
#              compiled (the defaults) and eager
#   variants8  no GPU for the process on a GPU host: CUDA_VISIBLE_DEVICES empty or -1, and the driver's user-space
#              libraries hidden (libcuda, libnvidia-ml, or both: a container started without --gpus)
#   variants9  settings that need a package the image lacks or a backend the dtype cannot use: FlashAttention forced
#              for float32, LMCache's and NIXL's KV connectors, bitsandbytes
#              quantization; an ordinary model given as an EAGLE draft
#   variants10 CUDA touched before the engine under the fork method, a KV cache budget below one sequence,
#              data parallel 2 on one GPU, removed engine switches from old tutorials (VLLM_USE_V1=0,
#              VLLM_ATTENTION_BACKEND=XFORMERS), an FP8 KV cache on float32, a strict chat template (LLM.chat)
#   variants11 another process holding most of the GPU's memory, expandable segments with sleep mode, a
#              CUDA_VISIBLE_DEVICES index or UUID the host lacks, a model path with a typo offline, LD_PRELOAD
#              naming nothing (healthy), DEBUG logging (healthy), AWQ asked of an unquantized model
#   variants12 pipeline or tensor parallel of 2 on one GPU, a tiny memory share, FlashInfer or an unknown attention
#              backend forced, max_model_len over the model's, a CPU offload larger than RAM, a bad compilation
#              level, an fp8_e5m2 KV cache
#   variants13 a thousandth of the memory, FlashInfer asked through attention_config, hf_overrides that break the
#              checkpoint's shapes (vocab, KV heads), GPTQ or GGUF asked of a plain checkpoint, block size 7, a
#              tokenizer path that is not there
#   variants14 a LoRA rank vLLM does not take, ngram speculation without its token count, image limits on a text model,
#              an unknown rope type, zero sequences, a batch of one token, the V2 model runner (healthy on a GPU)
#   variants15 the fp8_e5m2 KV cache eager (does the assert Dynamo met raise as itself?), FlexAttention in float32 and
#              bfloat16 (its recompiles), FlashAttention 2 forced on Hopper
#   variants16 a Kubernetes service's VLLM_PORT (tcp://...), an unknown logging level, an empty vllm/ folder beside the
#              script, a user's process limit (ulimit -u), vLLM's cache root on a full disk
#   variants17 an embedding checkpoint (the model's body only: no "model." prefix, no lm_head) whose config still names
#              a text-generation class
#   variants18 a file-size limit (SIGXFSZ while a cache is written), a small stack, vLLM's IPC path under a folder
#              that is not there, the card's memory all but 700 MiB held by another process, a cgroup memory limit
#              (the kernel's OOM killer), a compile cache truncated between two runs
#   variants19 the kernel's OOM killer in memory cgroups of 1 GiB, 1400 MiB and 1700 MiB, the engine process killed
#              (SIGKILL, as the OOM killer does) after its weights loaded, and under a serving API server after its
#              first request (SERVE_WHEELS=DIR: the API server's dependencies the image lacks, and setproctitle)
#   variants20 the engine process sent SIGSEGV, SIGBUS, SIGABRT and SIGILL (each its own run) after its weights loaded,
#              SIGSEGV under a serving API server after its first request, and SIGSEGV with PYTHONFAULTHANDLER=1
#              (vLLM 0.26 enables no faulthandler of its own): the shapes a native crash of the engine leaves
#   variants21 pinned host memory: KV offloading larger than the host's RAM, KV offloading inside a 2 GiB memory cgroup,
#              under a small `ulimit -l` as another user, cpu_offload_gb larger than the model (a control)
#   variants22 cuBLAS's handle with all but 400 or 200 MiB of the card held; FlashInfer's JIT where the image has no nvcc,
#              CUDA_HOME naming nothing or a folder without bin/nvcc (FI=DIR: FlashInfer 0.6.14's wheel and its small imports)
#   variants23 Triton uninstalled: the defaults (Inductor) and eager
# Every log is packed into $OUT/h200.tgz as soon as it exists (a lent machine can be taken back).
SET=${1:-base}; P6=${P6:-.gpu/p6}; P6ABS=$PWD/$P6; SW=${SERVE_WHEELS:+$PWD/$SERVE_WHEELS}; FIABS=${FI:+$PWD/$FI}; S=$PWD/scripts/stack_runs; A=/tmp/h200; mkdir -p $A; PY=python3
pack() { tar czf $OUT/h200.tgz -C $A . 2>/dev/null; }
export VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1 VLLM_USE_FLASHINFER_SAMPLER=0
T=${LIMIT:-110}; START=$(date +%s)
run() { local n=$1; shift; if [ $(( $(date +%s)-START )) -gt 480 ]; then echo "$n skipped" >> $A/rc.txt; return; fi; local t0=$(date +%s); ( timeout $T "$@" ) > $A/$n.log 2>&1; echo "$n rc=$? s=$(( $(date +%s)-t0 ))" >> $A/rc.txt; pack; }
full_disk() { mkdir -p /tmp/vd-full && mount -t tmpfs -o size=4m tmpfs /tmp/vd-full && mkdir -p /tmp/vd-full/home/.cache && { dd if=/dev/zero of=/tmp/vd-full/fill bs=64k 2>/dev/null; df -h /tmp/vd-full > $A/fulldisk-df.txt; }; }
nvidia-smi > $A/nvidia-smi.txt 2>&1
( bash $P6/install.sh $P6 > $A/install.log 2>&1; echo "install rc=$?" >> $A/rc.txt ) || exit 1
pack
mkdir -p /models /tmp/vd-work && chmod 1777 /tmp/vd-work
HF_HUB_OFFLINE=1 $PY scripts/make_tiny_model.py /models/tiny --max-position-embeddings 2048 > $A/make-model.log 2>&1
chmod -R a+rX /models; cp $S/user_script*.py $S/asuser.py /tmp/vd-work/; chmod 644 /tmp/vd-work/*.py
M=/models/tiny; U=${USER_SCRIPT:-user_script.py}; AS="$PY /tmp/vd-work/asuser.py"; Q=Qwen/Qwen2.5-0.5B-Instruct; cd /tmp/vd-work
case $SET in
base)
  # group A: each fails before the GPU is used; run side by side
  $PY -m pip install -q --no-index --no-deps --target /tmp/tf-old $P6ABS/transformers-4.57.1-py3-none-any.whl > $A/tf-old-install.log 2>&1
  rm -rf /tmp/vd-trunc && cp -r $M /tmp/vd-trunc && $PY -c "import os; p='/tmp/vd-trunc/tokenizer.json'; os.truncate(p, os.path.getsize(p)//2)"
  $PY $S/deny_proxy.py 18931 & PROXY=$!
  run tokenizer $PY $U /tmp/vd-trunc &
  run oldtf env PYTHONPATH=/tmp/tf-old $PY $U $M &
  run hub env HF_ENDPOINT=http://127.0.0.1:9 HF_HOME=/tmp/vd-hf $PY $U $Q &
  run offline env HF_HUB_OFFLINE=1 HF_HOME=/tmp/vd-hf $PY $U $Q &
  run proxy env HTTPS_PROXY=http://127.0.0.1:18931 https_proxy=http://127.0.0.1:18931 HF_HOME=/tmp/vd-hf $PY $U $Q &
  ( $PY -m vllm.collect_env > $A/collect-env-vllm.txt 2>&1; $PY -m torch.utils.collect_env > $A/collect-env-torch.txt 2>&1 ) &
  # group B: these reach the engine; one at a time on the one GPU
  export HF_HUB_OFFLINE=1
  run vmem bash -c "ulimit -v 16000000; exec $PY $U $M"
  run nofile bash -c "ulimit -n 40; exec $PY $U $M"
  run nouser $AS 12345 12345 -u HOME -u USER -u LOGNAME -- $PY $U $M
  run nohome $AS 65534 65534 HOME=/nonexistent USER=nobody -- $PY $U $M
  full_disk; run fulldisk env HOME=/tmp/vd-full/home $PY $U $M
  kill $PROXY 2>/dev/null; wait ;;
variants)
  rm -rf /tmp/vd-cfg && cp -r $M /tmp/vd-cfg && $PY -c "import os; p='/tmp/vd-cfg/config.json'; os.truncate(p, os.path.getsize(p)//2)"
  rm -rf /tmp/vd-tok0 && cp -r $M /tmp/vd-tok0 && : > /tmp/vd-tok0/tokenizer.json
  $PY $S/deny_proxy.py 18932 407 & PROXY=$!
  run config-trunc $PY $U /tmp/vd-cfg & P1=$!
  run tokenizer-empty $PY $U /tmp/vd-tok0 & P2=$!
  run proxy-407 env HTTPS_PROXY=http://127.0.0.1:18932 https_proxy=http://127.0.0.1:18932 HF_HOME=/tmp/vd-hf7 $PY $U $Q & P3=$!
  wait $P1 $P2 $P3; kill $PROXY 2>/dev/null
  export HF_HUB_OFFLINE=1
  for v in 8000000 32000000 64000000; do run vmem-$v bash -c "ulimit -v $v; exec $PY $U $M"; done
  for n in 20 100 256; do run nofile-$n bash -c "ulimit -n $n; exec $PY $U $M"; done
  full_disk; run vllm-cache-full env VLLM_CACHE_ROOT=/tmp/vd-full/vllm $PY $U $M ;;
variants2)
  mkdir -p /tmp/h12345 && chown 12345:12345 /tmp/h12345; mkdir -p /ro && chmod 555 /ro
  run dns env HF_ENDPOINT=http://hub.invalid HF_HUB_ETAG_TIMEOUT=5 HF_HOME=/tmp/vd-hf8 $PY $U $Q & P1=$!
  run proxy-closed env HTTPS_PROXY=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HF_HOME=/tmp/vd-hf9 $PY $U $Q & P2=$!
  wait $P1 $P2
  export HF_HUB_OFFLINE=1
  run nouser-user-set $AS 12345 12345 -u HOME -u LOGNAME USER=u12345 -- $PY $U $M
  run nouser-home-set $AS 12345 12345 -u USER -u LOGNAME HOME=/tmp/h12345 -- $PY $U $M
  run home-read-only $AS 65534 65534 HOME=/ro USER=nobody -- $PY $U $M
  run home-slash $AS 65534 65534 HOME=/ USER=nobody -- $PY $U $M
  run inductor-cache-unwritable $AS 12345 12345 HOME=/tmp/h12345 USER=u12345 TORCHINDUCTOR_CACHE_DIR=/ro/inductor -- $PY $U $M
  run triton-cache-unwritable $AS 12345 12345 HOME=/tmp/h12345 USER=u12345 TRITON_CACHE_DIR=/ro/triton -- $PY $U $M ;;
variants3)
  # files of the model broken, a fake driver library, Triton's ptxas missing, thread and process limits
  rm -rf /tmp/vd-st && cp -r $M /tmp/vd-st && $PY -c "import os; p='/tmp/vd-st/model.safetensors'; os.truncate(p, os.path.getsize(p)//2)"
  rm -rf /tmp/vd-mt && cp -r $M /tmp/vd-mt && $PY -c "import json; p='/tmp/vd-mt/config.json'; c=json.load(open(p)); c['model_type']='llama_next'; json.dump(c, open(p,'w'))"
  rm -rf /tmp/vd-tc && cp -r $M /tmp/vd-tc && $PY -c "import os; p='/tmp/vd-tc/tokenizer_config.json'; os.truncate(p, os.path.getsize(p)//2)"
  mkdir -p /tmp/vd-fakecuda && : > /tmp/vd-fakecuda/libcuda.so.1
  mkdir -p /tmp/h12345 && chown 12345:12345 /tmp/h12345; chmod -R a+rX /tmp/vd-st /tmp/vd-mt /tmp/vd-tc
  run safetensors-trunc $PY $U /tmp/vd-st & P1=$!
  run model-type-unknown $PY $U /tmp/vd-mt & P2=$!
  run tokenizer-config-trunc $PY $U /tmp/vd-tc & P3=$!
  wait $P1 $P2 $P3
  export HF_HUB_OFFLINE=1
  run fake-libcuda env LD_LIBRARY_PATH=/tmp/vd-fakecuda $PY $U $M
  run ptxas-missing env TRITON_PTXAS_PATH=/nonexistent/ptxas TRITON_CACHE_DIR=/tmp/vd-tc-cache $PY $U $M
  for n in 64 256 1024; do
    run nproc-$n $AS 12345 12345 HOME=/tmp/h12345 USER=u12345 -- bash -c "ulimit -u $n; exec $PY $U $M"
  done
  full_disk; run triton-cache-full env TRITON_CACHE_DIR=/tmp/vd-full/triton $PY $U $M ;;
variants4)
  export HF_HUB_OFFLINE=1
  run alloc-conf-typo env PYTORCH_CUDA_ALLOC_CONF=expandable_segment:True $PY $U $M
  run alloc-conf-equals env PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb=512 $PY $U $M
  # Triton builds its launcher with the C compiler at first use: fresh caches, and a PATH of the venv's bin only
  # (no cc/gcc; a symlink to the venv's python elsewhere would lose the venv: pyvenv.cfg sits beside the real one)
  NOCC_PATH=$(dirname "$(command -v $PY)")
  fresh() { echo "TRITON_CACHE_DIR=/tmp/vd-c-$1/triton TORCHINDUCTOR_CACHE_DIR=/tmp/vd-c-$1/inductor VLLM_CACHE_ROOT=/tmp/vd-c-$1/vllm"; }
  run no-cc env $(fresh nocc) PATH=$NOCC_PATH $PY $U $M
  run cc-missing env $(fresh ccm) CC=/usr/local/bin/gcc-missing $PY $U $M
  run shm-1m unshare -m bash -c "mount -t tmpfs -o size=1m tmpfs /dev/shm && exec $PY $S/user_script_mp.py $M"
  mkdir -p /tmp/vd-private && cp -r $M /tmp/vd-private/tiny && chmod 700 /tmp/vd-private/tiny
  run model-unreadable $AS 65534 65534 HOME=/tmp/vd-work USER=nobody -- $PY $U /tmp/vd-private/tiny
  LIB=$($PY -c "import glob, os, torch; print((glob.glob(os.path.join(os.path.dirname(torch.__file__), '..', 'nvidia', '**', 'libcublas.so.*'), recursive=True) or [''])[0])" 2>/dev/null)
  echo "cublas: $LIB" >> $A/rc.txt
  if [ -n "$LIB" ]; then mv "$LIB" "$LIB.off"; run cublas-missing $PY $U $M; mv "$LIB.off" "$LIB"; fi ;;
variants5)
  export HF_HUB_OFFLINE=1
  fresh() { echo "TRITON_CACHE_DIR=/tmp/vd-c-$1/triton TORCHINDUCTOR_CACHE_DIR=/tmp/vd-c-$1/inductor VLLM_CACHE_ROOT=/tmp/vd-c-$1/vllm"; }
  run no-cc-on-path env $(fresh nocc) PATH=$(dirname "$(command -v $PY)") $PY $U $M
  run alloc-conf-lowercase env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true $PY $U $M
  run flashinfer-sampler-forced env VLLM_USE_FLASHINFER_SAMPLER=1 $PY $U $M ;;
variants6)
  # weight sync between a trainer and a vLLM server (vLLM's PyNcclCommunicator) broken four ways, Triton's
  # libcuda path naming nothing, and one GPU listed twice in CUDA_VISIBLE_DEVICES
  export HF_HUB_OFFLINE=1 NCCL_DEBUG=WARN; W="$PY $S/weight_sync.py"
  run ws-same-gpu bash -c "$W 0 0 51301 & $W 1 0 51301; wait"
  run ws-socket-ifname bash -c "export NCCL_SOCKET_IFNAME=nosuch0; $W 0 0 51302 & $W 1 0 51302; wait"
  run ws-peer-never-joins $W 1 0 51303 20
  run ws-nccl-so-missing bash -c "export VLLM_NCCL_SO_PATH=/nonexistent/libnccl.so.2; $W 0 0 51304 & $W 1 0 51304; wait"
  fresh() { echo "TRITON_CACHE_DIR=/tmp/vd-c-$1/triton TORCHINDUCTOR_CACHE_DIR=/tmp/vd-c-$1/inductor VLLM_CACHE_ROOT=/tmp/vd-c-$1/vllm"; }
  run triton-libcuda-path env $(fresh tlp) TRITON_LIBCUDA_PATH=/nonexistent/lib64 $PY $U $M
  run cvd-same-gpu-twice env CUDA_VISIBLE_DEVICES=0,0 $PY $U $M
  # the API server's port held by another process (a stale server)
  $PY -c "import socket,time; s=socket.socket(); s.bind(('0.0.0.0', 8000)); s.listen(); time.sleep(300)" & HOLD=$!
  run api-port-in-use $PY -m vllm.entrypoints.openai.api_server --model $M --port 8000 --enforce-eager
  kill $HOLD 2>/dev/null ;;
variants7)
  export HF_HUB_OFFLINE=1; $PY $S/make_variant_models.py $M /models > $A/make-variants.log 2>&1; chmod -R a+rX /models
  LONG=$($PY -c "print(' '.join('w%d' % i for i in range(100)))")
  run vocab-tokenizer-larger $PY $S/user_script_prompt.py /models/vocab-big "w1500 w1600 w1700 a b"
  run vocab-tokenizer-larger-eager $PY $S/user_script_prompt.py /models/vocab-big "w1500 w1600 w1700 a b" float32 eager
  run long-len-absolute-positions env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 $PY $S/user_script_prompt.py /models/gpt2-64 "$LONG"
  run long-len-absolute-positions-eager env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 $PY $S/user_script_prompt.py /models/gpt2-64 "$LONG" float32 eager ;;
variants8)
  export HF_HUB_OFFLINE=1
  # every copy the loader could find, hidden by /dev/null in a mount namespace of the run's own
  hide() { local libs=""; for n in "$@"; do libs="$libs $(ldconfig -p | awk -v n="$n" '$1 ~ "^"n {print $NF}')"; done
           echo "hidden:$libs" >> $A/rc.txt; local m=""; for l in $libs; do m="$m mount --bind /dev/null $(readlink -f $l);"; done; echo "$m"; }
  run cvd-empty env CUDA_VISIBLE_DEVICES= $PY $U $M
  run cvd-minus-one env CUDA_VISIBLE_DEVICES=-1 $PY $U $M
  run no-driver-libs unshare -m bash -c "$(hide libcuda.so libnvidia-ml.so) exec $PY $U $M"
  run no-nvml unshare -m bash -c "$(hide libnvidia-ml.so) exec $PY $U $M"
  run no-libcuda unshare -m bash -c "$(hide libcuda.so) exec $PY $U $M" ;;
variants9)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  run attn-flash-attn-float32 $K '{"attention_backend": "FLASH_ATTN"}'
  run kv-connector-lmcache-missing $K '{"kv_transfer_config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}}'
  run kv-connector-nixl-missing $K '{"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}}'
  run bnb-missing $K '{"quantization": "bitsandbytes"}'
  run eagle-draft-not-eagle $K '{"speculative_config": {"method": "eagle", "model": "/models/tiny", "num_speculative_tokens": 2}}' ;;
variants10)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  rm -rf /models/strict && cp -r $M /models/strict && $PY - <<'PY'
import json; p = "/models/strict/tokenizer_config.json"; c = json.load(open(p))
c["chat_template"] = ("{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{{ message['role'] }}: {{ message['content'] }} {% endfor %}{% if add_generation_prompt %}assistant: {% endif %}")
json.dump(c, open(p, "w"))
PY
  chmod -R a+rX /models
  run cuda-first-fork env VLLM_WORKER_MULTIPROC_METHOD=fork $PY $S/user_script_cuda_first.py $M
  run kv-bytes-1mb-len-2048 $K '{"max_model_len": 2048, "kv_cache_memory_bytes": 1000000}'
  run dp-two-on-one $K '{"data_parallel_size": 2}'
  run use-v1-zero env VLLM_USE_V1=0 $K '{}'
  run attn-env-xformers env VLLM_ATTENTION_BACKEND=XFORMERS $K '{}'
  run fp8-kv-float32 $K '{"kv_cache_dtype": "fp8"}'
  run chat-system-role $PY $S/user_script_chat.py /models/strict '[{"role": "system", "content": "be brief"}, {"role": "user", "content": "a b c"}]' ;;
variants11)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  # a stale process (another user's notebook, a server not stopped) holding 60 GiB of the card
  $PY -c "import torch, time; x = torch.empty(60 * 2**30, dtype=torch.uint8, device='cuda'); print('held', flush=True); time.sleep(150)" > $A/holder.log 2>&1 & HOLD=$!
  for i in $(seq 30); do grep -q held $A/holder.log && break; sleep 1; done
  run free-mem-other-process $K '{"gpu_memory_utilization": 0.9}'
  kill $HOLD 2>/dev/null; wait $HOLD 2>/dev/null
  run expandable-segments-sleep-mode env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True $K '{"enable_sleep_mode": true}'
  run cvd-index-absent env CUDA_VISIBLE_DEVICES=3 $K '{}'
  run model-path-typo $PY $S/user_script_kwargs.py /models/tinyy '{}'
  run ld-preload-missing env LD_PRELOAD=/opt/nonexistent/libhook.so $K '{}'
  run debug-logging env VLLM_LOGGING_LEVEL=DEBUG $K '{}'
  run awq-on-unquantized $K '{"quantization": "awq"}'
  run cvd-uuid-absent env CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000 $K '{}' ;;
variants12)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  run pp-two-on-one $K '{"pipeline_parallel_size": 2}'
  run tp-two-on-one $K '{"tensor_parallel_size": 2}'
  run gpu-util-tiny $K '{"gpu_memory_utilization": 0.02}'
  run attn-backend-flashinfer env VLLM_ATTENTION_BACKEND=FLASHINFER $K '{}'
  run attn-backend-bogus env VLLM_ATTENTION_BACKEND=NOPE $K '{}'
  run max-len-over $K '{"max_model_len": 100000}'
  run cpu-offload-huge $K '{"cpu_offload_gb": 100000}'
  run compile-level-bad $K '{"compilation_config": {"level": 9}}'
  run kv-fp8-e5m2 $K '{"kv_cache_dtype": "fp8_e5m2"}' ;;
variants13)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  run gpu-util-thousandth $K '{"gpu_memory_utilization": 0.001}'
  run attention-config-flashinfer $K '{"attention_config": {"backend": "FLASHINFER"}}'
  run hf-overrides-vocab $K '{"hf_overrides": {"vocab_size": 500}}'
  run hf-overrides-heads $K '{"hf_overrides": {"num_key_value_heads": 3}}'
  run gptq-on-unquantized $K '{"quantization": "gptq"}'
  run load-format-gguf $K '{"load_format": "gguf"}'
  run block-size-7 $K '{"block_size": 7}'
  run tokenizer-path-missing $K '{"tokenizer": "/models/no-such-tokenizer"}' ;;
variants14)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  run lora-rank-7 $K '{"enable_lora": true, "max_lora_rank": 7}'
  run ngram-no-tokens $K '{"speculative_config": {"method": "ngram"}}'
  run mm-limit-text-model $K '{"limit_mm_per_prompt": {"image": 2}}'
  run rope-scaling-bad $K '{"hf_overrides": {"rope_scaling": {"rope_type": "nope", "factor": 2.0}}}'
  run max-num-seqs-zero $K '{"max_num_seqs": 0}'
  run batched-tokens-one $K '{"max_num_batched_tokens": 1}'
  run v2-runner env VLLM_USE_V2_MODEL_RUNNER=1 $K '{}' ;;
variants15)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  run kv-fp8-e5m2-eager $K '{"kv_cache_dtype": "fp8_e5m2", "enforce_eager": true}'
  run flex-attention-fp32 $K '{"dtype": "float32", "attention_config": {"backend": "FLEX_ATTENTION"}}'
  run flex-attention $K '{"attention_config": {"backend": "FLEX_ATTENTION"}}'
  run fa-version-2 env VLLM_FLASH_ATTN_VERSION=2 $K '{}' ;;
variants16)
  export HF_HUB_OFFLINE=1
  run port-uri env VLLM_PORT=tcp://10.96.0.12:8000 $PY $U $M
  run logging-level-bogus env VLLM_LOGGING_LEVEL=LOUD $PY $U $M
  mkdir -p /tmp/vd-shadow/vllm && cp /tmp/vd-work/$U /tmp/vd-shadow/ && chmod -R a+rX /tmp/vd-shadow
  run namespace-shadow bash -c "cd /tmp/vd-shadow && exec $PY $U $M"
  run nproc-limit $AS 12345 12345 HOME=/tmp/vd-home-nproc -- bash -c "ulimit -u 60; exec $PY $U $M"
  full_disk; run compile-cache-full env VLLM_CACHE_ROOT=/tmp/vd-full/vllm $PY $U $M ;;
variants17)
  export HF_HUB_OFFLINE=1
  rm -rf /models/embed-body && cp -r $M /models/embed-body && $PY - <<'PY'
import os
from safetensors.torch import load_file, save_file
d = "/models/embed-body"; f = next(os.path.join(d, x) for x in os.listdir(d) if x.endswith(".safetensors"))
save_file({k[len("model."):]: v for k, v in load_file(f).items() if k.startswith("model.")}, f, metadata={"format": "pt"})
PY
  chmod -R a+rX /models/embed-body
  run embed-body $PY $U /models/embed-body ;;
variants18)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  fresh() { echo "TRITON_CACHE_DIR=/tmp/vd-c-$1/triton TORCHINDUCTOR_CACHE_DIR=/tmp/vd-c-$1/inductor VLLM_CACHE_ROOT=/tmp/vd-c-$1/vllm"; }
  run fsize-limit env $(fresh fs) bash -c "ulimit -f 200; exec $PY $U $M"
  run stack-small bash -c "ulimit -s 128; exec $PY $U $M"
  run rpc-path-missing env VLLM_RPC_BASE_PATH=/nonexistent/rpc $PY $U $M
  $PY -c "import torch, time; f, t = torch.cuda.mem_get_info(); x = torch.empty(f - 700 * 2**20, dtype=torch.uint8, device='cuda'); print('held', f, t, flush=True); time.sleep(120)" > $A/holder.log 2>&1 & HOLD=$!
  for i in $(seq 30); do grep -q held $A/holder.log && break; sleep 1; done
  run gpu-nearly-full $K '{"gpu_memory_utilization": 0.005}'
  kill $HOLD 2>/dev/null; wait $HOLD 2>/dev/null
  # the kernel's OOM killer inside a memory cgroup of 2 GiB (cgroup v2; skipped where the tree is read-only)
  { mkdir -p /sys/fs/cgroup/vd && echo +memory > /sys/fs/cgroup/cgroup.subtree_control; echo $((2*2**30)) > /sys/fs/cgroup/vd/memory.max \
    && echo 0 > /sys/fs/cgroup/vd/memory.swap.max; } > $A/cgroup.txt 2>&1; cat /sys/fs/cgroup/vd/memory.max >> $A/cgroup.txt 2>&1
  grep -qx $((2*2**30)) /sys/fs/cgroup/vd/memory.max 2>/dev/null && run oom-cgroup bash -c "echo \$\$ > /sys/fs/cgroup/vd/cgroup.procs; exec $PY $U $M"
  run cache-warm env $(fresh cc) $PY $U $M
  find /tmp/vd-c-cc -type f -size +0 -exec $PY -c "import os, sys; [os.truncate(p, os.path.getsize(p) // 2) for p in sys.argv[1:]]" {} + ; find /tmp/vd-c-cc -type f > $A/cache-files.txt
  run cache-truncated env $(fresh cc) $PY $U $M ;;
variants19)
  export HF_HUB_OFFLINE=1
  # the API server's own dependencies (uvicorn, uvloop, watchfiles, ...) and setproctitle (VLLM::EngineCore as the
  # process's name, what the kernel's OOM report shows) are not in the image nor in prepare.sh's p6: SERVE_WHEELS=DIR
  [ -n "$SW" ] && $PY -m pip install -q --no-index --find-links $SW uvicorn uvloop watchfiles \
    prometheus-fastapi-instrumentator model-hosting-container-standards aiohttp python-multipart setproctitle > $A/serve-install.log 2>&1
  # the kernel's OOM killer in memory cgroups (variants18's 2 GiB ran healthy; 1 GiB kills the script's own process
  # while the engine starts; 1400 MiB stalls in reclaim, 1700 MiB runs); bash -c execs its last command even unasked,
  # so no shell's "Killed" line follows: the kernel's lines of each kill are kept in dmesg-N.txt
  for g in 1024 1400 1700; do
    { mkdir -p /sys/fs/cgroup/vd$g && echo +memory > /sys/fs/cgroup/cgroup.subtree_control; echo $((g*2**20)) > /sys/fs/cgroup/vd$g/memory.max
      echo 0 > /sys/fs/cgroup/vd$g/memory.swap.max; cat /sys/fs/cgroup/vd$g/memory.max; } >> $A/cgroup.txt 2>&1
    run oom-cgroup-$g bash -c "echo \$\$ > /sys/fs/cgroup/vd$g/cgroup.procs; $PY $U $M"
    cat /sys/fs/cgroup/vd$g/memory.events >> $A/cgroup.txt 2>&1
    dmesg 2>/dev/null | grep -E "invoked oom-killer|oom-kill:|Killed process" | tail -3 > $A/dmesg-$g.txt; done
  # SIGKILL to the engine process once its weights are in, as the OOM killer would send it (without setproctitle
  # the engine's command line is multiprocessing's spawn_main)
  ( sleep 1; for i in $(seq 90); do grep -q "Model loading took" $A/engine-killed-start.log 2>/dev/null && break; sleep 1; done
    pkill -9 -f "VLLM::EngineCore|spawn_main"; echo "killed at $i s rc=$?" >> $A/rc.txt ) &
  run engine-killed-start $PY $U $M; wait
  # the same under the API server, after it has answered one request (Python's urllib: the image may lack curl)
  post() { $PY -c 'import sys, urllib.request as u
r = u.Request("http://localhost:8000" + sys.argv[1], data=sys.argv[2].encode() if len(sys.argv) > 2 else None, headers={"Content-Type": "application/json"})
try: print(u.urlopen(r, timeout=60).read().decode())
except Exception as e: print(repr(e), e.read().decode() if hasattr(e, "read") else "")' "$@"; }
  body='{"model": "'$M'", "prompt": "a b c", "max_tokens": 5}'
  ( for i in $(seq 90); do post /v1/models | grep -q '"data"' && break; sleep 1; done
    post /v1/completions "$body" > $A/first-request.txt; sleep 2
    pkill -9 -f "VLLM::EngineCore|spawn_main"; echo "serving killed at $i s rc=$?" >> $A/rc.txt; sleep 5
    post /v1/completions "$body" > $A/after-kill-request.txt; sleep 10
    pkill -f "VLLM::APIServer|vllm.entrypoints.openai.api_server" ) &
  run engine-killed-serving $PY -m vllm.entrypoints.openai.api_server --model $M --port 8000 --dtype float32 --max-model-len 512 --gpu-memory-utilization 0.2
  wait ;;
variants20)
  export HF_HUB_OFFLINE=1; ulimit -c 0
  [ -n "$SW" ] && $PY -m pip install -q --no-index --find-links $SW uvicorn uvloop watchfiles \
    prometheus-fastapi-instrumentator model-hosting-container-standards aiohttp python-multipart setproctitle > $A/serve-install.log 2>&1
  # a native crash's signal sent to the engine process once its weights are in (vLLM 0.26 installs no handler for
  # these: the process dies by the signal unless PYTHONFAULTHANDLER is set)
  killat() { ( sleep 1; for i in $(seq 90); do grep -q "Model loading took" $A/$1.log 2>/dev/null && break; sleep 1; done
    pkill -$2 -f "VLLM::EngineCore|spawn_main"; echo "$1: SIG$2 at $i s rc=$?" >> $A/rc.txt ) & }
  for s in SEGV BUS ABRT ILL; do
    n=engine-sig$(echo $s | tr A-Z a-z)-start; killat $n $s; run $n $PY $U $M; wait; done
  post() { $PY -c 'import sys, urllib.request as u
r = u.Request("http://localhost:8000" + sys.argv[1], data=sys.argv[2].encode() if len(sys.argv) > 2 else None, headers={"Content-Type": "application/json"})
try: print(u.urlopen(r, timeout=60).read().decode())
except Exception as e: print(repr(e), e.read().decode() if hasattr(e, "read") else "")' "$@"; }
  body='{"model": "'$M'", "prompt": "a b c", "max_tokens": 5}'
  serve_kill() { ( for i in $(seq 90); do post /v1/models | grep -q '"data"' && break; sleep 1; done
    post /v1/completions "$body" > $A/$1-first-request.txt; sleep 2
    pkill -$2 -f "VLLM::EngineCore|spawn_main"; echo "$1: SIG$2 at $i s rc=$?" >> $A/rc.txt; sleep 5
    post /v1/completions "$body" > $A/$1-after-kill-request.txt; sleep 10
    pkill -f "VLLM::APIServer|vllm.entrypoints.openai.api_server" ) & }
  SRV="$PY -m vllm.entrypoints.openai.api_server --model $M --port 8000 --dtype float32 --max-model-len 512 --gpu-memory-utilization 0.2"
  serve_kill engine-sigsegv-serving SEGV; run engine-sigsegv-serving $SRV; wait
  killat engine-sigsegv-start-faulthandler SEGV; run engine-sigsegv-start-faulthandler env PYTHONFAULTHANDLER=1 $PY $U $M; wait
  serve_kill engine-sigsegv-serving-faulthandler SEGV; run engine-sigsegv-serving-faulthandler env PYTHONFAULTHANDLER=1 $SRV; wait ;;
variants21)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  mkdir -p /tmp/h12345 && chown 12345:12345 /tmp/h12345; free -g > $A/free.txt; ulimit -l >> $A/free.txt
  # pinned (page-locked) host memory: vLLM's native KV offloading pins kv_offloading_size GiB with
  # torch.zeros(..., pin_memory=True) (v1/kv_offload/cpu/gpu_worker.py; cudaHostAlloc under torch's host allocator)
  run kv-offload-300g $K '{"kv_offloading_size": 300, "enforce_eager": true}'
  dmesg 2>/dev/null | grep -E "invoked oom-killer|oom-kill:|Killed process" | tail -3 > $A/dmesg-kv300.txt
  { mkdir -p /sys/fs/cgroup/vd2g && echo +memory > /sys/fs/cgroup/cgroup.subtree_control; echo $((2*2**30)) > /sys/fs/cgroup/vd2g/memory.max
    echo 0 > /sys/fs/cgroup/vd2g/memory.swap.max; cat /sys/fs/cgroup/vd2g/memory.max; } >> $A/cgroup.txt 2>&1
  run kv-offload-4g-memcg-2g bash -c "echo \$\$ > /sys/fs/cgroup/vd2g/cgroup.procs; $K '{\"kv_offloading_size\": 4, \"enforce_eager\": true}'"
  cat /sys/fs/cgroup/vd2g/memory.events >> $A/cgroup.txt 2>&1
  dmesg 2>/dev/null | grep -E "invoked oom-killer|oom-kill:|Killed process" | tail -3 > $A/dmesg-memcg.txt
  run kv-offload-4g-memlock-64k-user bash -c "ulimit -l 64; exec $AS 12345 12345 HOME=/tmp/h12345 USER=u12345 -- $PY user_script_kwargs.py $M '{\"kv_offloading_size\": 4, \"enforce_eager\": true}'"
  run cpu-offload-larger-than-model $K '{"cpu_offload_gb": 8, "enforce_eager": true}' ;;
variants22)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  { command -v nvcc; ls -d /usr/local/cuda*; echo "CUDA_HOME=$CUDA_HOME PATH=$PATH"; } > $A/nvcc.txt 2>&1
  # cuBLAS makes its handle at the first matmul: all but a few hundred MiB of the card held by another process, and a
  # memory share small enough for vLLM's own check to pass
  for left in 400 200; do
    $PY -c "import torch, time; f, t = torch.cuda.mem_get_info(); x = torch.empty(f - $left * 2**20, dtype=torch.uint8, device='cuda'); print('held', f, t, flush=True); time.sleep(100)" > $A/holder-$left.log 2>&1 & HOLD=$!
    for i in $(seq 30); do grep -q held $A/holder-$left.log && break; sleep 1; done
    run gpu-left-${left}m $K '{"gpu_memory_utilization": 0.001, "enforce_eager": true}'
    kill $HOLD 2>/dev/null; wait $HOLD 2>/dev/null
  done
  # FlashInfer, which the image lacks (vLLM 0.26 pins 0.6.14; FI=DIR holds its wheel and the small ones it imports),
  # compiles its kernels with nvcc at first use (its JIT): the image has no CUDA toolkit, CUDA_HOME naming nothing,
  # naming a folder without bin/nvcc
  [ -n "$FIABS" ] && $PY -m pip install -q --no-index --no-deps $FIABS/*.whl > $A/fi-install.log 2>&1
  $PY -c "import flashinfer; print(flashinfer.__version__)" >> $A/fi-install.log 2>&1
  FA='{"attention_config": {"backend": "FLASHINFER"}, "dtype": "bfloat16", "enforce_eager": true}'
  run fi-attention $K "$FA"
  run fi-attention-cuda-home-missing env CUDA_HOME=/nonexistent $K "$FA"
  mkdir -p /tmp/vd-cuda-empty/bin /tmp/vd-cuda-empty/include
  run fi-attention-cuda-home-no-nvcc env CUDA_HOME=/tmp/vd-cuda-empty $K "$FA"
  run fi-sampler-cuda-home-missing env VLLM_USE_FLASHINFER_SAMPLER=1 CUDA_HOME=/nonexistent $PY $U $M ;;
variants23)
  export HF_HUB_OFFLINE=1; K="$PY $S/user_script_kwargs.py $M"
  # Triton removed from the environment (a pip that uninstalled it, a CPU torch's environment reused): vLLM 0.26's
  # defaults compile with Inductor, which writes Triton kernels; eager still runs vLLM's own Triton kernels
  $PY -m pip uninstall -y triton > $A/triton-uninstall.log 2>&1; $PY -c "import triton" >> $A/triton-uninstall.log 2>&1
  run triton-missing $PY $U $M
  run triton-missing-eager $K '{"enforce_eager": true}' ;;
*) echo "unknown set: $SET" >&2; exit 2 ;;
esac
pack; cat $A/rc.txt
