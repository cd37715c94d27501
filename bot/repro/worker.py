"""`vllm-doctor worker`: claim repro jobs and run each on its own GPU.

One slot per GPU, one job per slot at a time; a job that asks for several GPUs
(tensor_parallel_size x pipeline_parallel_size) waits until that many are free and gets them
all. While a job runs, a heartbeat renews its lease and picks up cancellation; a worker that dies
stops renewing, and any worker's reaper queues the job again once the lease has run out. After a
job the slot waits until its GPU's memory is back to what it was when the worker started, so the
next job does not fail for memory the last one has not yet given back.

Workers hold no Slack token: the bot posts results (queue.finished_unposted).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field

from .plan import ReproPlan, default_base
from .queue import claim, finish, heartbeat, pending_count, reap_expired, record_step, release
from .runner import ProbeRunner, ProbeUnavailable
from .safety import ReproRefused, model_roots, resolve_model_path, validate_settings

log = logging.getLogger("vllm_doctor.worker")

GPU_FREE_MARGIN_MIB = 1024
GPU_FREE_TIMEOUT_S = 300.0


# --- GPUs ----------------------------------------------------------------------------------------

def _nvidia_smi(args: list[str]) -> list[str] | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip().splitlines() if out.returncode == 0 else None


def detect_gpus() -> list[str | None]:
    """The GPUs this worker may use: CUDA_VISIBLE_DEVICES, else all nvidia-smi lists, else one
    CPU slot (None)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
    if visible:
        return [g.strip() for g in visible.split(",") if g.strip()]
    lines = _nvidia_smi(["--query-gpu=index", "--format=csv,noheader"])
    return [line.strip() for line in lines] if lines else [None]


def describe_gpus(gpus: list[str | None]) -> str:
    """'0 (NVIDIA H200, GPU-5c3e…)' for each GPU a job runs on, as nvidia-smi names them, so a job's
    log shows which physical GPUs it had; the ids alone without nvidia-smi; 'the CPU' on a CPU slot."""
    if not gpus or gpus == [None]:
        return "the CPU"
    lines = _nvidia_smi(["--query-gpu=index,name,uuid", "--format=csv,noheader", "-i", ",".join(map(str, gpus))])
    if not lines:
        return ", ".join(map(str, gpus))
    return ", ".join(f"{index} ({name}, {uuid})" for index, name, uuid in
                     (tuple(part.strip() for part in line.split(",", 2)) for line in lines if line.count(",") >= 2))


def gpu_memory_used_mib(gpu: str | None) -> int | None:
    if gpu is None:
        return None
    lines = _nvidia_smi(["--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", gpu])
    try:
        return int(float(lines[0])) if lines else None
    except ValueError:
        return None


def wait_until_free(gpu: str | None, baseline_mib: int | None, *, timeout_s: float = GPU_FREE_TIMEOUT_S,
                    stop: threading.Event | None = None) -> bool:
    """Wait until the GPU uses no more memory than at start (plus a margin); on a CPU slot, or
    without nvidia-smi, there is nothing to wait for."""
    if gpu is None or baseline_mib is None:
        return True
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        used = gpu_memory_used_mib(gpu)
        if used is None or used <= baseline_mib + GPU_FREE_MARGIN_MIB:
            return True
        if stop is not None and stop.wait(2.0):
            return False
        elif stop is None:
            time.sleep(2.0)
    log.warning("GPU %s still uses more memory than at start after %.0f s", gpu, timeout_s)
    return False


class GpuPool:
    """Free GPUs, handed out whole: a job gets all it needs at once, or waits."""

    def __init__(self, gpus: list[str | None]):
        self.all = list(gpus)
        self.free = list(gpus)
        self.cond = threading.Condition()

    @property
    def is_cpu(self) -> bool:
        return self.all == [None]

    def take(self, n: int, stop: threading.Event) -> list[str | None] | None:
        with self.cond:
            while len(self.free) < n:
                if stop.is_set():
                    return None
                self.cond.wait(0.5)
            taken, self.free = self.free[:n], self.free[n:]
            return taken

    def give(self, gpus: list[str | None]) -> None:
        with self.cond:
            # Kept in the worker's order, so a job of two gets CUDA_VISIBLE_DEVICES=0,1 as nvidia-smi
            # numbers them, whichever job gave its GPU back first.
            self.free = sorted(self.free + list(gpus), key=self.all.index)
            self.cond.notify_all()


def gpus_needed(settings: dict) -> int:
    return int(settings.get("tensor_parallel_size", 1)) * int(settings.get("pipeline_parallel_size", 1))


def default_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# --- the job -------------------------------------------------------------------------------------

class Heartbeat(threading.Thread):
    """Renews a job's lease; notices a cancel request and a lost lease."""

    def __init__(self, store, job_id: int, worker_id: str, lease_s: float):
        super().__init__(daemon=True, name=f"heartbeat-{job_id}")
        self.store, self.job_id, self.worker_id, self.lease_s = store, job_id, worker_id, lease_s
        self.cancel = threading.Event()
        self.lost = threading.Event()
        self.done = threading.Event()

    def run(self) -> None:
        interval = max(0.2, self.lease_s / 3)
        while not self.done.wait(interval):
            try:
                answer = heartbeat(self.store, self.job_id, self.worker_id, self.lease_s)
            except Exception:  # noqa: BLE001 - a database blip: try again; the lease has slack
                log.warning("heartbeat for job %s failed", self.job_id, exc_info=True)
                continue
            if answer is None:
                self.lost.set()
                return
            if answer:
                self.cancel.set()

    def stop(self) -> None:
        self.done.set()


@dataclass
class Worker:
    store: object
    python: str
    gpus: list[str | None] = field(default_factory=detect_gpus)
    name: str = field(default_factory=default_name)
    lease_s: float = 120.0
    poll_s: float = 5.0
    timeout_s: float = 1200.0
    roots: list[str] | None = None
    once: bool = False

    def __post_init__(self):
        self.pool = GpuPool(self.gpus)
        self.stop = threading.Event()
        self.baseline = {gpu: gpu_memory_used_mib(gpu) for gpu in self.gpus}
        if self.roots is None:
            self.roots = model_roots()

    def run(self) -> None:
        slots = [threading.Thread(target=self._slot, args=(i,), name=f"slot-{i}", daemon=True)
                 for i in range(len(self.gpus))]
        for t in slots:
            t.start()
        try:
            for t in slots:
                while t.is_alive():
                    t.join(0.5)
        except KeyboardInterrupt:
            self.stop.set()
            for t in slots:
                t.join()

    def _slot(self, index: int) -> None:
        worker_id = f"{self.name}/slot{index}"
        while not self.stop.is_set():
            held = self.pool.take(1, self.stop)      # a free GPU first, then a job for it
            if held is None:
                return
            try:
                reaped = reap_expired(self.store)
                if any(reaped.values()):
                    log.info("reaped jobs whose lease ran out: %s", reaped)
                job = claim(self.store, worker_id, self.lease_s)
            except Exception:  # noqa: BLE001 - the database is away: wait and look again
                log.warning("cannot reach the job queue", exc_info=True)
                job = None
            if job is None:
                self.pool.give(held)
                if self.once and self._drained():
                    return
                self.stop.wait(self.poll_s)
                continue
            self.process(job, worker_id, held)

    def _drained(self) -> bool:
        try:
            return pending_count(self.store) == 0
        except Exception:  # noqa: BLE001
            return False

    def process(self, job: dict, worker_id: str, held: list[str | None]) -> None:
        log.info("job %s: %s %s (attempt %s)", job["id"], job["model_path"], job["settings"], job["attempts"])
        beat = Heartbeat(self.store, job["id"], worker_id, self.lease_s)
        beat.start()
        try:
            model = resolve_model_path(job["model_path"], self.roots)
            settings = validate_settings(job["settings"], roots=self.roots)
            held = self._gpus_for(settings, held)
            if held:
                self._run(job, worker_id, model, settings, held, beat)
            if self.stop.is_set() and not beat.cancel.is_set():
                # Shutting down mid-job: hand it back now rather than when the lease runs out.
                if release(self.store, job["id"], worker_id):
                    log.info("job %s: handed back to the queue (worker stopping)", job["id"])
        except ReproRefused as e:
            finish(self.store, job["id"], worker_id, status="failed", error=f"refused by the worker: {e.reason}")
        except ProbeUnavailable as e:
            finish(self.store, job["id"], worker_id, status="failed", error=str(e))
        except Exception as e:  # noqa: BLE001 - one bad job must not take the worker down
            log.exception("job %s crashed the worker's plan", job["id"])
            finish(self.store, job["id"], worker_id, status="failed", error=f"worker error: {type(e).__name__}: {e}")
        finally:
            beat.stop()
            if held:
                for gpu in held:
                    wait_until_free(gpu, self.baseline.get(gpu), stop=self.stop)
                self.pool.give(held)

    def _gpus_for(self, settings: dict, held: list[str | None]) -> list[str | None]:
        """All the GPUs the job needs. Waiting for more gives back the one held first: two
        slots each holding one and waiting for a second would wait for ever."""
        need = 1 if self.pool.is_cpu else gpus_needed(settings)
        if need > len(self.pool.all):
            raise ReproRefused(f"the job needs {need} GPUs (tensor x pipeline parallel); this worker has "
                               f"{len(self.pool.all)}")
        if need == len(held):
            return held
        self.pool.give(held)
        return self.pool.take(need, self.stop) or []

    def _run(self, job: dict, worker_id: str, model: str, settings: dict, gpus: list, beat: Heartbeat) -> None:
        # PCI bus order makes CUDA's device numbers the ones nvidia-smi shows.
        env = {} if self.pool.is_cpu else {"CUDA_VISIBLE_DEVICES": ",".join(str(g) for g in gpus),
                                            "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
        log.info("job %s: on %s", job["id"], describe_gpus(gpus))
        runner = ProbeRunner(python=self.python, timeout_s=self.timeout_s, env=env,
                             should_stop=lambda: beat.cancel.is_set() or beat.lost.is_set() or self.stop.is_set())
        counter = iter(range(1, 10_000))

        def on_step(step) -> None:
            try:
                record_step(self.store, job["id"], worker_id, next(counter), step)
            except Exception:  # noqa: BLE001 - steps are progress; the result row is what counts
                log.warning("job %s: could not store a step", job["id"], exc_info=True)

        plan = ReproPlan(model, settings, runner, base=default_base(), on_step=on_step)
        result = plan.run()
        if beat.lost.is_set():
            log.warning("job %s: lost its lease while running; its result is dropped", job["id"])
            return
        if self.stop.is_set() and not beat.cancel.is_set():
            return     # shutting down: process() hands the job back
        status = "cancelled" if result.verdict == "cancelled" else "done"
        diagnosis_id = self._record_diagnosis(result, job)
        if not finish(self.store, job["id"], worker_id, status=status, result=result.to_dict(),
                      diagnosis_id=diagnosis_id):
            log.warning("job %s: finished, but it was no longer ours", job["id"])
        else:
            log.info("job %s: %s (%s)", job["id"], result.verdict, result.summary)

    def _record_diagnosis(self, result, job: dict) -> int | None:
        """The failing run's diagnosis goes into the outcome store like a pasted log's."""
        step = result.failing_step
        if step is None or step.report is None or not hasattr(self.store, "record_diagnosis"):
            return None
        try:
            return self.store.record_diagnosis(step.report, source="repro", text=step.output,
                                               channel=job.get("channel"), user=job.get("requested_by"),
                                               thread_ts=job.get("thread_ts"))
        except Exception:  # noqa: BLE001 - the repro result matters more than its record
            log.warning("job %s: could not record the diagnosis", job["id"], exc_info=True)
            return None
