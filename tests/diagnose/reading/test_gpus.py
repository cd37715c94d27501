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


# workstation cards whose numbers read like a GeForce series: a Turing Quadro or an Ada card is no RTX 50 or 40 card
@pytest.mark.parametrize("name,cc", [
    ("Quadro RTX 5000", "7.5"), ("Quadro RTX 4000", "7.5"), ("Quadro RTX 3000 with Max-Q Design", "7.5"),
    ("Quadro RTX 8000", "7.5"), ("NVIDIA RTX 5000 Ada Generation", "8.9"), ("NVIDIA RTX 4000 SFF Ada Generation", "8.9"),
    ("NVIDIA RTX 2000 Ada Generation", "8.9"), ("NVIDIA RTX 5880 Ada Generation", "8.9"), ("NVIDIA RTX A5000", "8.6"),
    ("NVIDIA RTX A500 Laptop GPU", "8.6"), ("NVIDIA GeForce RTX 5060 Ti", "12.0"), ("NVIDIA GeForce RTX 4090", "8.9"),
    ("NVIDIA GeForce RTX 3050", "8.6"), ("NVIDIA GeForce RTX 2060 SUPER", "7.5"),
])
def test_workstation_names_are_not_read_as_a_geforce_series(name, cc):
    assert gpus.capability(name) == cc


def test_a_bare_four_digit_rtx_number_gives_nothing():
    # "RTX 5000" without Quadro or Ada could be either generation; the RTX 2050 is an Ampere chip
    assert gpus.capability("NVIDIA RTX 5000") is None and gpus.capability("NVIDIA GeForce RTX 2050") is None


@pytest.mark.parametrize("cc", ["7.5", "75", "sm_75", (7, 5)])
def test_cc_label_writes_the_capability_and_its_arch(cc):
    assert gpus.cc_label(cc) == "7.5 (`sm_75`)"
    assert gpus.cc_label("12.0") == "12.0 (`sm_120`)" and gpus.cc_label("sm_120a") == "12.0 (`sm_120`)"
    assert gpus.cc_label(None) is None and gpus.cc_label("gfx90a") is None


@pytest.mark.parametrize("name", [None, "", "AMD Instinct MI300X", "NVIDIA Jetson AGX Orin", "NVIDIA Quadro P2000"])
def test_unknown_names_give_nothing(name):
    assert gpus.capability(name) is None


def test_the_logs_own_figure_wins_over_the_table():
    text = "GPU models and configuration: GPU 0: Tesla T4\nYour Tesla T4 GPU has compute capability 7.5."
    assert facts.extract(logtext.clean(text).text)["compute_capability"] == "7.5"
    named = facts.extract(logtext.clean("GPU models and configuration: GPU 0: Tesla V100-PCIE-16GB").text)
    assert named["gpu_name"] == "Tesla V100-PCIE-16GB" and named["compute_capability"] == "7.0"


def test_the_gpus_named_for_a_capability_in_either_spelling():
    assert gpus.named(75) == gpus.named("7.5") == "T4, RTX 20xx, Quadro RTX"
    assert gpus.named("8.7") == "Jetson Orin"
    assert gpus.named(90) is None and gpus.named(None) is None
