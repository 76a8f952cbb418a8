"""The hand-written types agree with protocol/wharf.schema.json: same members, same required ones."""
import dataclasses
import json
import typing

import pytest

import wharf_client
import wharf_client.calls
import wharf_client.core
from wharf_client import types
from wharf_client.errors import ERROR_NAMES
from conftest import PROTOCOL

SCHEMA = json.loads((PROTOCOL / "wharf.schema.json").read_text())
MIRRORED = [cls for cls in vars(types).values()
            if isinstance(cls, type) and dataclasses.is_dataclass(cls) and getattr(cls, "SCHEMA", "")]


def resolve(pointer):
    node = SCHEMA
    for token in pointer.lstrip("#/").split("/"):
        node = node[token.replace("~1", "/").replace("~0", "~")]
    while "$ref" in node:
        node = resolve(node["$ref"])
    return node


def wire_fields(cls):
    """The dataclass's fields as wire names, each with whether it is required (has no default;
    ``Optional`` alone means nullable, as a required member may be null)."""
    fields = {}
    for field in dataclasses.fields(cls):
        if field.name == "extra":
            continue
        has_default = field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
        fields[types.camel(field.name)] = not has_default or field.name in getattr(cls, "OPTIONAL_ELSEWHERE", ())
    return fields


def nullable(schema):
    kinds = schema.get("type", [])
    return "null" in kinds or any(alternative.get("type") == "null" for alternative in schema.get("anyOf", []))


def test_every_schema_mirror_is_checked():
    assert {cls.__name__ for cls in MIRRORED} >= {"InitializeResult", "TypeDescription", "Identification", "Lease",
                                                  "AccessEntry", "DirectoryEntry", "DialogFilters", "DialogOptions"}


@pytest.mark.parametrize("cls", MIRRORED, ids=lambda cls: cls.__name__)
def test_fields_match_the_schema(cls):
    schema = resolve(cls.SCHEMA)
    properties = schema["properties"]
    fields = wire_fields(cls)
    assert set(fields) == set(properties), f"{cls.__name__} differs from {cls.SCHEMA}"
    if cls is types.DialogOptions:
        return  # every option is optional; the class is only ever written
    assert {name for name, is_required in fields.items() if is_required} == set(schema.get("required", []))
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        if field.name == "extra":
            continue
        python_nullable = type(None) in typing.get_args(hints[field.name])
        wire = types.camel(field.name)
        if fields[wire] and field.name not in getattr(cls, "OPTIONAL_ELSEWHERE", ()):  # required members are Optional exactly when the schema allows null
            assert python_nullable == nullable(properties[wire]), f"{cls.__name__}.{field.name}"


def test_presenter_show_filters_are_dialog_filters():
    shown = resolve("#/$defs/DialogFilters")
    assert set(shown["properties"]) == set(wire_fields(types.DialogFilters))
    assert "allowsAllFiles" not in shown["required"]


def test_export_documents_are_written_as_the_schema_says():
    schema = resolve("#/$defs/ExportDocument")
    for document in (types.ExportDocument(["public.plain-text"], filename="a", text="x"),
                     types.ExportDocument(["public.data"], data=b"\x00"),
                     types.ExportDocument(["public.data"], path="/tmp/x"),
                     types.ExportDocument(["public.data"], snapshot=lambda t: "x")):
        written = document.to_json()
        assert set(written) <= set(schema["properties"])
        assert set(schema["required"]) <= set(written)
        if "contents" in written:
            assert len(written["contents"]) == 1


def test_every_error_code_has_its_name():
    assert ERROR_NAMES == {entry["code"]: entry["name"] for entry in SCHEMA["errors"]}


def test_every_client_request_has_a_method_in_the_sync_client():
    # Each request the schema lets a client send is reachable through a typed method.
    source = "".join(open(module.__file__).read() for module in (wharf_client.calls, wharf_client.core, wharf_client.client))
    for method, entry in SCHEMA["requests"].items():
        if entry["direction"] != "serverToClient":
            assert f'"{method}"' in source, f"no typed method sends {method}"
    for method, entry in SCHEMA["notifications"].items():
        if entry["direction"] != "clientToServer" and method != "$/logTrace":
            assert f'"{method}"' in source or method.startswith("dialog/"), f"nothing handles {method}"
