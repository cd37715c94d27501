"""A GPU's compute capability from its name (NVIDIA's table), for logs that name the GPU only."""

import pytest

from bot.diagnose.reading import facts, gpus, logtext


@pytest.mark.parametrize("name,cc", [
    ("Tesla V100-SXM2-32GB", "7.0"), ("Tesla V100S-PCIE-32GB", "7.0"), ("Tesla T4", "7.5"),
    ("NVIDIA GeForce RTX 2080 Ti", "7.5"), ("Quadro RTX 6000", "7.5"), ("NVIDIA RTX 6000 Ada Generation", "8.9"),
    ("NVIDIA A100-SXM4-80GB", "8.0"), ("NVIDIA A10G", "8.6"), ("NVIDIA RTX A2000", "8.6"), ("NVIDIA L4", "8.9"),
    ("NVIDIA L40S", "8.9"), ("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA H20", "9.0"), ("NVIDIA B200", "10.0"),
    ("NVIDIA GeForce RTX 5090 D", "12.0"), ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
    ("NVIDIA GB10", "12.1"), ("Tesla P100-PCIE-16GB", "6.0"), ("Tesla P40", "6.1"),
    ("NVIDIA GeForce GTX 1080 Ti", "6.1"), ("Tesla K80", "3.7"),
])
def test_capability_of_known_names(name, cc):
    assert gpus.capability(name) == cc


@pytest.mark.parametrize("name", [None, "", "AMD Instinct MI300X", "NVIDIA Jetson AGX Orin", "NVIDIA Quadro P2000"])
def test_unknown_names_give_nothing(name):
    assert gpus.capability(name) is None


def test_the_logs_own_figure_wins_over_the_table():
    text = "GPU models and configuration: GPU 0: Tesla T4\nYour Tesla T4 GPU has compute capability 7.5."
    assert facts.extract(logtext.clean(text).text)["compute_capability"] == "7.5"
    named = facts.extract(logtext.clean("GPU models and configuration: GPU 0: Tesla V100-PCIE-16GB").text)
    assert named["gpu_name"] == "Tesla V100-PCIE-16GB" and named["compute_capability"] == "7.0"
