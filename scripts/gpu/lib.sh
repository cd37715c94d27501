# Shared by acceptance.sh and acceptance2.sh: each step's output goes to $A/NAME.log, its exit code
# and time to $A/steps.txt, and everything so far is packed into $OUT/$PACK after every step (what
# is under $OUT comes back even when the call runs out of time).
pack() { tar czf "$OUT/$PACK" -C "$A" . 2>/dev/null; }
step() { local name=$1; shift; local t0; t0=$(date +%s.%N)
  timeout "${LIMIT:-240}" "$@" > "$A/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc seconds=$(awk "BEGIN{print $(date +%s.%N) - $t0}")" | tee -a "$A/steps.txt"; pack; }
export VLLM_NO_USAGE_STATS=1 HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1 VLLM_USE_FLASHINFER_SAMPLER=0
export PYTHONPATH=$PWD VLLM_PYTHON=python3 MODEL_ROOTS=/models
mkdir -p "$A" /models
nvidia-smi > "$A/nvidia-smi.txt" 2>&1
step install bash .gpu/p6/install.sh .gpu/p6
python3 -m pip install -q --no-index --find-links .gpu/p6 rapidfuzz >> "$A/install.log" 2>&1
step make-model python3 scripts/make_tiny_model.py /models/tiny --max-position-embeddings 2048
