import ast

from bot.diagnose.knowledge.stack.build.module_constants import class_members, int_constants

SOURCE = '''
NVML_ERROR_UNKNOWN = 999
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_TEXT = "not a number"
NVML_SUCCESS = 0
NVML_ERROR_A = NVML_ERROR_B = 3
class X:
    NVML_ERROR_INSIDE = 7
def f():
    NVML_ERROR_LOCAL = 8
ZE_RESULT_FORCE_UINT32 = 0x7fffffff
'''


def test_top_level_int_constants_with_the_prefix_only():
    assert int_constants(SOURCE, "NVML_ERROR_") == {"NVML_ERROR_UNKNOWN": 999, "NVML_ERROR_NOT_FOUND": 6}


def test_names_left_out():
    assert int_constants(SOURCE, "ZE_RESULT_", frozenset({"ZE_RESULT_FORCE_UINT32"})) == {}
    assert int_constants(SOURCE, "ZE_RESULT_") == {"ZE_RESULT_FORCE_UINT32": 0x7fffffff}


def test_a_class_bodys_members_as_expressions():
    members = class_members(SOURCE, "X")
    assert list(members) == ["NVML_ERROR_INSIDE"] and members["NVML_ERROR_INSIDE"].value == 7
    assert class_members(SOURCE, "Missing") == {}


def test_one_parsed_tree_answers_both():
    tree = ast.parse(SOURCE)
    assert int_constants(tree, "NVML_ERROR_") == int_constants(SOURCE, "NVML_ERROR_")
    assert class_members(tree, "X").keys() == class_members(SOURCE, "X").keys()
