"""A study spec from whatever an analyst has at hand.

The contract is ``ldp.v1.StudySpec`` (proto/ldp/v1/analyst_service.proto and
types.proto): the package adds no spec format of its own, so a dict, a JSON
file and a textproto (the form ``ldp study create`` reads, see
``deploy/examples/``) all mean exactly what the .proto comments say. A dict
and JSON use protobuf's JSON mapping: field names as in the .proto or in
lowerCamelCase, enums by name, 64-bit integers as numbers or strings.
"""

import json
import os
from pathlib import Path

from google.protobuf import json_format, text_format

from .errors import SpecError
from .stubs import analyst_pb2

JSON_SUFFIXES = {".json"}
TEXT_SUFFIXES = {".textproto", ".txtpb", ".pbtxt", ".prototxt", ".txt"}


def _from_dict(value, source):
    spec = analyst_pb2.StudySpec()
    try:
        json_format.ParseDict(value, spec)
    except json_format.ParseError as e:
        raise SpecError(f"{source} is not an ldp.v1.StudySpec: {e}") from None
    return spec


def _from_json_text(text, source):
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise SpecError(f"{source} is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise SpecError(f"{source} must hold a JSON object (a StudySpec), "
                        f"not {type(value).__name__}")
    return _from_dict(value, source)


def _from_textproto(text, source):
    spec = analyst_pb2.StudySpec()
    try:
        text_format.Parse(text, spec)
    except text_format.ParseError as e:
        raise SpecError(f"{source} is not an ldp.v1.StudySpec textproto: {e}") from None
    return spec


def _from_file(path):
    path = Path(path)
    if not path.is_file():
        raise SpecError(f"spec file {path} not found")
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in JSON_SUFFIXES:
        return _from_json_text(text, str(path))
    return _from_textproto(text, str(path))


def study_spec(spec):
    """``spec`` as an ``ldp.v1.StudySpec`` message.

    Accepts a StudySpec (returned as is), a dict (protobuf JSON mapping), a
    :class:`pathlib.Path` or file name of a ``.json`` file or a textproto
    (any other suffix), or the text itself: JSON when it starts with ``{``,
    else textproto. Raises :class:`SpecError` naming the source and the
    first problem.
    """
    if isinstance(spec, analyst_pb2.StudySpec):
        return spec
    if isinstance(spec, dict):
        return _from_dict(spec, "the spec dict")
    if isinstance(spec, os.PathLike):
        return _from_file(spec)
    if isinstance(spec, str):
        if "\n" not in spec and (os.path.isfile(spec) or
                                 Path(spec).suffix.lower() in JSON_SUFFIXES | TEXT_SUFFIXES):
            return _from_file(spec)
        if spec.lstrip().startswith("{"):
            return _from_json_text(spec, "the spec text")
        return _from_textproto(spec, "the spec text")
    raise SpecError("a study spec must be an ldp.v1.StudySpec, a dict, a file "
                    f"path or textproto/JSON text, not {type(spec).__name__}")
