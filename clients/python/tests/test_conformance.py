"""Every transcript of protocol/conformance/, replayed against the real binary."""
import pytest

from conftest import PROTOCOL
import conformance

TRANSCRIPTS = sorted((PROTOCOL / "conformance").glob("*.json"))


def test_there_are_transcripts():
    assert len(TRANSCRIPTS) >= 10


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_transcript_replays_against_the_binary(path, wharf_path):
    conformance.Runner(wharf_path, conformance.load(str(path))).run()


def test_the_matcher_binds_and_compares_captures():
    captures = {}
    assert conformance.matches({"id": 1, "result": {"dialogId": "d1"}}, {"result": {"dialogId": "$d"}}, captures)
    assert captures == {"d": "d1"}
    assert not conformance.matches({"params": {"dialogId": "d2"}}, {"params": {"dialogId": "$d"}}, captures)
    assert conformance.matches([3, 1, 2], {"$unordered": [1, 2, 3]}, captures)
    assert not conformance.matches({"a": 1}, {"a": {"$absent": True}}, captures)
    assert conformance.matches({"a": 1.0}, {"a": {"$type": "integer"}}, captures)


def test_expect_all_keeps_the_servers_own_messages_in_order():
    response = {"id": 1, "result": {}}
    first = {"method": "dialog/presentationChanged"}
    last = {"method": "dialog/completed"}
    assert conformance.assign([first, response, last], [response, first, last], {}, keep_method_order=True)
    assert not conformance.assign([last, response, first], [response, first, last], {}, keep_method_order=True)
