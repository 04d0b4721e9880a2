"""compiler/KernelAPI.def, the compiler's one description of the kernel API,
against python/spirjit/kernel_api.py: type inference and the lowering read
the table, so a kapi name they do not know, or know with other parameters,
would only show up as a confusing error in a user's kernel."""

import inspect
import os
import re

from spirjit import kernel_api as kapi

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
_TABLE = os.path.join(_ROOT, "compiler", "KernelAPI.def")

_RECEIVERS = {"Module": kapi, "Item": kapi.Item, "NdItem": kapi.NdItem,
              "Group": kapi.Group, "SubGroup": kapi.SubGroup,
              "AtomicRef": kapi.AtomicRef}

# Public kapi names a kernel may meet that the table does not list, and
# where the compiler handles them instead.
_HANDLED_ELSEWHERE = {
    # Launch shapes and local memory: the launcher turns them into the
    # kernel's item and its LocalAccessor arguments (KernelABI.h).
    "Range", "NdRange", "LocalAccessor",
    # The work item's classes: a kernel receives them, never constructs
    # them; their methods are in the table.
    "Item", "NdItem", "Group", "SubGroup",
    # The simulator: it runs on the host, never in a kernel.
    "call_kernel",
    # IntEnums: their members are KERNEL_API_CONSTANT rows, read as
    # attributes (infer/InferKernelAPI.cpp).
    "MemoryOrder", "MemoryScope", "AddressSpace",
}
# Properties are attributes, typed with the other attributes
# (infer/InferInstructions.cpp); `dimensions` is a compile-time constant.
_ATTRIBUTES_HANDLED_ELSEWHERE = {"dimensions"}


def _table():
    text = open(_TABLE).read()
    functions = re.findall(
        r'^KERNEL_API\(\s*(\w+),\s*(\w+),\s*"(\w+)",\s*"([\w,]*)",\s*(\d+),'
        r'\s*(\w+)\)', text, re.MULTILINE)
    constants = re.findall(
        r'^KERNEL_API_CONSTANT\((\w+),\s*(\w+),\s*(-?\d+)\)', text,
        re.MULTILINE)
    assert functions and constants, "KernelAPI.def could not be read"
    return functions, constants


def _parameters(obj, receiver):
    parameters = list(inspect.signature(obj).parameters.values())
    if receiver != "Module":  # a method: drop self
        parameters = parameters[1:]
    return parameters


def test_every_table_row_names_a_kernel_api_function_with_its_signature():
    functions, _ = _table()
    ids = [row[0] for row in functions]
    assert len(ids) == len(set(ids)), "an enumerator appears twice"
    for ident, receiver, name, params, required, _result in functions:
        owner = _RECEIVERS[receiver]
        assert hasattr(owner, name), \
            f"{ident}: {owner.__name__} has no '{name}'"
        parameters = _parameters(getattr(owner, name), receiver)
        names = [p.name for p in parameters]
        assert names == (params.split(",") if params else []), \
            f"{ident}: kernel_api.py declares {name}{tuple(names)}"
        no_default = [p.name for p in parameters
                      if p.default is inspect.Parameter.empty]
        assert no_default == names[:int(required)], \
            f"{ident}: kernel_api.py requires {no_default}"


def test_every_enum_member_is_a_table_constant_of_the_same_value():
    _, constants = _table()
    listed = {(enum, member): int(value) for enum, member, value in constants}
    for enum_name in {enum for enum, _ in listed}:
        for member in getattr(kapi, enum_name):
            assert listed.pop((enum_name, member.name)) == member.value, \
                f"kapi.{enum_name}.{member.name} differs from the table"
    assert not listed, f"the table lists members kapi lacks: {listed}"


def test_every_public_name_a_kernel_may_call_is_in_the_table():
    functions, _ = _table()
    listed = {(receiver, name) for _, receiver, name, *_ in functions}
    for name in kapi.__all__:
        assert ("Module", name) in listed or name in _HANDLED_ELSEWHERE, \
            f"kapi.{name} is neither in KernelAPI.def nor handled elsewhere"
    for receiver in ("Item", "NdItem", "Group", "AtomicRef"):
        for name, value in vars(_RECEIVERS[receiver]).items():
            if name.startswith("_"):
                continue
            if isinstance(value, property):
                assert name in _ATTRIBUTES_HANDLED_ELSEWHERE, \
                    f"kapi.{receiver}.{name} is an attribute no one types"
                continue
            assert (receiver, name) in listed, \
                f"kapi.{receiver}.{name}() is not in KernelAPI.def"
