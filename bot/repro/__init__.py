"""Reproduce a vLLM failure on a worker: bare LLM(model=...) first, then the user's settings added
back one at a time, one process each, until one breaks.

    probe.py   the child process that meets vLLM (runs under VLLM_PYTHON; stdlib + vllm only)
    runner.py  starts a probe, keeps its output, kills its whole process group when done
    plan.py    preflight, bare start, one setting at a time, the fix re-run -> ReproResult
    safety.py  model roots, known LLM() settings with types and ranges, remote-code switch
    queue.py   jobs in the outcome store: enqueue, claim, lease, reap, cancel, post
    worker.py  `vllm-doctor worker`: one job per GPU, heartbeat, GPU-free wait
    render.py  a result for the terminal and for the Slack thread
    cli.py     `vllm-doctor repro` and `vllm-doctor worker`
"""
