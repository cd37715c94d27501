"""Weight sync as RL trainers run it beside a vLLM server (TRL's `init_communicator`, OpenRLHF, verl):
two processes form vLLM's StatelessProcessGroup and a PyNcclCommunicator on it, then broadcast a tensor
from the trainer (rank 0) to the server (rank 1).

usage: weight_sync.py RANK DEVICE [PORT] [STORE_TIMEOUT_S]"""
import sys

import torch
from vllm.distributed.device_communicators.pynccl import PyNcclCommunicator
from vllm.distributed.utils import StatelessProcessGroup

if __name__ == "__main__":
    rank, device = int(sys.argv[1]), int(sys.argv[2])
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 51216
    timeout = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    pg = StatelessProcessGroup.create(host="127.0.0.1", port=port, rank=rank, world_size=2, store_timeout=timeout)
    comm = PyNcclCommunicator(pg, device=device)
    if not comm.available:
        # what a trainer checks before it relies on the communicator
        raise RuntimeError("PyNcclCommunicator is not available: NCCL could not be loaded")
    weights = torch.full((1024,), float(rank), device=f"cuda:{device}")
    comm.broadcast(weights, src=0)
    torch.cuda.synchronize()
    print(f"rank {rank}: weight sync done, value {weights[0].item()}")
